import { defineEntity, type InferEntity, type Opt } from '@mikro-orm/core';
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
    /**
     * The address in lower case, kept by the database (a generated column): an inbound Travel Rule inquiry finds an
     * account by it through its index, whatever the case of the address it names.
     */
    addressLower: p.string().$type<Opt<string>>().length(42).generated('(lower(address)) stored').index(),
    ownerAddress: p.string().length(42),
    status: p.enum(['counterfactual', 'deployed'] as const),
    deployTxHash: p.string().length(66).nullable(),
    deployedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type SmartAccount = InferEntity<typeof SmartAccountEntity>;
