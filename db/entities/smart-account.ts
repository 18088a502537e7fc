import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A user's ERC-4337 account on one network: known (counterfactual) from prepare, deployed by a deploy job. */
export const SmartAccountEntity = defineEntity({
  name: 'SmartAccount',
  tableName: 'smart_accounts',
  uniques: [{ properties: ['userId', 'networkId'] }],
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    userId: p.string().length(64),
    networkId: p.string().length(32),
    address: p.string().length(42),
    ownerAddress: p.string().length(42),
    status: p.enum(['counterfactual', 'deployed'] as const),
    deployTxHash: p.string().length(66).nullable(),
    deployedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type SmartAccount = InferEntity<typeof SmartAccountEntity>;
