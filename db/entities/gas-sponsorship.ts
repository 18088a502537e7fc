import { defineEntity, type EntityManager, type InferEntity } from '@mikro-orm/core';
import { wonValue } from '../../platform/money';
import { clock } from '../../platform/clock';
import { HotStatement } from '../sql';

/**
 * Gas the service sponsored for one user operation through its paymaster. Counted against the user's daily budget
 * (the Korean day it was signed in) at its most until the chain says what it cost: `reserved` (max cost), then
 * `settled` (the UserOperationEvent's actualGasCost) or `released` (expired without landing: it can never land).
 */
export const GasSponsorshipEntity = defineEntity({
  name: 'GasSponsorship',
  tableName: 'gas_sponsorships',
  properties: (p) => ({
    /** Business id of what was sponsored: `transfer:<transferId>`, `<operation id>:<networkId>`. */
    sponsorshipId: p.string().primary().length(128),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    userOpHash: p.string().length(66),
    paymasterAndData: p.text(),
    /** Wei, decimal strings: the most the EntryPoint can take from the paymaster, and what it took. */
    maxCostWei: p.string().length(80),
    actualCostWei: p.string().length(80).nullable(),
    /** The coin's price in won ×100 when it was sponsored: the budget counts every cost at this rate. */
    priceKrwCenti: p.bigint('bigint'),
    status: p.enum(['reserved', 'settled', 'released'] as const),
    /** Block the search for its UserOperationEvent starts at. */
    fromBlock: p.integer(),
    validUntil: p.datetime(),
    txHash: p.string().length(66).nullable(),
    createdAt: p
      .datetime()
      .onCreate(() => clock.date())
      .index(),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type GasSponsorship = InferEntity<typeof GasSponsorshipEntity>;

/** The won a sponsorship counts for: its actual cost once settled, nothing once released, else its most. */
export function sponsorshipKrw(
  s: Pick<GasSponsorship, 'status' | 'maxCostWei' | 'actualCostWei' | 'priceKrwCenti'>,
): bigint {
  if (s.status === 'released') return 0n;
  return wonValue(BigInt(s.status === 'settled' ? (s.actualCostWei ?? '0') : s.maxCostWei), 18, s.priceKrwCenti);
}

/** The day's sponsorships of a user, as much of them as their won needs: prepared on PostgreSQL (every transfer asks, twice). */
const SPONSORED = new HotStatement<{
  status: GasSponsorship['status'];
  max_cost_wei: string;
  actual_cost_wei: string | null;
  price_krw_centi: string | number;
}>(
  'gas-sponsored-between',
  'select status, max_cost_wei, actual_cost_wei, price_krw_centi from gas_sponsorships ' +
    'where user_id = ? and created_at >= ? and created_at < ?',
);

/** Won of gas sponsored for a user in [from, to): what the daily budget is checked against. */
export async function gasUsedKrw(em: EntityManager, userId: string, day: { from: Date; to: Date }): Promise<bigint> {
  const rows = await SPONSORED.rows(em, [userId, day.from, day.to]);
  return rows.reduce(
    (sum, row) =>
      sum +
      sponsorshipKrw({
        status: row.status,
        maxCostWei: row.max_cost_wei,
        actualCostWei: row.actual_cost_wei,
        priceKrwCenti: BigInt(row.price_krw_centi),
      }),
    0n,
  );
}
