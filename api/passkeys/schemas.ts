import { Type } from '@sinclair/typebox';
import { DateTime, pageMembers, pageQuery } from '../common/schemas';

const Base64Url = (description: string, maxLength = 4096) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, description });

export const RegistrationOptionsResponse = Type.Object({
  challengeId: Type.String({ description: 'Send back with the registration response; single use' }),
  publicKey: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'PublicKeyCredentialCreationOptionsJSON for navigator.credentials.create()',
    },
  ),
});

/** The WebAuthn RegistrationResponseJSON a browser or platform authenticator produces. */
export const RegistrationCredential = Type.Object(
  {
    id: Base64Url('credential id', 1400),
    rawId: Base64Url('credential id', 1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url('client data JSON', 8192),
        attestationObject: Base64Url('attestation object (CBOR)', 16384),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: Type.Object({}, { additionalProperties: true }),
    authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  },
  { additionalProperties: true },
);

/** The WebAuthn AuthenticationResponseJSON of navigator.credentials.get(). */
export const AuthenticationCredential = Type.Object(
  {
    id: Base64Url('credential id', 1400),
    rawId: Base64Url('credential id', 1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: Base64Url('client data JSON', 8192),
        authenticatorData: Base64Url('authenticator data', 8192),
        signature: Base64Url('signature', 8192),
        userHandle: Type.Optional(Base64Url('user handle', 1024)),
      },
      { additionalProperties: true },
    ),
    clientExtensionResults: Type.Object({}, { additionalProperties: true }),
    authenticatorAttachment: Type.Optional(Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')])),
  },
  { additionalProperties: true },
);

/** What a passkey approval of one request needs (the challenge from POST /v1/auth/passkeys/approvals/options). */
export const PasskeyAssertion = Type.Object(
  {
    challengeId: Type.String({
      pattern: '^wsc_[0-9a-f-]{36}$',
      description: 'From POST /v1/auth/passkeys/approvals/options; single use',
    }),
    credential: AuthenticationCredential,
  },
  { additionalProperties: false },
);

const EncryptedPin = (approves: string) =>
  Type.String({
    pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$',
    maxLength: 2048,
    description: `The PIN as a JWE to /api/v1/pin/public-key approving this request once: {"pin","iat","jti","request":${approves}}`,
  });

/** A step-up identity check (POST /v1/auth/identity-checks) approving this request. */
export const IdentityCheckId = (approves: string) =>
  Type.String({
    pattern: '^sgn_[0-9a-f]{24}$',
    description: `A verified identity check (POST /v1/auth/identity-checks) whose request is ${approves}; usable once, within STEP_UP_IDENTITY_SECONDS`,
  });

/**
 * The proof fields of a step-up (api/http/step-up.ts): the PIN bound to this request, an assertion of one of the
 * person's passkeys over a challenge issued for it, or a fresh identity check for it. Exactly one, of the kinds the
 * route's policy takes.
 */
export const proofFields = (approves: string, kinds: Array<'pin' | 'passkey' | 'identity'>) => ({
  ...(kinds.includes('pin') ? { pin: Type.Optional(EncryptedPin(approves)) } : {}),
  ...(kinds.includes('passkey') ? { passkeyAssertion: Type.Optional(PasskeyAssertion) } : {}),
  ...(kinds.includes('identity') ? { identityCheckId: Type.Optional(IdentityCheckId(approves)) } : {}),
});

/** The PIN or a passkey, bound to this request: the step-up of most changes to how the account is protected. */
export const stepUpFields = (approves: string) => ({
  pin: Type.Optional(EncryptedPin(approves)),
  passkeyAssertion: Type.Optional(PasskeyAssertion),
});

export const RegisterPasskeyBody = Type.Object(
  {
    challengeId: Type.String({ pattern: '^wac_[0-9a-f-]{36}$' }),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'A label the user chooses, e.g. "iPhone"' }),
    ),
    credential: RegistrationCredential,
    ...stepUpFields('{"action":"passkey_enrol","challenge_id":"<challengeId>"}'),
  },
  { additionalProperties: false },
);

export const PasskeyView = Type.Object({
  passkeyId: Type.String(),
  name: Type.String(),
  deviceType: Type.String({ description: 'singleDevice | multiDevice' }),
  backedUp: Type.Boolean(),
  createdAt: DateTime,
  lastUsedAt: Type.Union([DateTime, Type.Null()]),
  heldUntil: Type.Union([DateTime, Type.Null()], {
    description:
      "Until then (NEW_PASSKEY_HOLD_SECONDS after it was added) it cannot waive a recipient's cooling-off or approve a transfer above the passkey threshold; null once past",
  }),
});
export const PasskeyList = Type.Object({ items: Type.Array(PasskeyView), ...pageMembers });
export const PasskeyQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);

/** A request a step-up approves, as its route's policy binds it: `action` and the ids it acts on. */
export const StepUpRequestSchema = Type.Object(
  { action: Type.String({ pattern: '^[a-z_]{1,40}$', description: 'The action, e.g. passkey_enrol' }) },
  {
    additionalProperties: Type.String({ maxLength: 256 }),
    maxProperties: 8,
    description:
      'The request to approve, exactly as its PIN would name it: {"action":"passkey_enrol","challenge_id":"wac_…"}, {"action":"account_close"}, {"action":"device_revoke","device_id":"…"}, … (docs/security.md lists every action and what it binds)',
  },
);

export const ApprovalOptionsBody = Type.Object({ request: StepUpRequestSchema }, { additionalProperties: false });
export const ApprovalOptionsResponse = Type.Object({
  challengeId: Type.String({
    description: 'Send back as passkeyAssertion.challengeId with the request; single use, 5 minutes',
  }),
  publicKey: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get()',
    },
  ),
});

export const RemovePasskeyBody = Type.Object(stepUpFields('{"action":"passkey_remove","passkey_id":"<passkeyId>"}'), {
  additionalProperties: false,
});
export const PasskeyRemoved = Type.Object({ passkeyId: Type.String(), removed: Type.Literal(true) });
export const PasskeyParams = Type.Object({ passkeyId: Type.String({ pattern: '^pk_[0-9a-f-]{36}$' }) });
