import { Type } from '@sinclair/typebox';
import { DID_KEY_TYPES, type DidKeyType } from '../../integrations/evm/did-registry';
import { SignedSlot } from '../wallet/schemas';
import { DateTime } from '../common/schemas';

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

/** interface.md 2.6: a W3C VC Data Model 2.0 credential; other top-level members are allowed. */
export const VerifiableCredential = Type.Object({
  '@context': Type.Array(Type.String()),
  id: Type.String(),
  type: Type.Array(Type.String()),
  issuer: Type.Union([Type.String(), Type.Object({ id: Type.String(), name: Type.String() })]),
  validFrom: DateTime,
  validUntil: DateTime,
  credentialSubject: Type.Record(Type.String(), Type.Unknown()),
  proof: Type.Record(Type.String(), Type.Unknown()),
}, { additionalProperties: true });
export const CredentialParams = Type.Object({ vcId: Type.String({ pattern: '^vc_[0-9a-f-]{36}$' }) });
export const CredentialList = Type.Object({
  items: Type.Array(Type.Object({
    vcId: Type.String(), type: Type.String({ description: 'KycCredential | BasicInfoCredential' }),
    validFrom: DateTime, validUntil: DateTime, issuedAt: DateTime,
  })),
});
export const JsonLdContext = Type.Object({ '@context': Type.Record(Type.String(), Type.Unknown()) });
