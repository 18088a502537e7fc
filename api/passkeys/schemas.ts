import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

const Base64Url = (description: string, maxLength = 4096) => Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, description });

export const RegistrationOptionsResponse = Type.Object({
  challengeId: Type.String({ description: 'Send back with the registration response; single use' }),
  publicKey: Type.Object({}, { additionalProperties: true, description: 'PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create()' }),
});

/** The WebAuthn RegistrationResponseJSON a browser or platform authenticator produces. */
export const RegistrationCredential = Type.Object({
  id: Base64Url('credential id', 1400),
  rawId: Base64Url('credential id', 1400),
  type: Type.Literal('public-key'),
  response: Type.Object({
    clientDataJSON: Base64Url('client data JSON', 8192),
    attestationObject: Base64Url('attestation object (CBOR)', 16384),
    transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
  }, { additionalProperties: true }),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
  authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
}, { additionalProperties: true });

export const RegisterPasskeyBody = Type.Object({
  challengeId: Type.String({ pattern: '^wac_[0-9a-f-]{36}$' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A label the user chooses, e.g. "iPhone"' })),
  credential: RegistrationCredential,
}, { additionalProperties: false });

export const PasskeyView = Type.Object({
  passkeyId: Type.String(),
  name: Type.String(),
  deviceType: Type.String({ description: 'singleDevice | multiDevice' }),
  backedUp: Type.Boolean(),
  createdAt: DateTime,
  lastUsedAt: Type.Union([DateTime, Type.Null()]),
});
export const PasskeyList = Type.Object({ items: Type.Array(PasskeyView) });
