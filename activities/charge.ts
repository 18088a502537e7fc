import { LockMode } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankAccountEntity, ChargeEntity, UserEntity, bankAccountNoAad } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import { ChargeFailure, PROVIDER_REJECTED, type WithdrawalSettlement } from '../workflows/messages';
import type { BankRail, TransferOutcome } from '../integrations/bank/rail';
import { consentToken, endConsent, transferRequester } from './bank-consent';
import { bankClearingAccount, postJournal, userBalanceAccount } from './ledger';
import { appendEvent } from '../db/events';
import { userIsActive } from './account';
import { clock } from '../platform/clock';

export interface ChargeActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankRail;
}

/** What the statements show: ours for a charge, the person's for a refund (the bank allows 20 characters). */
const CHARGE_MEMO = '월렛 충전';
const REFUND_MEMO = '월렛 충전 환불';
/** A charge's bankStatus once its refund has begun: from then on it is never credited. */
const REFUNDING = 'refunding';
/** The bank statuses of a charge whose refund began (then refused by the bank, or done): never credited. */
const REFUND_BEGUN = new Set([REFUNDING, 'refund_refused', 'refunded']);
/** The condition of an update that must not overwrite a refund's mark. */
const NO_REFUND_BEGUN = { $or: [{ bankStatus: null }, { bankStatus: { $nin: [...REFUND_BEGUN] } }] };

/**
 * What the bank's answer means for the charge: done, refused, not known yet (`pending`: the charge workflow asks the
 * bank again with growing waits), or something the bank does not document (`unknown`: held for review meanwhile).
 */
function settlementOf(outcome: TransferOutcome): WithdrawalSettlement {
  switch (outcome.status) {
    case 'completed':
      return { status: 'completed', reason: null };
    case 'rejected':
      return { status: 'rejected', reason: outcome.reason };
    case 'in_doubt':
      return { status: 'pending', reason: outcome.reason };
    case 'unknown':
      return { status: 'unknown', reason: outcome.reason };
  }
}

