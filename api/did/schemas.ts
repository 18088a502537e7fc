import { Type, type TSchema } from '@sinclair/typebox';
import { DID_KEY_TYPES, type DidKeyType } from '../../integrations/evm/did-registry';
import { SignedSlot } from '../wallet/schemas';
import { DateTime, SignedOperationProgress, SignedOperationStatus, pageMembers, pageQuery } from '../common/schemas';

export const AssertionPrepareBody = Type.Object(
  {
    keyType: Type.Union(
      (Object.keys(DID_KEY_TYPES) as DidKeyType[]).map((t) => Type.Literal(t)),
      { description: 'e.g. EcdsaSecp256k1VerificationKey2019' },
    ),
    publicKey: Type.String({
      pattern: '^0x[0-9a-fA-F]+$',
      maxLength: 140,
      description: 'Public key, 0x-hex (secp256k1: 33 or 65 bytes; Ed25519: 32 bytes)',
    }),
  },
  { additionalProperties: false },
);
export const AssertionExecuteBody = Type.Object(
  {
    signing: Type.Object({ items: Type.Array(SignedSlot, { minItems: 1, maxItems: 8 }) }),
  },
  { additionalProperties: false },
);
export const AssertionAccepted = Type.Object({
  opId: Type.String(),
  status: Type.String({ description: 'submitted' }),
});
export const DidOperationParams = Type.Object({ opId: Type.String({ pattern: '^didop_[0-9a-f-]{36}$' }) });
export const DidOperationStatus = Type.Object({
  opId: Type.String(),
  did: Type.String(),
  keyType: Type.String(),
  status: SignedOperationStatus,
  ...SignedOperationProgress,
  txHash: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  updatedAt: DateTime,
});

/** docs/interface.md 2.6: a W3C VC Data Model 2.0 credential; other top-level members are allowed. */
export const VerifiableCredential = Type.Object(
  {
    '@context': Type.Array(Type.String()),
    id: Type.String(),
    type: Type.Array(Type.String()),
    issuer: Type.Union([Type.String(), Type.Object({ id: Type.String(), name: Type.String() })]),
    validFrom: DateTime,
    validUntil: DateTime,
    credentialSubject: Type.Record(Type.String(), Type.Unknown()),
    proof: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: true },
);
export const CredentialParams = Type.Object({ vcId: Type.String({ pattern: '^vc_[0-9a-f-]{36}$' }) });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const CredentialStatus = Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')], {
  description: 'revoked: its bit is set in the status list (for good); expired: past validUntil; else active',
});
export const CredentialList = Type.Object({
  items: Type.Array(
    Type.Object({
      vcId: Type.String(),
      type: Type.String({ description: 'KycCredential | BasicInfoCredential' }),
      status: CredentialStatus,
      holder: Nullable(
        Type.String({
          description:
            "credentialSubject.id: the user's did:ethr; null for a credential issued before their account was deployed",
        }),
      ),
      validFrom: DateTime,
      validUntil: DateTime,
      issuedAt: DateTime,
      revokedAt: Nullable(DateTime),
      revocationReason: Nullable(Type.String({ description: 'superseded | account-closed | operator: <reason>' })),
      statusListCredential: Nullable(
        Type.String({ description: 'Where a verifier checks it (the credentialStatus of the credential)' }),
      ),
    }),
  ),
  ...pageMembers,
});
export const CredentialQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);
export const StatusListParams = Type.Object({ listId: Type.String({ pattern: '^[1-9][0-9]{0,8}$' }) });
export const StatusListCredential = Type.Object(
  {
    '@context': Type.Array(Type.String()),
    id: Type.String(),
    type: Type.Array(Type.String()),
    issuer: Type.Object({ id: Type.String(), name: Type.String() }),
    validFrom: DateTime,
    credentialSubject: Type.Object({
      id: Type.String(),
      type: Type.Literal('BitstringStatusList'),
      statusPurpose: Type.Literal('revocation'),
      encodedList: Type.String({
        description:
          'GZIP-compressed bitstring, base64url with the multibase prefix u; bit n set: the credential at statusListIndex n is revoked',
      }),
      ttl: Type.Integer({ description: 'Milliseconds a verifier may cache the list' }),
    }),
    proof: Type.Record(Type.String(), Type.Unknown()),
  },
  { description: 'A W3C BitstringStatusListCredential signed by the issuer (eddsa-rdfc-2022)' },
);
export const RevokeBody = Type.Object(
  {
    reason: Type.String({
      minLength: 3,
      maxLength: 200,
      pattern: '\\S',
      description: 'Why (kept with the credential, sent in credential.revoked)',
    }),
  },
  { additionalProperties: false },
);
export const Revocation = Type.Object({
  vcId: Type.String(),
  status: Type.Literal('revoked'),
  revokedAt: DateTime,
  reason: Type.String(),
});
export const JsonLdContext = Type.Object({ '@context': Type.Record(Type.String(), Type.Unknown()) });
