import { proxyCapabilityActivities } from './capabilities';
import type { EmailVerificationActivities } from '../activities/email-verification';
import { PROVIDER_REJECTED } from '../platform/failures';
import type { EmailVerificationInput } from './messages';

/** The user waits for the answer: a few quick attempts, then the API says the mail provider is not answering. */
const mail = proxyCapabilityActivities<EmailVerificationActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumAttempts: 3, nonRetryableErrorTypes: [PROVIDER_REJECTED] },
});

/** Mails the verification code (keyed by the verification id at the provider, so sent at most once). */
export async function emailVerificationWorkflow(input: EmailVerificationInput): Promise<void> {
  await mail.sendVerificationEmail(input);
}