/** The bank side and the ledger side of a charge; every step is idempotent by the charge id. */
export const createChargeActivities = ({ orm, encryption, bank }: ChargeActivityDeps) => {
  const load = async (chargeId: string) => {
    const em = orm.em.fork();
    const charge = await em.findOneOrFail(ChargeEntity, { chargeId });
    const account = await em.findOneOrFail(BankAccountEntity, { bankAccountId: charge.bankAccountId });
    return {
      em,
      charge,
      account,
      accountNo: encryption.openText(account.accountNoSealed, bankAccountNoAad(charge.userId)),
    };
  };
  const withdrawOnce = async (chargeId: string): Promise<WithdrawalSettlement> => {
    const { em, charge, account } = await load(chargeId);
    const user = await em.findOneOrFail(UserEntity, { id: charge.userId });
    const { consentId, railAccountRef } = account;
    const outcome = await bank.withdraw({
      reference: `charge:${chargeId}`,
      accountRef: railAccountRef ?? '',
      // Asked for only to send: a withdrawal in doubt is asked about whatever became of the consent since.
      accessToken: async () =>
        consentId && railAccountRef ? consentToken({ orm, encryption, bank }, consentId) : undefined,
      amount: charge.amount,
      memo: CHARGE_MEMO,
      requester: transferRequester(encryption, user),
    });
    // The bank says the consent no longer holds (withdrawal consent expired, the account unregistered): consent again.
    if (outcome.status === 'rejected' && outcome.reason === 'consent_required' && account.consentId)
      await endConsent(orm, { consentId: account.consentId, userId: charge.userId }, `refused: ${outcome.code}`);
    return settlementOf(outcome);
  };

  return {
    /**
     * The withdrawal from the person's account, with their consent's token (renewed first when near its end), named by
     * the charge: asked again (a retry, a new worker, the poll below), the rail asks the bank what became of it instead
     * of sending it twice. No consent (it ended since the charge started): refused, nothing asked of the bank.
     */
    async requestWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      const { em, charge } = await load(chargeId);
      // Never for an account closed (or suspended) since the charge was asked for: the bank is not called. Once the
      // bank may have been asked (the mark below comes first), a retry asks it what became of the charge instead.
      if (charge.bankStatus === null) {
        if (!(await userIsActive(orm, charge.userId))) return { status: 'rejected', reason: 'account_not_active' };
        charge.bankStatus = 'requested';
        await em.flush();
      }
      const settlement = await withdrawOnce(chargeId);
      // Never over a refund's mark (an attempt that outlived its timeout, answering after the refund began).
      await orm.em
        .fork()
        .nativeUpdate(ChargeEntity, { chargeId, ...NO_REFUND_BEGUN }, { bankStatus: settlement.status });
      return settlement;
    },

    /** What the bank says became of the withdrawal: the same call, which asks (transfer/result) rather than sends. */
    async pollWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      return withdrawOnce(chargeId);
    },

    /** The charge waits for an operator or for the bank to say something documented; nothing is credited meanwhile. */
    async holdChargeForReview({
      chargeId,
      reason,
      bankStatus,
    }: {
      chargeId: string;
      reason: string;
      bankStatus: string;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const held = { failureReason: reason.slice(0, 255), bankStatus: bankStatus.slice(0, 16) };
        // A refund's mark is replaced only by a later one of the refund (refund_refused), never by the bank's status.
        const unlessRefunding = REFUND_BEGUN.has(held.bankStatus) ? {} : NO_REFUND_BEGUN;
        // The event goes out once, when the charge enters review; a later reason only updates the row.
        if (
          (await tx.nativeUpdate(
            ChargeEntity,
            { chargeId, status: 'processing', ...unlessRefunding },
            { status: 'needs_review', ...held },
          )) === 1
        ) {
          const charge = await tx.findOneOrFail(ChargeEntity, { chargeId });
          await appendEvent(tx, {
            type: 'charge.needs_review',
            resourceId: chargeId,
            userId: charge.userId,
            data: { chargeId, amount: charge.amount.toString(), currency: 'KRW', reason: held.failureReason },
          });
        } else {
          await tx.nativeUpdate(ChargeEntity, { chargeId, status: 'needs_review', ...unlessRefunding }, held);
        }
      });
    },

    /**
     * Credits the user's balance and completes the charge in one transaction, under the charge's row lock; a second
     * call finds it done. A charge whose refund has begun (refundCharge claimed it under the same lock) is never
     * credited: ChargeRefundStarted, final.
     */
    async creditCharge({ chargeId }: { chargeId: string }): Promise<void> {
      const em = orm.em.fork();
      const charge = await em.findOneOrFail(ChargeEntity, { chargeId });
      if (charge.status === 'completed') return;
      const user = await em.findOne(UserEntity, { id: charge.userId });
      if (user?.status !== 'active') {
        throw ApplicationFailure.create({
          type: ChargeFailure.UserNotActive,
          message: 'the user is not active; the charge cannot be credited',
          nonRetryable: true,
        });
      }
      await em.transactional(async (tx) => {
        const locked = await tx.findOneOrFail(ChargeEntity, { chargeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (locked.status === 'completed') return;
        // A late attempt (one that outlived its timeout) after the refund began, was refused, or the charge failed.
        if (locked.status === 'failed' || REFUND_BEGUN.has(locked.bankStatus ?? ''))
          throw ApplicationFailure.create({
            type: ChargeFailure.RefundStarted,
            message: `this charge is ${locked.status === 'failed' ? 'failed' : `being refunded (${locked.bankStatus})`}: it is not credited`,
            nonRetryable: true,
          });
        await postJournal(tx, {
          journalId: `charge:${chargeId}`,
          kind: 'charge',
          userId: charge.userId,
          reference: chargeId,
          legs: [
            {
              accountId: userBalanceAccount(charge.userId, charge.currency),
              kind: 'user_balance',
              userId: charge.userId,
              currency: charge.currency,
              amount: charge.amount,
            },
            {
              accountId: bankClearingAccount(charge.bankCode, charge.currency),
              kind: 'bank_clearing',
              currency: charge.currency,
              amount: -charge.amount,
            },
          ],
        });
        await tx.nativeUpdate(
          ChargeEntity,
          { chargeId },
          { status: 'completed', bankStatus: 'completed', failureReason: null, completedAt: clock.date() },
        );
        await appendEvent(tx, {
          type: 'charge.completed',
          resourceId: chargeId,
          userId: charge.userId,
          data: { chargeId, amount: charge.amount.toString(), currency: 'KRW' },
        });
      });
    },

    /**
     * Compensation: the withdrawn money goes back to the account it came from, named by the charge (sent once). The
     * charge is claimed first, under its row lock (bankStatus `refunding`; on SQLite, its one writer at a time), so
     * that no credit commits after the refund begins; a charge credited already (a credit that committed but whose
     * answer was lost) is refused with ChargeAlreadyCredited, final, and nothing is asked of the bank. A bank's refusal
     * is final (the workflow holds the charge for an operator); an answer in doubt is asked about again.
     */
    async refundCharge({ chargeId }: { chargeId: string }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const claimed = await tx.findOneOrFail(ChargeEntity, { chargeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
        if (claimed.status === 'completed')
          throw ApplicationFailure.create({
            type: ChargeFailure.AlreadyCredited,
            message: 'the charge was credited: its money stays in the balance, nothing is refunded',
            nonRetryable: true,
          });
        if (!REFUND_BEGUN.has(claimed.bankStatus ?? '')) claimed.bankStatus = REFUNDING;
      });
      const { em, charge, account, accountNo } = await load(chargeId);
      const user = await em.findOneOrFail(UserEntity, { id: charge.userId });
      const outcome = await bank.deposit({
        reference: `refund:${chargeId}`,
        bankCode: account.bankCode,
        accountNo,
        holderName: encryption.openText(user.nameSealed, user.id),
        amount: charge.amount,
        memo: REFUND_MEMO,
        purpose: 'refund',
        requester: transferRequester(encryption, user),
      });
      if (outcome.status === 'completed') return;
      if (outcome.status === 'rejected')
        throw ApplicationFailure.create({
          type: PROVIDER_REJECTED,
          message: `the bank refused the refund: ${outcome.reason} (${outcome.code}${outcome.detail ? `: ${outcome.detail}` : ''})`,
          nonRetryable: true,
        });
      throw ApplicationFailure.retryable(`the refund is not settled yet: ${outcome.reason}`, 'RefundInDoubt');
    },

    async failCharge({
      chargeId,
      reason,
      bankStatus,
    }: {
      chargeId: string;
      reason: string;
      bankStatus: string;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        if (
          (await tx.nativeUpdate(
            ChargeEntity,
            { chargeId, status: { $in: ['processing', 'needs_review'] } },
            { status: 'failed', failureReason: reason, bankStatus },
          )) !== 1
        )
          return;
        const charge = await tx.findOneOrFail(ChargeEntity, { chargeId });
        await appendEvent(tx, {
          type: 'charge.failed',
          resourceId: chargeId,
          userId: charge.userId,
          data: { chargeId, amount: charge.amount.toString(), currency: 'KRW', reason },
        });
      });
    },
  };
};

export type ChargeActivities = ReturnType<typeof createChargeActivities>;
