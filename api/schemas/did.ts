import { Type } from '@sinclair/typebox';
import { DID_KEY_TYPES, type DidKeyType } from '../../activities/chain/did';
import { SignedSlot } from './wallet';
import { DateTime } from './common';

export const AssertionPrepareBody = Type.Object({
  keyType: Type.Union((Object.keys(DID_KEY_TYPES) as DidKeyType[]).map((t) => Type.Literal(t)), { description: 'e.g. EcdsaSecp256k1VerificationKey2019' }),
  publicKey: Type.String({ pattern: '^0x[0-9a-fA-F]+$', maxLength: 140, description: 'Public key, 0x-hex (secp256k1: 33 or 65 bytes; Ed25519: 32 bytes)' }),
}, { additionalProperties: false });
export const AssertionExecuteBody = Type.Object({
  signing: Type.Object({ items: Type.Array(SignedSlot, { minItems: 1, maxItems: 8 }) }),
}, { additionalProperties: false });
export const AssertionAccepted = Type.Object({ opId: Type.String(), status: Type.String({ description: 'submitted' }) });
export const DidOperationParams = Type.Object({ opId: Type.String({ pattern: '^didop_[0-9a-f-]{36}$' }) });
export const DidOperationStatus = Type.Object({
  opId: Type.String(), did: Type.String(), keyType: Type.String(), status: Type.String({ description: 'prepared | submitted | completed | failed' }),
  txHash: Type.Union([Type.String(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]), updatedAt: DateTime,
});
