import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankAccountEntity, ChargeEntity, UserEntity, bankAccountNoAad, type Charge } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import { ChargeFailure, type WithdrawalSettlement } from '../workflows/messages';
import type { BankClient, BankWithdrawal } from '../integrations/bank';
import { bankClearingAccount, postJournal, userBalanceAccount } from './ledger';
import { appendEvent } from '../db/events';
import { userIsActive } from './account';
import { clock } from '../platform/clock';

export interface ChargeActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankClient;
}

/** Text the bank shows on the user's statement (the bank allows 20 characters). */
const CHARGE_REMARK = '월렛 충전';
const REFUND_REMARK = '월렛 충전 환불';

/**
 * What the bank's answer means for this charge. A settlement of another reference or another amount is not this
 * charge's, whatever its status says: it is unknown, and the charge waits for review.
 */
function settlementOf(charge: Charge, withdrawal: BankWithdrawal): WithdrawalSettlement {
  if (withdrawal.status === 'unknown') return { status: 'unknown', reason: withdrawal.reason };
  if (withdrawal.reference !== charge.chargeId || withdrawal.amount !== charge.amount) {
    return {
      status: 'unknown',
      reason: `the bank's answer is for ${withdrawal.reference} of ${withdrawal.amount}, not ${charge.chargeId} of ${charge.amount}`,
    };
  }
  return { status: withdrawal.status, reason: withdrawal.reason };
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

  return {
    async requestWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      const { em, charge, account, accountNo } = await load(chargeId);
      // Never for an account closed (or suspended) since the charge was asked for: the bank is not called.
      if (charge.bankStatus === null && !(await userIsActive(orm, charge.userId)))
        return { status: 'rejected', reason: 'account_not_active' };
      const withdrawal = await bank.withdraw({
        bankCode: account.bankCode,
        accountNo,
        amount: charge.amount,
        remark: CHARGE_REMARK,
        reference: chargeId,
      });
      const settlement = settlementOf(charge, withdrawal);
      charge.bankStatus = settlement.status;
      await em.flush();
      return settlement;
    },

    async pollWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      const charge = await orm.em.fork().findOneOrFail(ChargeEntity, { chargeId });
      return settlementOf(charge, await bank.withdrawal(chargeId));
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
        // The event goes out once, when the charge enters review; a later reason only updates the row.
        if (
          (await tx.nativeUpdate(
            ChargeEntity,
            { chargeId, status: 'processing' },
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
          await tx.nativeUpdate(ChargeEntity, { chargeId, status: 'needs_review' }, held);
        }
      });
    },

    /** Credits the user's balance and completes the charge in one transaction; a second call finds it done. */
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

    /** Compensation: the withdrawn money goes back to the account it came from (idempotent at the bank). */
    async refundCharge({ chargeId }: { chargeId: string }): Promise<void> {
      const { charge, account, accountNo } = await load(chargeId);
      await bank.deposit({
        bankCode: account.bankCode,
        accountNo,
        amount: charge.amount,
        remark: REFUND_REMARK,
        reference: `refund-${chargeId}`,
      });
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
