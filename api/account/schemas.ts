import { EkycMultipartBody, EkycMultipartFields } from '../registration/schemas';
import { Type } from '@sinclair/typebox';
import { DateTime, NonEmpty } from '../common/schemas';
import { proofFields, stepUpFields } from '../passkeys/schemas';

export const ProfileResponse = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  maskedPhone: Type.String(),
  email: Type.String({
    description:
      'The verified email address; an empty string until the user confirms one (POST /v1/account/email, then /confirm)',
  }),
  emailVerified: Type.Boolean({ description: 'Whether `email` holds a verified address' }),
  emailVerifiedAt: Type.Union([DateTime, Type.Null()], { description: 'When the address was confirmed' }),
  status: Type.String(),
  walletType: Type.String(),
  registeredAt: DateTime,
  twoFactorMethods: Type.Array(Type.String()),
});

export const BasicInfoBody = Type.Object(
  {
    full_name: NonEmpty({ maxLength: 100, description: 'Full legal name' }),
    eng_surname: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z][A-Za-z '\\-]*$" }),
    eng_name: Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z][A-Za-z '\\-]*$" }),
    nationality: Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2 country code' }),
    kyc_session_id: Type.Optional(NonEmpty({ maxLength: 128 })),
  },
  { additionalProperties: false },
);
export const BasicInfoResponse = Type.Object({
  step: Type.String(),
  completed: Type.Boolean(),
  vcId: Type.String({ description: 'The BasicInfoCredential attesting these details (GET /v1/did/vcs/{vcId})' }),
});

export const EmailBody = Type.Object(
  {
    email: Type.String({
      format: 'email',
      minLength: 3,
      maxLength: 254,
      description: 'The address to verify; a 6-digit code is mailed to it',
    }),
    ...proofFields('{"action":"email_change","email":"<email as sent>"}', ['pin', 'passkey', 'identity']),
    // (an identity check for it is proved with the ID card)
  },
  { additionalProperties: false },
);
export const EmailVerificationStarted = Type.Object({
  verificationId: Type.String({ description: 'Send it back with the code (POST /v1/account/email/confirm)' }),
  sentTo: Type.String({ description: 'The address, masked' }),
  expiresAt: DateTime,
});
export const EmailConfirmBody = Type.Object(
  {
    verificationId: Type.String({ pattern: '^ev_[0-9a-f-]{36}$' }),
    code: Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the mail' }),
  },
  { additionalProperties: false },
);
export const EmailUndoBody = Type.Object(
  {
    changeId: Type.String({ pattern: '^emc_[0-9a-f-]{36}$', description: 'From the mail to the replaced address' }),
    code: Type.String({
      pattern: '^[A-Za-z0-9_-]{43}$',
      description: 'The code from the mail to the replaced address',
    }),
  },
  { additionalProperties: false },
);
export const EmailChangeUndone = Type.Object({
  undone: Type.Literal(true),
  email: Type.String({ description: 'The restored address, masked' }),
});
export const EmailConfirmed = Type.Object({
  verified: Type.Boolean(),
  email: Type.String(),
  emailVerifiedAt: DateTime,
});

export const CloseAccountBody = Type.Object(
  {
    confirm: Type.Literal('CLOSE', { description: 'Spelled out, so that no client closes an account by accident' }),
    bank_account_id: Type.Optional(
      Type.String({
        pattern: '^ba_[0-9a-f-]{36}$',
        description:
          'With a won balance: the verified account of yours (GET /api/v1/bank/accounts) it is paid back to before the account closes; bound into the approval',
      }),
    ),
    ...stepUpFields(
      '{"action":"account_close"} (with a balance: {"action":"account_close","bank_account_id":"<bank_account_id>"})',
    ),
  },
  { additionalProperties: false },
);
export const AccountClosing = Type.Object({
  status: Type.Literal('closing'),
  payoutId: Type.String({ description: 'The payout of the balance: GET /api/v1/payouts/{payoutId}' }),
  amount: Type.String({ description: 'The balance paid back, e.g. "30,000 KRW"' }),
});
export const AccountClosed = Type.Object({
  status: Type.Literal('closed'),
  closedAt: DateTime,
  revokedCredentials: Type.Array(Type.String(), {
    description: 'The credentials revoked by the closure (account-closed)',
  }),
});

const KYC_RENEWAL_PROOFS = proofFields('{"action":"kyc_renew"}', ['pin', 'identity']);
export const KycRenewalFields = Type.Object(
  { idCardType: EkycMultipartFields.properties.idCardType, ...KYC_RENEWAL_PROOFS },
  { additionalProperties: false },
);
export const KycRenewalForm = Type.Object(
  { ...EkycMultipartBody.properties, ...KYC_RENEWAL_PROOFS },
  { additionalProperties: false },
);
export const KycRenewed = Type.Object({
  verified: Type.Boolean({ description: 'Whether the ID card shows the identity verified at registration' }),
  ocrResult: Type.Object({ name: Type.String(), birthDate: Type.String(), verified: Type.Boolean() }),
  vcId: Type.Union([Type.String(), Type.Null()], {
    description: 'The new KycCredential (the earlier ones are now revoked: superseded); null when not verified',
  }),
});
