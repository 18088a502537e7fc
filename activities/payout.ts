import { LockMode, type EntityManager } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import {
  BankAccountEntity,
  BankTranIdEntity,
  PayoutEntity,
  UserEntity,
  bankAccountNoAad,
  type Payout,
} from '../db/entities';
import { userIsActive } from './account';
import type { DataEncryption } from '../platform/data-encryption';
import type { BankRail, TransferOutcome } from '../integrations/bank/rail';
import type { PayoutDecision, PayoutLandings, PayoutSettlement } from '../workflows/messages';
import { transferRequester } from './bank-consent';
import {
  InsufficientBalance,
  bankClearingAccount,
  payoutsInTransitAccount,
  postJournal,
  userBalanceAccount,
} from './ledger';
import { appendEvent } from '../db/events';
import { clock } from '../platform/clock';

export interface PayoutActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankRail;
}

/** What the person's statement shows for a payout (print_content, AH(20)). */
const PAYOUT_MEMO = '월렛 출금';

/** What the bank's answer means for the payout. */
function settlementOf(outcome: TransferOutcome): PayoutSettlement {
  switch (outcome.status) {
    case 'completed':
      return { status: 'completed', reason: null };
    case 'rejected':
      return { status: 'rejected', reason: outcome.reason, code: outcome.code };
    case 'in_doubt':
      return { status: outcome.notReceived ? 'not_received' : 'pending', reason: outcome.reason };
    case 'unknown':
      // Two sends that both paid: the payout is paid (more than once), which is recorded, not left in review.
      if (outcome.movedUnder && outcome.movedUnder.length > 1)
        return { status: 'completed', reason: null, extraPaid: outcome.movedUnder.length - 1 };
      return { status: 'unknown', reason: outcome.reason };
  }
}

/** An event's data for a payout. */
const eventData = (payout: Payout) => ({
  payoutId: payout.payoutId,
  amount: payout.amount.toString(),
  currency: 'KRW' as const,
  bankAccountId: payout.bankAccountId,
  purpose: payout.purpose,
});

