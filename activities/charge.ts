import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankAccountEntity, ChargeEntity, UserEntity, bankAccountNoAad } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import { ChargeFailure, type WithdrawalSettlement } from '../workflows/messages';
import type { BankClient } from '../integrations/bank';
import { bankClearingAccount, postJournal, userBalanceAccount } from './ledger';

export interface ChargeActivityDeps { orm: Orm; encryption: DataEncryption; bank: BankClient }

/** Text the bank shows on the user's statement (the bank allows 20 characters). */
const CHARGE_REMARK = '월렛 충전';
const REFUND_REMARK = '월렛 충전 환불';

/** The bank side and the ledger side of a charge; every step is idempotent by the charge id. */
export const createChargeActivities = ({ orm, encryption, bank }: ChargeActivityDeps) => {
  const load = async (chargeId: string) => {
    const em = orm.em.fork();
    const charge = await em.findOneOrFail(ChargeEntity, { chargeId });
    const account = await em.findOneOrFail(BankAccountEntity, { bankAccountId: charge.bankAccountId });
    return { em, charge, account, accountNo: encryption.openText(account.accountNoSealed, bankAccountNoAad(charge.userId)) };
  };

  return {
    async requestWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      const { em, charge, account, accountNo } = await load(chargeId);
      const withdrawal = await bank.withdraw({ bankCode: account.bankCode, accountNo, amount: charge.amount, remark: CHARGE_REMARK, reference: chargeId });
      charge.bankStatus = withdrawal.status;
      await em.flush();
      return { status: withdrawal.status, reason: withdrawal.reason };
    },

    async pollWithdrawal({ chargeId }: { chargeId: string }): Promise<WithdrawalSettlement> {
      const withdrawal = await bank.withdrawal(chargeId);
      return { status: withdrawal.status, reason: withdrawal.reason };
    },

    /** Credits the user's balance and completes the charge in one transaction; a second call finds it done. */
    async creditCharge({ chargeId }: { chargeId: string }): Promise<void> {
      const em = orm.em.fork();
      const charge = await em.findOneOrFail(ChargeEntity, { chargeId });
      if (charge.status === 'completed') return;
      const user = await em.findOne(UserEntity, { id: charge.userId });
      if (user?.status !== 'active') {
        throw ApplicationFailure.create({ type: ChargeFailure.UserNotActive, message: 'the user is not active; the charge cannot be credited', nonRetryable: true });
      }
      await em.transactional(async (tx) => {
        await postJournal(tx, {
          journalId: `charge:${chargeId}`, kind: 'charge', userId: charge.userId, reference: chargeId,
          legs: [
            { accountId: userBalanceAccount(charge.userId, charge.currency), kind: 'user_balance', userId: charge.userId, currency: charge.currency, amount: charge.amount },
            { accountId: bankClearingAccount(charge.bankCode, charge.currency), kind: 'bank_clearing', currency: charge.currency, amount: -charge.amount },
          ],
        });
        await tx.nativeUpdate(ChargeEntity, { chargeId }, { status: 'completed', bankStatus: 'completed', completedAt: new Date() });
      });
    },

    /** Compensation: the withdrawn money goes back to the account it came from (idempotent at the bank). */
    async refundCharge({ chargeId }: { chargeId: string }): Promise<void> {
      const { charge, account, accountNo } = await load(chargeId);
      await bank.deposit({ bankCode: account.bankCode, accountNo, amount: charge.amount, remark: REFUND_REMARK, reference: `refund-${chargeId}` });
    },

    async failCharge({ chargeId, reason, bankStatus }: { chargeId: string; reason: string; bankStatus: string }): Promise<void> {
      await orm.em.fork().nativeUpdate(ChargeEntity, { chargeId, status: 'processing' }, { status: 'failed', failureReason: reason, bankStatus });
    },
  };
};

export type ChargeActivities = ReturnType<typeof createChargeActivities>;
