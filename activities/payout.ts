import { LockMode, type EntityManager } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankAccountEntity, PayoutEntity, UserEntity, bankAccountNoAad, type Payout } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import type { BankRail, TransferOutcome } from '../integrations/bank/rail';
import type { PayoutDecision, PayoutSettlement } from '../workflows/messages';
import { transferRequester } from './bank-consent';
import { bankClearingAccount, payoutsInTransitAccount, postJournal, userBalanceAccount } from './ledger';
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
      await orm.em.fork().nativeUpdate(PayoutEntity, { payoutId, bankStatus: null }, { bankStatus: 'requested' });
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
      reason,
      decidedBy,
    }: { payoutId: string } & PayoutDecision): Promise<PayoutSettlement> {
      const now = await deposit(payoutId, false);
      if (now.status !== 'not_received') {
        await markBank(payoutId, now);
        return now;
      }
      if (action === 'resend') {
        const sent = await deposit(payoutId, true);
        await markBank(payoutId, sent);
        return sent;
      }
      await reverse(payoutId, `not_received_reversed: by ${decidedBy}: ${reason}`, null);
      return { status: 'reversed', reason: 'not_received_reversed' };
    },

    /** The payout waits for an operator or for the bank to say something documented; nothing moves meanwhile. */
    async holdPayoutForReview({
      payoutId,
      reason,
      bankStatus,
    }: {
      payoutId: string;
      reason: string;
      bankStatus: string;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const payout = await locked(tx, payoutId);
        if (payout.status === 'completed' || payout.status === 'failed') return;
        const entering = payout.status === 'processing';
        Object.assign(payout, {
          status: 'needs_review',
          failureReason: reason.slice(0, 255),
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
        if (payout.status === 'failed')
          throw ApplicationFailure.nonRetryable(
            `payout ${payoutId} was reversed, yet the bank says it paid: for an operator`,
            'PayoutReversedButPaid',
          );
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

    /** The bank refused it (nothing moved): the amount goes back to the balance, once. */
    async reversePayout({ payoutId, reason, code }: { payoutId: string; reason: string; code: string | null }) {
      await reverse(payoutId, reason, code);
    },
  };

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
        legs: [
          {
            accountId: payoutsInTransitAccount(payout.currency),
            kind: 'payouts_in_transit',
            currency: payout.currency,
            amount: -payout.amount,
          },
          {
            accountId: userBalanceAccount(payout.userId, payout.currency),
            kind: 'user_balance',
            userId: payout.userId,
            currency: payout.currency,
            amount: payout.amount,
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
