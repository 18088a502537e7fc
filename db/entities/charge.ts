import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** Money pulled from a connected bank account into the user's balance, by the charge-<chargeId> workflow. */
export const ChargeEntity = defineEntity({
  name: 'Charge',
  tableName: 'charges',
  properties: (p) => ({
    chargeId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankAccountId: p.string().length(64),
    bankCode: p.string().length(3),
    /** Minor units of `currency` (KRW: whole won). */
    amount: p.bigint('bigint'),
    currency: p.string().length(3),
    /**
     * needs_review: the bank answered something undocumented (the workflow keeps asking it), or refused the refund of
     * a charge that could not be credited; `failureReason` says which. Never credited while in review.
     */
    status: p.enum(['processing', 'completed', 'failed', 'needs_review'] as const),
    /**
     * The bank's view: requested (the bank may have been asked), pending (its answer in doubt) | completed | rejected |
     * unknown, refunded (compensated), refund_refused.
     */
    bankStatus: p.string().length(16).nullable(),
    failureReason: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
    completedAt: p.datetime().nullable(),
  }),
});
export type Charge = InferEntity<typeof ChargeEntity>;
