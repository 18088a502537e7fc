import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { EmailVerificationEntity, emailAad } from '../db/entities';
import type { MailClient } from '../integrations/mail';
import type { DataEncryption } from '../platform/data-encryption';
import { PROVIDER_REJECTED } from '../platform/failures';
import type { EmailVerificationInput } from '../workflows/messages';

export interface EmailVerificationActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  mail: MailClient;
}

export const createEmailVerificationActivities = ({ orm, encryption, mail }: EmailVerificationActivityDeps) => ({
  /** The provider answers a repeated message key with its first message, so a retry never mails twice. */
  async sendVerificationEmail({ verificationId, code }: EmailVerificationInput): Promise<void> {
    const verification = await orm.em.fork().findOne(EmailVerificationEntity, { verificationId });
    if (!verification)
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        message: `no email verification ${verificationId}`,
        nonRetryable: true,
      });
    const to = encryption.openText(verification.emailSealed, emailAad(verification.userId));
    await mail.send(
      {
        to,
        subject: `Your verification code: ${code}`,
        text: `Your email verification code is ${code}. It expires at ${verification.expiresAt.toISOString()}. If you did not ask for it, ignore this mail.`,
      },
      verificationId,
    );
  },
});

export type EmailVerificationActivities = ReturnType<typeof createEmailVerificationActivities>;
