/**
 * The double-entry ledger's one writer: postJournal. It sits below the layers (db/) because both sides post: the
 * worker's activities (a charge credited, a payout settled or reversed) and the API, whose payout acceptance moves the
 * amount out of the balance in the same request, so that two payouts at once can never spend the same won (the
 * balance guard refuses the second, and the person is told at once). No money moves at a bank from here.
 */
import { raw, UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { LedgerAccountEntity, LedgerEntryEntity, LedgerJournalEntity, type LedgerAccount } from './entities';
import { clock } from '../platform/clock';

export interface LedgerLeg {
  accountId: string;
  kind: LedgerAccount['kind'];
  userId?: string | null;
  currency: string;
  /** Signed minor units: what the account gains (+) or gives (-). */
  amount: bigint;
}

export interface JournalInput {
  journalId: string;
  kind: string;
  userId: string | null;
  reference: string;
  legs: LedgerLeg[];
}

export class InsufficientBalance extends Error {
  constructor(readonly accountId: string) {
    super(`ledger account ${accountId} would go negative`);
    this.name = 'InsufficientBalance';
  }
}

export const userBalanceAccount = (userId: string, currency: string): LedgerLeg['accountId'] =>
  `user:${userId}:${currency}`;
export const bankClearingAccount = (bankCode: string, currency: string): LedgerLeg['accountId'] =>
  `clearing:bank:${bankCode}:${currency}`;
/** Won taken from balances for payouts the bank has not settled yet (one account per currency). */
export const payoutsInTransitAccount = (currency: string): LedgerLeg['accountId'] => `transit:payouts:${currency}`;

/**
 * Posts a journal exactly once: in one transaction it inserts the journal (its id is the business event's, so a
 * second posting is refused by the primary key and answered false), the entries, and the balance changes. Legs must
 * balance per currency; a user balance may never go negative (checked by the UPDATE itself, so concurrent postings
 * cannot overdraw).
 */
export async function postJournal(em: EntityManager, input: JournalInput): Promise<boolean> {
  const totals = new Map<string, bigint>();
  for (const leg of input.legs) {
    if (leg.amount === 0n) throw new Error(`ledger leg ${leg.accountId} has no amount`);
    totals.set(leg.currency, (totals.get(leg.currency) ?? 0n) + leg.amount);
  }
  if ([...totals.values()].some((total) => total !== 0n))
    throw new Error(`journal ${input.journalId} does not balance`);
  try {
    await em.transactional(async (tx) => {
      await tx.insert(LedgerJournalEntity, {
        journalId: input.journalId,
        kind: input.kind,
        userId: input.userId,
        reference: input.reference,
        postedAt: clock.date(),
      });
      for (const leg of input.legs) {
        await tx.upsert(
          LedgerAccountEntity,
          {
            accountId: leg.accountId,
            kind: leg.kind,
            userId: leg.userId ?? null,
            currency: leg.currency,
            balance: 0n,
            updatedAt: clock.date(),
          },
          { onConflictAction: 'ignore' },
        );
        await tx.insert(LedgerEntryEntity, {
          journalId: input.journalId,
          accountId: leg.accountId,
          amount: leg.amount,
          currency: leg.currency,
          postedAt: clock.date(),
        });
        const guard = leg.kind === 'user_balance' && leg.amount < 0n ? { balance: { $gte: -leg.amount } } : {};
        const changed = await tx.nativeUpdate(
          LedgerAccountEntity,
          { accountId: leg.accountId, ...guard },
          {
            balance: raw('balance + ?', [leg.amount]),
            updatedAt: clock.date(),
          },
        );
        if (changed !== 1) throw new InsufficientBalance(leg.accountId);
      }
    });
    return true;
  } catch (error) {
    // Inside a caller's transaction the posting above was a savepoint, rolled back alone: the journal is read on the
    // caller's connection. A fork would wait for a second connection, which SQLite's pool of one never frees while
    // that transaction holds it (a retried payout's extra send then timed out instead of being answered as posted).
    const reader = em.isInTransaction() ? em : em.fork();
    if (
      error instanceof UniqueConstraintViolationException &&
      (await reader.count(LedgerJournalEntity, { journalId: input.journalId })) === 1
    )
      return false;
    throw error;
  }
}
