import { randomInt, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { EmailVerificationEntity, UserEntity, emailAad, type User } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { emailVerificationWorkflow } from '../../workflows/email-verification';
import { emailVerificationWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { safeEqual } from '../auth/tokens';
import { countCodeAttempt, wrongCode } from '../common/code-verification';
import { appendEvent } from '../../db/events';
import { clock } from '../../platform/clock';

export interface EmailServiceDeps {
  orm: Orm;
  temporal: Client;
  encryption: DataEncryption;
  taskQueue: string;
  verificationTtlSeconds: number;
  verificationMaxAttempts: number;
}

/** `j***@example.com`: enough for the user to recognise their address, not enough to harvest it. */
export const maskEmail = (email: string): string => {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
};

/** The address as it is kept and compared: the domain is case-insensitive (the local part is kept as typed). */
const normalise = (email: string): string => {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`;
};

/** The profile's view of a user's email (see ProfileResponse). */
export function emailView(
  encryption: DataEncryption,
  user: User,
): { email: string; emailVerified: boolean; emailVerifiedAt: string | null } {
  if (!user.emailSealed || !user.emailVerifiedAt) return { email: '', emailVerified: false, emailVerifiedAt: null };
  return {
    email: encryption.openText(user.emailSealed, emailAad(user.id)),
    emailVerified: true,
    emailVerifiedAt: user.emailVerifiedAt.toISOString(),
  };
}

/**
 * Email verification: the API records the verification (the address sealed, a keyed hash of a 6-digit code) and runs
 * the mail as the workflow email-verification-<id> (the worker calls the mail provider); the user sends the code back.
 */
export class EmailVerificationService {
  constructor(private readonly deps: EmailServiceDeps) {}

  async request(user: User, address: string) {
    const { orm, encryption } = this.deps;
    const email = normalise(address);
    const verificationId = `ev_${randomUUID()}`;
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expiresAt = new Date(clock.now() + this.deps.verificationTtlSeconds * 1000);
    await orm.em.fork().insert(EmailVerificationEntity, {
      verificationId,
      userId: user.id,
      emailSealed: encryption.sealText(email, emailAad(user.id)),
      codeHash: this.codeHashOf(verificationId, code),
      status: 'pending',
      expiresAt,
      createdAt: clock.date(),
    });
    // The code travels only in the workflow's (encrypted) input; the database keeps its keyed hash.
    await this.deps.temporal.workflow.execute(emailVerificationWorkflow, {
      workflowId: emailVerificationWorkflowId(verificationId),
      taskQueue: this.deps.taskQueue,
      args: [{ verificationId, code }],
    });
    return { verificationId, sentTo: maskEmail(email), expiresAt: expiresAt.toISOString() };
  }

  async confirm(userId: string, verificationId: string, code: string) {
    const verification = await countCodeAttempt(
      this.deps.orm,
      EmailVerificationEntity,
      verificationId,
      userId,
      this.deps.verificationMaxAttempts,
      'ask for a new code',
    );
    if (!safeEqual(verification.codeHash, this.codeHashOf(verificationId, code))) {
      const remaining = this.deps.verificationMaxAttempts - verification.attempts;
      if (remaining <= 0) {
        await this.deps.orm.em.fork().transactional(async (tx) => {
          if (
            (await tx.nativeUpdate(
              EmailVerificationEntity,
              { verificationId, status: 'pending' },
              { status: 'failed' },
            )) !== 1
          )
            return;
          await appendEvent(tx, { type: 'email.locked', resourceId: verificationId, userId, data: { verificationId } });
        });
      }
      throw wrongCode(remaining);
    }
    const verifiedAt = clock.date();
    const email = this.deps.encryption.openText(verification.emailSealed, emailAad(userId));
    await this.deps.orm.em.fork().transactional(async (tx) => {
      const moved = await tx.nativeUpdate(
        EmailVerificationEntity,
        { verificationId, status: 'pending' },
        { status: 'verified' },
      );
      if (moved !== 1) throw problems.conflict('already-verified', 'This address was already verified');
      // The newest confirmed address is the user's; it was sealed for this user, so it is stored as it is.
      await tx.nativeUpdate(
        UserEntity,
        { id: userId },
        { emailSealed: verification.emailSealed, emailVerifiedAt: verifiedAt },
      );
      await appendEvent(tx, { type: 'email.verified', resourceId: userId, userId, data: { userId } });
    });
    return { verified: true, email, emailVerifiedAt: verifiedAt.toISOString() };
  }

  /** A keyed hash: a copy of the table cannot be tried against the million possible codes. */
  private codeHashOf(verificationId: string, code: string): string {
    return this.deps.encryption.fingerprint(`${verificationId}\n${code}`, 'email-verification-code');
  }
}
