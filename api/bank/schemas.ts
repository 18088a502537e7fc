import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

export const SendWonBody = Type.Object({
  bank_code: Type.String({ pattern: '^\\d{3}$', description: 'Korean bank code, e.g. 004 (KB국민은행), 088 (신한은행), 090 (카카오뱅크)' }),
  account_no: Type.String({ pattern: '^\\d[\\d-]{8,18}\\d$', description: 'Account number; dashes are ignored' }),
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
}, { additionalProperties: false });
export const SendWonResponse = Type.Object({
  sent: Type.Boolean(),
  remark: Type.String({ description: 'The deposit text with the code masked (e.g. "월렛****"): the user reads the 4 digits in their bank app' }),
  verification_id: Type.String(),
  expires_at: DateTime,
});
export const ConfirmWonBody = Type.Object({
  verification_id: Type.String({ pattern: '^bv_[0-9a-f-]{36}$' }),
  code: Type.String({ pattern: '^\\d{4}$', description: 'The 4 digits after "월렛" in the 1 KRW deposit text' }),
}, { additionalProperties: false });
export const BankAccountView = Type.Object({
  bank_account_id: Type.String(), bank_code: Type.String(), bank_name: Type.String(), account_no: Type.String({ description: 'masked' }),
  currency: Type.String(), connected_at: DateTime,
});
export const ConfirmWonResponse = Type.Object({ verified: Type.Boolean(), bank_account: BankAccountView });
export const BankAccountList = Type.Object({ accounts: Type.Array(BankAccountView) });
export const WithdrawalWebhookBody = Type.Object({
  event: Type.Literal('withdrawal.settled'),
  reference: Type.String({ minLength: 1, maxLength: 64 }),
  withdrawalId: Type.String({ maxLength: 64 }),
  status: Type.Union([Type.Literal('completed'), Type.Literal('rejected')]),
  reason: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
}, { additionalProperties: true });
export const WebhookAck = Type.Object({ received: Type.Boolean() });

export const ChargeBody = Type.Object({
  source: Type.String({ minLength: 1, maxLength: 64, description: 'The source institution: a connected bank by name (KB국민은행) or code (004)' }),
  amount: Type.String({ minLength: 1, maxLength: 40, description: 'Decimal string in the currency, e.g. "10000"' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'KRW' }),
}, { additionalProperties: false });
export const ChargeAccepted = Type.Object({ charge_id: Type.String(), status: Type.String({ description: 'processing' }) });
export const ChargeParams = Type.Object({ chargeId: Type.String({ pattern: '^chg_[0-9a-f-]{36}$' }) });
export const ChargeView = Type.Object({
  charge_id: Type.String(),
  status: Type.String({ description: 'processing | completed | failed' }),
  amount: Type.String({ description: 'e.g. "10,000 KRW"' }),
  currency: Type.String(),
  source: Type.String({ description: 'bank name' }),
  failure_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  completed_at: Type.Union([DateTime, Type.Null()]),
});
export const BalanceView = Type.Object({
  balances: Type.Array(Type.Object({ currency: Type.String(), amount: Type.String({ description: 'decimal, e.g. "10000"' }), display: Type.String({ description: 'e.g. "10,000 KRW"' }) })),
});
