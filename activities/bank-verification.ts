import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankVerificationEntity, UserEntity, bankAccountNoAad } from '../db/entities';
import type { BankRail } from '../integrations/bank/rail';
import type { DataEncryption } from '../platform/data-encryption';
import { BankFailure, PROVIDER_UNAVAILABLE } from '../platform/failures';
import type { BankVerificationInput } from '../workflows/messages';
import { transferRequester } from './bank-consent';

export interface BankVerificationActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankRail;
}

export const createBankVerificationActivities = ({ orm, encryption, bank }: BankVerificationActivityDeps) => ({
  /**
   * 1 KRW from our contracted account with the code in the text the person's statement shows, named by the
   * verification: a retry asks the bank what became of the first send instead of sending again. A refusal is final; an
   * answer in doubt fails this attempt, and the next one asks again.
   */
  async sendVerificationDeposit({ verificationId, remark }: BankVerificationInput): Promise<void> {
    const verification = await orm.em.fork().findOne(BankVerificationEntity, { verificationId });
    if (!verification)
      throw ApplicationFailure.create({
        type: BankFailure.DepositRefused,
        message: `no verification ${verificationId}`,
        nonRetryable: true,
      });
    const user = await orm.em.fork().findOneOrFail(UserEntity, { id: verification.userId });
    const requester = transferRequester(encryption, user);
    const outcome = await bank.deposit({
      reference: `verification:${verificationId}`,
      bankCode: verification.bankCode,
      accountNo: encryption.openText(verification.accountNoSealed, bankAccountNoAad(verification.userId)),
      holderName: requester.name,
      amount: 1n,
      memo: remark,
      purpose: 'verification',
      requester,
    });
    if (outcome.status === 'completed') return;
    if (outcome.status === 'rejected')
      throw ApplicationFailure.create({
        type: BankFailure.DepositRefused,
        message: `the bank refused the deposit: ${outcome.reason} (${outcome.code}${outcome.detail ? `: ${outcome.detail}` : ''})`,
        nonRetryable: true,
      });
    // The bank has not said yet (the API answers 503 if no attempt learns it): the next attempt asks, never resends.
    throw ApplicationFailure.retryable(`the deposit is not settled: ${outcome.reason}`, PROVIDER_UNAVAILABLE);
  },
});

export type BankVerificationActivities = ReturnType<typeof createBankVerificationActivities>;
