import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

export const SendWonBody = Type.Object(
  {
    bank_code: Type.String({
      pattern: '^\\d{3}$',
      description: 'Korean bank code, e.g. 004 (KB국민은행), 088 (신한은행), 090 (카카오뱅크)',
    }),
    account_no: Type.String({ pattern: '^\\d[\\d-]{8,18}\\d$', description: 'Account number; dashes are ignored' }),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
export const SendWonResponse = Type.Object({
  sent: Type.Boolean(),
  remark: Type.String({
    description:
      'The deposit text with the code masked (e.g. "월렛****"): the user reads the 4 digits in their bank app',
  }),
  verification_id: Type.String(),
  expires_at: DateTime,
});
export const ConfirmWonBody = Type.Object(
  {
    verification_id: Type.String({ pattern: '^bv_[0-9a-f-]{36}$' }),
    code: Type.String({ pattern: '^\\d{4}$', description: 'The 4 digits after "월렛" in the 1 KRW deposit text' }),
  },
  { additionalProperties: false },
);
export const BankAccountView = Type.Object({
  bank_account_id: Type.String(),
  bank_code: Type.String(),
  bank_name: Type.String(),
  account_no: Type.String({ description: 'masked' }),
  currency: Type.String(),
  connected_at: DateTime,
});
export const ConfirmWonResponse = Type.Object({ verified: Type.Boolean(), bank_account: BankAccountView });
export const BankAccountList = Type.Object({ accounts: Type.Array(BankAccountView) });

export const ConsentStartBody = Type.Object(
  {
    return_uri: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          "Where the person goes back to once the bank's consent is done (one of BANK_CONSENT_RETURN_URIS), with consent_id and status in its query; unset: the return answers JSON",
      }),
    ),
  },
  { additionalProperties: false },
);
export const ConsentStarted = Type.Object({
  consent_id: Type.String(),
  authorization_url: Type.String({
    description: "Open it in a browser: the open banking centre's screens, where the person consents to withdrawals",
  }),
  expires_at: { ...DateTime, description: 'The person must come back (the return route) before this' },
});
export const ConsentedAccountView = Type.Object({
  bank_code: Type.String(),
  bank_name: Type.String(),
  account_no: Type.String({ description: 'masked, as the bank lists it' }),
  withdrawals_agreed: Type.Boolean(),
  bank_account_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The connected account (send-won) it is, if any: a charge source once both hold',
  }),
});
export const ConsentView = Type.Object({
  consent_id: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union(
    ['none', 'pending', 'active', 'failed', 'expired', 'replaced'].map((s) => Type.Literal(s)),
    { description: 'none: no consent asked for yet; active: withdrawals allowed from the accounts below' },
  ),
  accounts: Type.Array(ConsentedAccountView),
  failure: Type.Union([Type.String(), Type.Null()]),
});
/** RFC 6749's VSCHAR: printable ASCII. */
const OAUTH_CHARS = '^[\\x20-\\x7E]*$';
/** Any text without control characters (a bank's message may be Korean). */
const PRINTABLE = '^[^\\x00-\\x1F\\x7F]*$';

export const ConsentReturnQuery = Type.Object(
  {
    // OAuth 2.0 (RFC 6749) keeps state, code, scope and error to printable ASCII; every limit together keeps the
    // longest valid return address, percent-encoded, within what the HTTP server reads (16 KiB of request line).
    state: Type.String({ minLength: 1, maxLength: 256, pattern: OAUTH_CHARS }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, pattern: OAUTH_CHARS })),
    scope: Type.Optional(Type.String({ maxLength: 256, pattern: OAUTH_CHARS })),
    client_info: Type.Optional(Type.String({ maxLength: 128, pattern: PRINTABLE })),
    error: Type.Optional(Type.String({ maxLength: 256, pattern: OAUTH_CHARS })),
    error_description: Type.Optional(Type.String({ maxLength: 300, pattern: PRINTABLE })),
  },
  // The bank's redirect may carry parameters of its own: they are not ours to refuse.
  { additionalProperties: true },
);
