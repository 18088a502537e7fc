import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

export const WithdrawalWebhookBody = Type.Object(
  {
    event: Type.Literal('withdrawal.settled'),
    reference: Type.String({ minLength: 1, maxLength: 64 }),
    withdrawalId: Type.String({ maxLength: 64 }),
    status: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'completed | rejected; any other status puts the charge in review, never credits it',
    }),
    reason: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
  },
  { additionalProperties: true },
);
export const WebhookAck = Type.Object({ received: Type.Boolean() });

export const ChargeBody = Type.Object(
  {
    source: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The source institution: a connected bank by name (KB국민은행) or code (004); with two accounts at that bank, the bank_account_id of one (ba_…)',
    }),
    amount: Type.String({ minLength: 1, maxLength: 40, description: 'Decimal string in the currency, e.g. "10000"' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'KRW' }),
  },
  { additionalProperties: false },
);
export const ChargeAccepted = Type.Object({
  charge_id: Type.String(),
  status: Type.String({ description: 'processing' }),
});
export const ChargeParams = Type.Object({ chargeId: Type.String({ pattern: '^chg_[0-9a-f-]{36}$' }) });
export const ChargeView = Type.Object({
  charge_id: Type.String(),
  status: Type.String({
    description:
      'processing | completed | failed | needs_review (the bank answered something undocumented, or refused a refund; never credited, an operator is looking)',
  }),
  amount: Type.String({ description: 'e.g. "10,000 KRW"' }),
  currency: Type.String(),
  source: Type.String({ description: 'bank name' }),
  failure_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: DateTime,
  completed_at: Type.Union([DateTime, Type.Null()]),
});
export const BalanceView = Type.Object({
  balances: Type.Array(
    Type.Object({
      currency: Type.String(),
      amount: Type.String({ description: 'decimal, e.g. "10000"' }),
      display: Type.String({ description: 'e.g. "10,000 KRW"' }),
    }),
  ),
});
