import { proxyCapabilityActivities } from './capabilities';
import type { BankVerificationActivities } from '../activities/bank-verification';
import { BankFailure, PROVIDER_REJECTED } from '../platform/failures';
import type { BankVerificationInput } from './messages';

/** The user waits for the answer: a few quick attempts, then the API says the bank is not answering. */
const bank = proxyCapabilityActivities<BankVerificationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [PROVIDER_REJECTED, BankFailure.DepositRefused],
  },
});

/** Deposits 1 KRW with the verification code in its text (referenced by the verification id, so sent at most once). */
export async function bankVerificationWorkflow(input: BankVerificationInput): Promise<void> {
  await bank.sendVerificationDeposit(input);
}