/** The payout under its row lock, in the transaction (on SQLite the one writer at a time is the lock). */
const locked = (tx: EntityManager, payoutId: string) =>
  tx.findOneOrFail(PayoutEntity, { payoutId }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/**
 * The bank side and the ledger side of a payout; every step is idempotent by the payout id. Its deposit is named
 * `payout:<id>` at the rail and is sent once: every later call asks the centre (transfer/result) what became of it,
 * and a send the centre never received is NOT sent again (sendAgain false) unless an operator decides so.
 */
export const createPayoutActivities = ({ orm, encryption, bank }: PayoutActivityDeps) => {
  const deposit = async (payoutId: string, sendAgain: boolean): Promise<PayoutSettlement> => {
    const em = orm.em.fork();
    const payout = await em.findOneOrFail(PayoutEntity, { payoutId });
    const account = await em.findOneOrFail(BankAccountEntity, { bankAccountId: payout.bankAccountId });
    const user = await em.findOneOrFail(UserEntity, { id: payout.userId });
    const outcome = await bank.deposit({
      reference: `payout:${payoutId}`,
      bankCode: account.bankCode,
      accountNo: encryption.openText(account.accountNoSealed, bankAccountNoAad(payout.userId)),
      // The centre checks the account is held in this name (name_check_option on): never another person's account.
      holderName: encryption.openText(user.nameSealed, user.id),
      amount: payout.amount,
      memo: PAYOUT_MEMO,
      purpose: 'payout',
      requester: transferRequester(encryption, user),
      sendAgain,
    });
    return settlementOf(outcome);
  };
  const markBank = (payoutId: string, settlement: PayoutSettlement) =>
    orm.em
      .fork()
      .nativeUpdate(
        PayoutEntity,
        { payoutId, status: { $in: ['processing', 'needs_review'] } },
        { bankStatus: settlement.status },
      );

  return {
    /**
     * The deposit into the person's account: sent the first time (the mark `requested` comes first, so a retry after a
     * crash between the send and its answer asks instead), asked about (transfer/result) every later time.
     */
    async payoutAtBank({ payoutId }: { payoutId: string }): Promise<PayoutSettlement> {
      const payout = await orm.em.fork().findOneOrFail(PayoutEntity, { payoutId });
      if (payout.status === 'completed') return { status: 'completed', reason: null };
      if (payout.status === 'failed') return { status: 'reversed', reason: payout.failureReason ?? null };
      // Never to an account suspended since the payout was accepted: the bank is not called, the amount goes back. Once
      // the bank may have been asked (the mark below comes first), a retry asks it what became of the payout instead.
      if (payout.bankStatus === null) {
        if (payout.purpose === 'request' && !(await userIsActive(orm, payout.userId)))
          return { status: 'rejected', reason: 'account_not_active', code: null };
        await orm.em.fork().nativeUpdate(PayoutEntity, { payoutId, bankStatus: null }, { bankStatus: 'requested' });
      }
      const settlement = await deposit(payoutId, false);
      await markBank(payoutId, settlement);
      return settlement;
    },

    /**
     * An operator's decision on a payout in review. The centre is asked again first: whatever it now says of the send
     * (it landed late, it was refused, it is processing) is the answer, and the decision is not taken. Only while it
     * still has no record of the send past BANK_NOT_RECEIVED_AFTER_SECONDS: `resend` sends it under a new bank_tran_id
     * (the first id is kept and asked about: two that paid are an operator's again), `reverse` gives the amount back.
     */
    async decidePayout({
      payoutId,
      action,
      bankTranId,
    }: { payoutId: string } & PayoutDecision): Promise<PayoutSettlement> {
      // A retry of a decision already taken (its answer lost) takes it no further: reversed is reversed, and a send
      // made again has a new id, so a second resend is refused below.
      const payout = await orm.em.fork().findOneOrFail(PayoutEntity, { payoutId });
      if (payout.status === 'failed') return { status: 'reversed', reason: payout.failureReason ?? null };
      const now = await deposit(payoutId, false);
      if (now.status !== 'not_received') {
        await markBank(payoutId, now);
        return now;
      }
      const current = await orm.em.fork().findOne(BankTranIdEntity, { reference: `payout:${payoutId}` });
      if (current?.bankTranId !== bankTranId) return now;
      if (action === 'resend') {
        const sent = await deposit(payoutId, true);
        await markBank(payoutId, sent);
        return sent;
      }
      // Who decided and why stay in the decision (the workflow's history), not in what the person and apps read.
      await reverse(payoutId, 'not_received_reversed', null);
      return { status: 'reversed', reason: 'not_received_reversed' };
    },

    /** The payout waits for an operator or for the bank to say something documented; nothing moves meanwhile. */
    async holdPayoutForReview({
      payoutId,
      kind,
      bankStatus,
    }: {
      payoutId: string;
      /** What the person and apps read: payout_not_received, unknown_bank_status. */
      kind: string;
      /** The bank's answer in its own words, for operators: it stays in the workflow's history, not on the payout. */
      detail: string;
      bankStatus: string;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const payout = await locked(tx, payoutId);
        if (payout.status === 'completed' || payout.status === 'failed') return;
        const entering = payout.status === 'processing';
        Object.assign(payout, {
          status: 'needs_review',
          failureReason: kind.slice(0, 255),
          bankStatus: bankStatus.slice(0, 16),
        });
        await tx.flush();
        // The event goes out when the payout enters review; a later reason only updates the row.
        if (entering)
          await appendEvent(tx, {
            type: 'payout.needs_review',
            resourceId: payoutId,
            userId: payout.userId,
            data: { ...eventData(payout), reason: payout.failureReason! },
          });
      });
    },

    /** The bank deposited it: the amount in transit is settled against bank clearing, once. */
    async settlePayout({ payoutId }: { payoutId: string }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const payout = await locked(tx, payoutId);
        if (payout.status === 'completed') return;
        // Reversed (an operator's decision whose answer was lost), yet the bank says it paid: recorded as a payment
        // made after its reversal, never left unseen.
        if (payout.status === 'failed') return recordExtra(tx, payout, 1);
        await postJournal(tx, {
          journalId: `payout-settled:${payoutId}`,
          kind: 'payout_settled',
          userId: payout.userId,
          reference: payoutId,
          legs: [
            {
              accountId: payoutsInTransitAccount(payout.currency),
              kind: 'payouts_in_transit',
              currency: payout.currency,
              amount: -payout.amount,
            },
            {
              accountId: bankClearingAccount(payout.bankCode, payout.currency),
              kind: 'bank_clearing',
              currency: payout.currency,
              amount: payout.amount,
            },
          ],
        });
        Object.assign(payout, {
          status: 'completed',
          bankStatus: 'completed',
          failureReason: null,
          completedAt: clock.date(),
        });
        await tx.flush();
        await appendEvent(tx, {
          type: 'payout.completed',
          resourceId: payoutId,
          userId: payout.userId,
          data: eventData(payout),
        });
      });
    },

    /** What the bank paid of the payout over every id it was sent under, against what the ledger says it paid. */
    async payoutLandings({ payoutId }: { payoutId: string }): Promise<PayoutLandings> {
      const payout = await orm.em.fork().findOneOrFail(PayoutEntity, { payoutId });
      const seen = await bank.depositsMade({ reference: `payout:${payoutId}`, amount: payout.amount });
      return { paid: seen.paid, expected: payout.status === 'completed' ? 1 : 0 };
    },

    /**
     * The bank paid the payout more times than the ledger says (a send that landed late: after an operator gave the
     * amount back, or beside the send they made again). Recorded once: the amount is taken from the balance again
     * (journal payout-paid-again:<id>, the history shows it as a payout), the payout completed; when the balance no longer
     * holds it, the payout is held for an operator (needs_review, `paid_again`), nothing posted.
     */
    async recordExtraPayment({ payoutId, extra }: { payoutId: string; extra: number }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => recordExtra(tx, await locked(tx, payoutId), extra));
    },

    /** The bank refused it (nothing moved): the amount goes back to the balance, once. */
    async reversePayout({ payoutId, reason, code }: { payoutId: string; reason: string; code: string | null }) {
      await reverse(payoutId, reason, code);
    },
  };

  /**
   * The bank paid the payout `extra` more times than the ledger says. Recorded once (journal payout-paid-again:<id>):
   * the amount is taken from the balance again and the payout is completed; when the balance no longer holds it, the
   * payout is held for an operator (needs_review, `paid_again`), nothing posted.
   */
  async function recordExtra(tx: EntityManager, payout: Payout, extra: number): Promise<void> {
    const amount = payout.amount * BigInt(extra);
    const reason = 'paid_again';
    try {
      const posted = await postJournal(tx, {
        journalId: `payout-paid-again:${payout.payoutId}`,
        kind: 'payout',
        userId: payout.userId,
        reference: payout.payoutId,
        legs: [
          {
            accountId: userBalanceAccount(payout.userId, payout.currency),
            kind: 'user_balance',
            userId: payout.userId,
            currency: payout.currency,
            amount: -amount,
          },
          {
            accountId: bankClearingAccount(payout.bankCode, payout.currency),
            kind: 'bank_clearing',
            currency: payout.currency,
            amount,
          },
        ],
      });
      if (!posted) return;
    } catch (error) {
      if (!(error instanceof InsufficientBalance)) throw error;
      if (payout.status === 'needs_review' && payout.failureReason === reason) return;
      Object.assign(payout, { status: 'needs_review', failureReason: reason });
      await tx.flush();
      await appendEvent(tx, {
        type: 'payout.needs_review',
        resourceId: payout.payoutId,
        userId: payout.userId,
        data: { ...eventData(payout), reason },
      });
      return;
    }
    const wasCompleted = payout.status === 'completed';
    Object.assign(payout, {
      status: 'completed',
      bankStatus: 'completed',
      failureReason: reason,
      failureCode: null,
      completedAt: payout.completedAt ?? clock.date(),
    });
    await tx.flush();
    if (!wasCompleted)
      await appendEvent(tx, {
        type: 'payout.completed',
        resourceId: payout.payoutId,
        userId: payout.userId,
        data: eventData(payout),
      });
  }

  async function reverse(payoutId: string, reason: string, code: string | null): Promise<void> {
    await orm.em.fork().transactional(async (tx) => {
      const payout = await locked(tx, payoutId);
      if (payout.status === 'failed') return;
      if (payout.status === 'completed')
        throw ApplicationFailure.nonRetryable(`payout ${payoutId} completed: it is not reversed`, 'PayoutCompleted');
      await postJournal(tx, {
        journalId: `payout-reversed:${payoutId}`,
        kind: 'payout_reversal',
        userId: payout.userId,
        reference: payoutId,
        // The balance's row before the transit one, in the order an acceptance locks them (no deadlock between them).
        legs: [
          {
            accountId: userBalanceAccount(payout.userId, payout.currency),
            kind: 'user_balance',
            userId: payout.userId,
            currency: payout.currency,
            amount: payout.amount,
          },
          {
            accountId: payoutsInTransitAccount(payout.currency),
            kind: 'payouts_in_transit',
            currency: payout.currency,
            amount: -payout.amount,
          },
        ],
      });
      Object.assign(payout, {
        status: 'failed',
        bankStatus: code ? 'rejected' : payout.bankStatus,
        failureReason: reason.slice(0, 255),
        failureCode: code?.slice(0, 16) ?? null,
      });
      await tx.flush();
      await appendEvent(tx, {
        type: 'payout.failed',
        resourceId: payoutId,
        userId: payout.userId,
        data: { ...eventData(payout), reason: payout.failureReason!, code: payout.failureCode ?? null },
      });
    });
  }
};

export type PayoutActivities = ReturnType<typeof createPayoutActivities>;
