import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { EmailVerificationEntity, emailAad } from '../db/entities';
import { MailRefused, type Mailer } from '../integrations/mail/mailer';
import { mailOnce } from './mail-sends';
import type { DataEncryption } from '../platform/data-encryption';
import { PROVIDER_REJECTED } from '../platform/failures';
import type { EmailVerificationInput } from '../workflows/messages';

export interface EmailVerificationActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  mail: Mailer;
}

export const createEmailVerificationActivities = ({ orm, encryption, mail }: EmailVerificationActivityDeps) => ({
  /**
   * Mailed once per verification (activities/mail-sends.ts: at least once, and once unless a send is cut off). An
   * address the mail service refuses for good is the caller's: a non-retryable PROVIDER_REJECTED (the API answers it).
   */
  async sendVerificationEmail({ verificationId, code }: EmailVerificationInput): Promise<void> {
    const verification = await orm.em.fork().findOne(EmailVerificationEntity, { verificationId });
    if (!verification)
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        message: `no email verification ${verificationId}`,
        nonRetryable: true,
      });
    const to = encryption.openText(verification.emailSealed, emailAad(verification.userId));
    const message = {
      to,
      subject: `Your verification code: ${code}`,
      text: `Your email verification code is ${code}. It expires at ${verification.expiresAt.toISOString()}. If you did not ask for it, ignore this mail.`,
    };
    try {
      await mailOnce(orm, mail, message, `email-verification:${verificationId}`);
    } catch (error) {
      if (error instanceof MailRefused && error.refuses === 'recipient')
        throw ApplicationFailure.create({ type: PROVIDER_REJECTED, message: error.message, nonRetryable: true });
      throw error;
    }
  },
});

export type EmailVerificationActivities = ReturnType<typeof createEmailVerificationActivities>;
