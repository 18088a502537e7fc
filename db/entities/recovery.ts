import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A recovery of the owner key (the backup is gone): asked by a signed-in device past its hold, with the new owner's
 * address; scheduled on every network where the account is deployed and recoverable, executed after the delay unless
 * the owner cancels. Workflow account-recovery-<recoveryId>.
 */
export const RecoveryEntity = defineEntity({
  name: 'Recovery',
  tableName: 'recoveries',
  properties: (p) => ({
    recoveryId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    newOwnerAddress: p.string().length(42),
    /** The device that asked. */
    deviceId: p.string().length(64),
    status: p.enum(['scheduling', 'scheduled', 'executed', 'cancelled', 'partial', 'failed'] as const),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type Recovery = InferEntity<typeof RecoveryEntity>;

/** One network of a recovery: its account, what happened on chain, and when the new owner takes over there. */
export const RecoveryNetworkEntity = defineEntity({
  name: 'RecoveryNetwork',
  tableName: 'recovery_networks',
  uniques: [{ properties: ['recoveryId', 'networkId'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    recoveryId: p.string().length(64).index(),
    networkId: p.string().length(32),
    accountAddress: p.string().length(42),
    /** not_recoverable: the account was never upgraded to the recoverable implementation (its owner can still do it). */
    status: p.enum(['pending', 'scheduled', 'executed', 'cancelled', 'not_recoverable', 'failed'] as const),
    executeAfter: p.datetime().nullable(),
    scheduleTxHash: p.string().length(66).nullable(),
    executeTxHash: p.string().length(66).nullable(),
    error: p.text().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type RecoveryNetwork = InferEntity<typeof RecoveryNetworkEntity>;
