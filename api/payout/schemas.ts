import { Type } from '@sinclair/typebox';
import { DateTime, pageMembersSnake, pageQuery } from '../common/schemas';
import { stepUpFields } from '../passkeys/schemas';

/** What a payout's approval names (the PIN's `request`, a passkey challenge's): the amount and the account. */
export const PAYOUT_APPROVAL = '{"action":"payout","amount":"<amount>","bank_account_id":"<bank_account_id>"}';

export const PayoutBody = Type.Object(
  {
    bank_account_id: Type.String({
      pattern: '^ba_[0-9a-f-]{36}$',
      description:
        'One of your verified accounts (GET /api/v1/bank/accounts): the money goes nowhere else, and the bank is asked again whether it is held in your verified name',
    }),
    amount: Type.String({
      pattern: '^[1-9][0-9]{0,11}$',
      description: 'Whole won, as a decimal string without separators, e.g. "20000"',
    }),
    currency: Type.Literal('KRW'),
    ...stepUpFields(PAYOUT_APPROVAL),
  },
  { additionalProperties: false },
);
export const PayoutAccepted = Type.Object({
  payout_id: Type.String(),
  status: Type.Union(
    ['processing', 'completed', 'failed', 'needs_review'].map((s) => Type.Literal(s)),
    { description: 'processing; a retry with the same Idempotency-Key answers what the payout has come to since' },
  ),
  balance: Type.String({ description: 'What is left of the KRW balance, e.g. "30000"' }),
});
export const PayoutParams = Type.Object({ payoutId: Type.String({ pattern: '^po_[0-9a-f-]{36}$' }) });
export const PayoutView = Type.Object({
  payout_id: Type.String(),
  status: Type.Union(
    ['processing', 'completed', 'failed', 'needs_review'].map((s) => Type.Literal(s)),
    {
      description:
        'processing: the bank is asked (or asked about); completed: deposited into your account; failed: the bank refused it and the amount is back in the balance (`failure_reason`, `failure_code`); needs_review: the bank has not said what became of it, and an operator looks (it is never sent twice, and nothing is given back before the bank says)',
    },
  ),
  amount: Type.String({ description: 'e.g. "20,000 KRW"' }),
  currency: Type.String(),
  bank_account_id: Type.String(),
  bank_name: Type.String(),
  account_no: Type.String({ description: 'masked' }),
  purpose: Type.Union([Type.Literal('request'), Type.Literal('closure')], {
    description: 'request: you asked for it; closure: the balance an account closure pays back',
  }),
  failure_reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'e.g. account_closed, holder_mismatch, institution_daily_limit (the service’s own deposit limit at the open banking centre for the day: try tomorrow), institution_per_transfer_limit, institution_monthly_limit',
  }),
  failure_code: Type.Union([Type.String(), Type.Null()], {
    description: "The bank's own code, e.g. A0101 or 413",
  }),
  created_at: DateTime,
  completed_at: Type.Union([DateTime, Type.Null()]),
});
export const PayoutQuery = Type.Object(pageQuery({ default: 20, maximum: 100 }), { additionalProperties: false });
export const PayoutList = Type.Object({ payouts: Type.Array(PayoutView), ...pageMembersSnake });

export const PayoutDecisionBody = Type.Object(
  {
    action: Type.Union([Type.Literal('resend'), Type.Literal('reverse')], {
      description:
        'resend: send the deposit again under a new bank_tran_id; reverse: give the amount back to the balance. Taken only if the centre, asked again, still has no record of the send',
    }),
    reason: Type.String({
      minLength: 3,
      maxLength: 200,
      pattern: '\\S',
      description: "The operator's reason, with the centre's answer",
    }),
  },
  { additionalProperties: false },
);
export const PayoutDecisionAccepted = Type.Object({
  payout_id: Type.String(),
  decision: Type.String(),
  signalled: Type.Boolean(),
});
