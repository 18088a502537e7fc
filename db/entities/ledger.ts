import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * Double-entry ledger. A journal is one business event (a charge credited, a refund), posted once (its id is the
 * event's); its entries sum to zero per currency. Account balances are kept in the same transaction as the entries.
 */
export const LedgerAccountEntity = defineEntity({
  name: 'LedgerAccount',
  tableName: 'ledger_accounts',
  properties: (p) => ({
    /** e.g. user:<userId>:KRW, clearing:bank:<bankCode>:KRW, transit:payouts:KRW */
    accountId: p.string().primary().length(128),
    userId: p.string().length(64).nullable().index(),
    /**
     * user_balance: what the service holds for a user (never negative); bank_clearing: what moved at a bank's side;
     * payouts_in_transit: won taken from balances for payouts the bank has not settled yet.
     */
    kind: p.enum(['user_balance', 'bank_clearing', 'payouts_in_transit'] as const),
    currency: p.string().length(8),
    balance: p.bigint('bigint').default(0),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type LedgerAccount = InferEntity<typeof LedgerAccountEntity>;

export const LedgerJournalEntity = defineEntity({
  name: 'LedgerJournal',
  tableName: 'ledger_journals',
  properties: (p) => ({
    journalId: p.string().primary().length(128),
    kind: p.string().length(32),
    userId: p.string().length(64).nullable().index(),
    /** The business object the journal records (a charge id). */
    reference: p.string().length(64),
    postedAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type LedgerJournal = InferEntity<typeof LedgerJournalEntity>;

export const LedgerEntryEntity = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  uniques: [{ properties: ['journalId', 'accountId'] }],
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    journalId: p.string().length(128).index(),
    accountId: p.string().length(128).index(),
    amount: p.bigint('bigint'),
    currency: p.string().length(8),
    postedAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type LedgerEntry = InferEntity<typeof LedgerEntryEntity>;
