import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { BankVerificationEntity, bankAccountNoAad } from '../db/entities';
import type { BankClient } from '../integrations/bank';
import type { DataEncryption } from '../platform/data-encryption';
import { BankFailure } from '../platform/failures';
import type { BankVerificationInput } from '../workflows/messages';

export interface BankVerificationActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  bank: BankClient;
}

export const createBankVerificationActivities = ({ orm, encryption, bank }: BankVerificationActivityDeps) => ({
  /** The bank answers a repeated reference with its first result, so a retry never deposits twice. */
  async sendVerificationDeposit({ verificationId, remark }: BankVerificationInput): Promise<void> {
    const verification = await orm.em.fork().findOne(BankVerificationEntity, { verificationId });
    if (!verification)
      throw ApplicationFailure.create({
        type: BankFailure.DepositRefused,
        message: `no verification ${verificationId}`,
        nonRetryable: true,
      });
    const accountNo = encryption.openText(verification.accountNoSealed, bankAccountNoAad(verification.userId));
    await bank.deposit({ bankCode: verification.bankCode, accountNo, amount: 1n, remark, reference: verificationId });
  },
});

export type BankVerificationActivities = ReturnType<typeof createBankVerificationActivities>;
