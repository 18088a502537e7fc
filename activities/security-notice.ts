import { Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { EventEntity, PasskeyEntity, UserEntity, emailAad } from '../db/entities';
import type { MailClient } from '../integrations/mail';
import type { DataEncryption } from '../platform/data-encryption';
import type { SecurityNoticeInput, SecurityNoticeOutcome } from '../workflows/messages';

export interface SecurityNoticeActivityDeps { orm: Orm; encryption: DataEncryption; mail: MailClient; newPasskeyHoldSeconds: number }

/** How long a notice waits for the change it tells of to commit (the API starts it just before its transaction). */
const COMMIT_WAIT_MS = 60_000;
const POLL_MS = 500;

export const createSecurityNoticeActivities = ({ orm, encryption, mail, newPasskeyHoldSeconds }: SecurityNoticeActivityDeps) => ({
  /** The event of the change once committed, or null when it did not commit within a minute (the request failed). */
  async committedSecurityEvent({ userId, eventType, resourceId }: SecurityNoticeInput): Promise<string | null> {
    const deadline = Date.now() + COMMIT_WAIT_MS;
    for (;;) {
      const event = await orm.em.fork().findOne(EventEntity, { type: eventType, resourceId, userId }, { fields: ['eventId'] });
      if (event) return event.eventId;
      if (Date.now() >= deadline) return null;
      Context.current().heartbeat();
      await Context.current().sleep(POLL_MS);
    }
  },

  /** Mails the notice to the user's verified address (the event id is the provider's message key: one mail). */
  async mailSecurityNotice({ eventId }: { eventId: string }): Promise<SecurityNoticeOutcome> {
    const em = orm.em.fork();
    const event = await em.findOneOrFail(EventEntity, { eventId });
    const user = await em.findOneOrFail(UserEntity, { id: event.userId! });
    if (!user.emailSealed) return { mailed: false, reason: 'no-verified-email' };
    const at = event.createdAt.toISOString();
    let text: string;
    if (event.type === 'passkey.added') {
      const passkey = await em.findOne(PasskeyEntity, { passkeyId: event.resourceId });
      const usableFrom = new Date(event.createdAt.getTime() + newPasskeyHoldSeconds * 1000).toISOString();
      text = `A passkey${passkey ? ` named "${passkey.name}"` : ''} was added to your wallet account at ${at}. `
        + `Until ${usableFrom} it cannot approve new recipients or transfers above your passkey threshold. `
        + 'If you did not add it, remove it in the app (Security > Passkeys) and contact us at once.';
    } else {
      text = `A passkey was removed from your wallet account at ${at}. If you did not remove it, contact us at once.`;
    }
    const subject = event.type === 'passkey.added' ? 'A passkey was added to your account' : 'A passkey was removed from your account';
    await mail.send({ to: encryption.openText(user.emailSealed, emailAad(user.id)), subject, text }, eventId);
    return { mailed: true, eventId };
  },
});

export type SecurityNoticeActivities = ReturnType<typeof createSecurityNoticeActivities>;
