import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A key rotation over several networks, authorized by one owner signature over a merkle root. */
export const KeyRotationTaskEntity = defineEntity({
  name: 'KeyRotationTask',
  tableName: 'key_rotation_tasks',
  properties: (p) => ({
    taskId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    oldOwnerAddress: p.string().length(42),
    newOwnerAddress: p.string().length(42),
    root: p.string().length(66),
    rootSignature: p.string().length(140).nullable(),
    status: p.enum(['prepared', 'processing', 'completed', 'partial_failure'] as const),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type KeyRotationTask = InferEntity<typeof KeyRotationTaskEntity>;

/** One network's part of a key rotation: its user operation, merkle proof and on-chain outcome. */
export const KeyRotationNetworkEntity = defineEntity({
  name: 'KeyRotationNetwork',
  tableName: 'key_rotation_networks',
  uniques: [{ properties: ['taskId', 'networkId'] }],
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    taskId: p.string().length(64).index(),
    networkId: p.string().length(32),
    accountAddress: p.string().length(42),
    userOperation: p.json<Record<string, string>>(),
    userOpHash: p.string().length(66),
    proof: p.json<string[]>(),
    /** `stalled`: handed to the bundler, but the chain asks more than its fee cap; a new rotation of this network replaces it. */
    status: p.enum(['prepared', 'processing', 'stalled', 'completed', 'failed'] as const),
    txHash: p.string().length(66).nullable(),
    error: p.text().nullable(),
    retryable: p.boolean().default(false),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type KeyRotationNetwork = InferEntity<typeof KeyRotationNetworkEntity>;
