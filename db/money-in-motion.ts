import type { EntityManager } from '@mikro-orm/core';
import { ChargeEntity, PayoutEntity, TransferEntity } from './entities';
import type { ClosureBlocker } from '../workflows/messages';

/**
 * What is moving money for a user and stops a closure: a charge, a payout (in doubt it may still pay, or come back)
 * or a transfer not final. Read by the API before a closure pays the balance out, and by the worker's closeAccount in
 * its closing transaction (with `em` that transaction's), so both refuse on the same rules.
 */
export async function moneyInMotion(em: EntityManager, userId: string): Promise<ClosureBlocker[]> {
  const blockers: ClosureBlocker[] = [];
  const charges = await em.count(ChargeEntity, { userId, status: { $in: ['processing', 'needs_review'] } });
  if (charges) blockers.push({ reason: 'charge-in-progress', detail: `${charges} charge(s) not finished` });
  const payouts = await em.count(PayoutEntity, { userId, status: { $in: ['processing', 'needs_review'] } });
  if (payouts) blockers.push({ reason: 'payout-in-progress', detail: `${payouts} payout(s) not finished` });
  const transfers = await em.count(TransferEntity, {
    userId,
    status: { $in: ['held_for_review', 'processing', 'submitted', 'confirmed'] },
  });
  if (transfers) blockers.push({ reason: 'transfer-in-progress', detail: `${transfers} transfer(s) not final` });
  return blockers;
}
