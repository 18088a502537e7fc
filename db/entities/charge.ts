import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** Money pulled from a connected bank account into the user's balance, by the charge-<chargeId> workflow. */
export const ChargeEntity = defineEntity({
  name: 'Charge',
  tableName: 'charges',
  properties: (p) => ({
    chargeId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankAccountId: p.string().length(64),
    bankCode: p.string().length(3),
    /** Minor units of `currency` (KRW has none). */
    /** Minor units of `currency` (KRW: whole won). */
    amount: p.bigint('bigint'),
    currency: p.string().length(3),
    status: p.enum(['processing', 'completed', 'failed'] as const),
    /** The bank's view of the withdrawal: pending | completed | rejected, and for a compensated charge, refunded. */
    bankStatus: p.string().length(16).nullable(),
    failureReason: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    completedAt: p.datetime().nullable(),
  }),
});
export type Charge = InferEntity<typeof ChargeEntity>;
