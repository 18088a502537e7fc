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
