import { randomInt, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import type { EntityManager } from '@mikro-orm/core';
import {
  EmailChangeEntity,
  EmailVerificationEntity,
  UserEntity,
  emailAad,
  emailUndoCode,
  type User,
} from '../../db/entities';
import type { SecurityNotices } from '../common/security-notices';
import type { DataEncryption } from '../../platform/data-encryption';
import { emailVerificationWorkflow } from '../../workflows/email-verification';
import { emailVerificationWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { safeEqual } from '../auth/tokens';
import { countCodeAttempt, wrongCode } from '../common/code-verification';
import { appendEvent } from '../../db/events';
import { clock } from '../../platform/clock';
import type { SessionCache } from '../common/session-cache';

export interface EmailServiceDeps {
  orm: Orm;
  temporal: Client;
  encryption: DataEncryption;
  notices: SecurityNotices;
  taskQueue: string;
  verificationTtlSeconds: number;
  verificationMaxAttempts: number;
  /** EMAIL_CHANGE_UNDO_SECONDS: how long the replaced address can undo a change (and gets every security notice). */
  undoSeconds: number;
  /**
   * The api's session cache (PostgreSQL): a change of the address is answered once this process heard of it, so the
   * profile read next is not served the cached row from before (found by CI: an undo answered, the profile still
   * showing the thief's address).
   */
  sessions?: Pick<SessionCache, 'whenTold'>;
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
    this.assertNoChangePending(user);
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
    const told = this.deps.sessions?.whenTold(userId);
    const confirmed = await this.confirmCode(userId, verificationId, code);
    await told?.();
    return confirmed;
  }

  private async confirmCode(userId: string, verificationId: string, code: string) {
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
    const email = this.deps.encryption.openText(verification.emailSealed, emailAad(userId));
    const previous = (await this.deps.orm.em.fork().findOneOrFail(UserEntity, { id: userId })).emailSealed;
    if (!previous) return this.verifyFirst(userId, verificationId, verification.emailSealed, email);
    const changeId = `emc_${randomUUID()}`;
    return this.deps.notices.around({ userId, eventType: 'email.changed', resourceId: changeId }, (eventId) =>
      this.deps.orm.em.fork().transactional(async (tx) => {
        const verifiedAt = clock.date();
        const undoUntil = new Date(verifiedAt.getTime() + this.deps.undoSeconds * 1000);
        await this.markVerified(tx, verificationId);
        // The replaced address is the one the user row holds now (another change may have landed since the read).
        const user = await tx.findOneOrFail(UserEntity, { id: userId });
        this.assertNoChangePending(user);
        tx.create(EmailChangeEntity, {
          changeId,
          userId,
          previousEmailSealed: user.emailSealed!,
          newEmailSealed: verification.emailSealed,
          undoUntil,
          undoneAt: null,
          createdAt: verifiedAt,
        });
        Object.assign(user, {
          emailSealed: verification.emailSealed,
          emailVerifiedAt: verifiedAt,
          previousEmailSealed: user.emailSealed,
          previousEmailUntil: undoUntil,
        });
        await tx.flush();
        await appendEvent(tx, {
          eventId,
          type: 'email.changed',
          resourceId: changeId,
          userId,
          data: { changeId, undoUntil: undoUntil.toISOString() },
        });
        return { verified: true, email, emailVerifiedAt: verifiedAt.toISOString() };
      }),
    );
  }

  /**
   * Undoes an email change from the address it replaced, with the code mailed there (POST /v1/account/email/undo): no
   * access token, as the person may have lost theirs to the thief who changed it. A wrong code or change is a refused
   * credential (counted per address); a change past its window, undone already or replaced by a later one, a conflict.
   */
  async undo(changeId: string, code: string) {
    const { orm, encryption } = this.deps;
    const change = await orm.em.fork().findOne(EmailChangeEntity, { changeId });
    if (!change || !safeEqual(code, emailUndoCode(encryption, changeId)))
      throw problems.invalidCredential('invalid-undo-code', 'This change id and code do not undo an email change');
    if (change.undoneAt) throw problems.conflict('email-change-undone', 'This change was undone already');
    if (change.undoUntil.getTime() < clock.now())
      throw problems.gone('email-change-final', 'This change can no longer be undone: contact us');
    const { userId } = change;
    const told = this.deps.sessions?.whenTold(userId);
    const undone = await this.deps.notices.around(
      { userId, eventType: 'email.change_undone', resourceId: changeId },
      (eventId) =>
        orm.em.fork().transactional(async (tx) => {
          const now = clock.date();
          const user = await tx.findOneOrFail(UserEntity, { id: userId });
          if (
            user.emailSealed !== change.newEmailSealed ||
            (await tx.count(EmailChangeEntity, { changeId, undoneAt: null })) !== 1
          )
            throw problems.conflict('email-change-superseded', 'The address was changed again since: contact us');
          await tx.nativeUpdate(EmailChangeEntity, { changeId }, { undoneAt: now });
          // The address the change replaced is the account's again; the one it brought gets nothing more.
          Object.assign(user, {
            emailSealed: change.previousEmailSealed,
            emailVerifiedAt: now,
            previousEmailSealed: null,
            previousEmailUntil: null,
          });
          await tx.nativeUpdate(EmailVerificationEntity, { userId, status: 'pending' }, { status: 'failed' });
          await tx.flush();
          await appendEvent(tx, {
            eventId,
            type: 'email.change_undone',
            resourceId: changeId,
            userId,
            data: { changeId },
          });
          return {
            undone: true as const,
            email: maskEmail(encryption.openText(change.previousEmailSealed, emailAad(userId))),
          };
        }),
    );
    await told?.();
    return undone;
  }

  /**
   * While a change can still be undone, no other is taken (409 email-change-pending): a second change would make the
   * first one's undo point at an address the thief chose, and silence the address the person had.
   */
  private assertNoChangePending(user: User): void {
    if (!user.previousEmailUntil || user.previousEmailUntil.getTime() <= clock.now()) return;
    throw problems.conflict(
      'email-change-pending',
      `The last change of the address can be undone until ${user.previousEmailUntil.toISOString()}: no other change before then`,
    );
  }

  /** The first verified address of the account: nothing to replace, nothing to undo. */
  private async verifyFirst(userId: string, verificationId: string, emailSealed: string, email: string) {
    const verifiedAt = clock.date();
    await this.deps.orm.em.fork().transactional(async (tx) => {
      await this.markVerified(tx, verificationId);
      await tx.nativeUpdate(UserEntity, { id: userId }, { emailSealed, emailVerifiedAt: verifiedAt });
      await appendEvent(tx, { type: 'email.verified', resourceId: userId, userId, data: { userId } });
    });
    return { verified: true, email, emailVerifiedAt: verifiedAt.toISOString() };
  }

  private async markVerified(tx: EntityManager, verificationId: string): Promise<void> {
    const moved = await tx.nativeUpdate(
      EmailVerificationEntity,
      { verificationId, status: 'pending' },
      { status: 'verified' },
    );
    if (moved !== 1) throw problems.conflict('already-verified', 'This address was already verified');
  }

  /** A keyed hash: a copy of the table cannot be tried against the million possible codes. */
  private codeHashOf(verificationId: string, code: string): string {
    return this.deps.encryption.fingerprint(`${verificationId}\n${code}`, 'email-verification-code');
  }
}
