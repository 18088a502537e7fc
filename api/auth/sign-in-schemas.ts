import { Type } from '@sinclair/typebox';
import { DateTime, IdempotencyKeyHeader, NonEmpty, UuidV4 } from '../common/schemas';
import { PasskeyAssertion } from '../passkeys/schemas';
import { ID_CARD_TYPES, PassTokenOnlyHeaders } from '../registration/schemas';

export const SignInParams = Type.Object({
  signInId: Type.String({ pattern: '^sgn_[0-9a-f]{24}$', description: 'Sign-in id' }),
});
const Proofs = Type.Array(Type.Union([Type.Literal('passkey'), Type.Literal('id_card')]), {
  description:
    'The second proofs this account can give: a passkey it registered (synced passkeys move with the person), and the ID card verified at registration',
});

export const StartSignInHeaders = Type.Object({
  'idempotency-key': IdempotencyKeyHeader,
  'x-device-id': { ...UuidV4, description: 'UUIDv4 the app generated at its first launch on this (new) device' },
});
export const StartSignInBody = Type.Object(
  {
    passToken: NonEmpty({
      maxLength: 512,
      description: 'From identity verification on this device (the same person as the account)',
    }),
    deviceLabel: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'What to call this device in the list of devices, e.g. "Galaxy S25"',
      }),
    ),
  },
  { additionalProperties: false },
);
export const StartSignInResponse = Type.Object({
  signInId: Type.String(),
  status: Type.Literal('in_progress'),
  proofs: Proofs,
  passTokenExpiresAt: DateTime,
});
export const SignInStatusResponse = Type.Object({
  signInId: Type.String(),
  status: Type.String({ description: 'in_progress | completed | failed | expired' }),
  method: Type.Union([Type.Literal('passkey'), Type.Literal('id_card'), Type.Null()]),
  passTokenExpiresAt: Type.Union([DateTime, Type.Null()]),
  tokensIssued: Type.Boolean(),
});
export const PassTokenHeaders = PassTokenOnlyHeaders;
export const PassTokenIdempotentHeaders = Type.Object({
  'idempotency-key': IdempotencyKeyHeader,
  ...PassTokenOnlyHeaders.properties,
});
export const PasskeyProofBody = Type.Object({ passkeyAssertion: PasskeyAssertion }, { additionalProperties: false });
const IdCardType = Type.Union(
  ID_CARD_TYPES.map((t) => Type.Literal(t)),
  { description: 'Kind of identity document: the kind verified at registration' },
);
export const IdCardProofFields = Type.Object({ idCardType: IdCardType }, { additionalProperties: false });
export const IdCardProofMultipart = Type.Object(
  {
    idCardImage: Type.String({
      format: 'binary',
      description: 'JPEG or PNG image of the ID card verified at registration (its number and issue date readable)',
    }),
    idCardType: IdCardType,
  },
  { additionalProperties: false },
);
export const SignInProofResponse = Type.Object({
  signInId: Type.String(),
  status: Type.Literal('completed'),
  method: Type.Union([Type.Literal('passkey'), Type.Literal('id_card')]),
});
export const PasskeyOptionsResponse = Type.Object({
  challengeId: Type.String({ description: 'Send back as passkeyAssertion.challengeId; single use, 5 minutes' }),
  publicKey: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get()',
    },
  ),
});
