import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * Won paid from the user's balance to one of their own verified bank accounts, by the payout-<payoutId> workflow: a
 * payout the person asked for (POST /api/v1/payouts) or the balance a closure pays back (POST /v1/account/close).
 * The amount leaves the balance when the payout is accepted (ledger journal `payout:<id>`, into payouts in transit).
 */
export const PayoutEntity = defineEntity({
  name: 'Payout',
  tableName: 'payouts',
  indexes: [{ properties: ['userId', 'createdAt'] }],
  properties: (p) => ({
    payoutId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankAccountId: p.string().length(64),
    bankCode: p.string().length(3),
    /** Minor units of `currency` (KRW: whole won). */
    amount: p.bigint('bigint'),
    currency: p.string().length(3),
    /** `request`: the person asked for it; `closure`: the balance an account closure pays back. */
    purpose: p.enum(['request', 'closure'] as const),
    /**
     * processing: the bank is asked (or asked about); completed: the money arrived (settled against bank clearing);
     * failed: the bank refused it, the amount is back in the balance; needs_review: the bank answered something
     * undocumented, or has no record of the send past BANK_NOT_RECEIVED_AFTER_SECONDS: an operator decides (never sent
     * again on its own).
     */
    status: p.enum(['processing', 'completed', 'failed', 'needs_review'] as const),
    /** The bank's view: requested (the bank may have been asked), pending, completed, rejected, unknown, not_received. */
    bankStatus: p.string().length(16).nullable(),
    failureReason: p.string().length(255).nullable(),
    /** The bank's own code of a refusal (rsp_code or bank_rsp_code), shown with the reason. */
    failureCode: p.string().length(16).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
    completedAt: p.datetime().nullable(),
  }),
});
export type Payout = InferEntity<typeof PayoutEntity>;
