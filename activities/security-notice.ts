import { Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import type { EntityManager } from '@mikro-orm/core';
import { DeviceEntity, EventEntity, PasskeyEntity, UserEntity, emailAad, type Event } from '../db/entities';
import type { MailClient } from '../integrations/mail';
import type { DataEncryption } from '../platform/data-encryption';
import type { SecurityNoticeInput, SecurityNoticeOutcome } from '../workflows/messages';

export interface SecurityNoticeActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  mail: MailClient;
  newPasskeyHoldSeconds: number;
}

/** How long a notice waits for the change it tells of to commit (the API starts it just before its transaction). */
const COMMIT_WAIT_MS = 60_000;
const POLL_MS = 500;

export const createSecurityNoticeActivities = ({
  orm,
  encryption,
  mail,
  newPasskeyHoldSeconds,
}: SecurityNoticeActivityDeps) => ({
  /** The event of the change once committed, or null when it did not commit within a minute (the request failed). */
  async committedSecurityEvent({ userId, eventType, resourceId }: SecurityNoticeInput): Promise<string | null> {
    const deadline = Date.now() + COMMIT_WAIT_MS;
    for (;;) {
      const event = await orm.em
        .fork()
        .findOne(EventEntity, { type: eventType, resourceId, userId }, { fields: ['eventId'] });
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
    const { subject, text } = await noticeText(em, event, newPasskeyHoldSeconds);
    await mail.send({ to: encryption.openText(user.emailSealed, emailAad(user.id)), subject, text }, eventId);
    return { mailed: true, eventId };
  },
});

export type SecurityNoticeActivities = ReturnType<typeof createSecurityNoticeActivities>;

/** What a notice says, by the change it tells of. No secret, no link: the person acts in the app they hold. */
async function noticeText(
  em: EntityManager,
  event: Event,
  newPasskeyHoldSeconds: number,
): Promise<{ subject: string; text: string }> {
  const at = event.createdAt.toISOString();
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'passkey.added': {
      const passkey = await em.findOne(PasskeyEntity, { passkeyId: event.resourceId });
      const usableFrom = new Date(event.createdAt.getTime() + newPasskeyHoldSeconds * 1000).toISOString();
      return {
        subject: 'A passkey was added to your account',
        text:
          `A passkey${passkey ? ` named "${passkey.name}"` : ''} was added to your wallet account at ${at}. ` +
          `Until ${usableFrom} it cannot approve new recipients or transfers above your passkey threshold. ` +
          'If you did not add it, remove it in the app (Security > Passkeys) and contact us at once.',
      };
    }
    case 'passkey.removed':
      return {
        subject: 'A passkey was removed from your account',
        text: `A passkey was removed from your wallet account at ${at}. If you did not remove it, contact us at once.`,
      };
    case 'device.added': {
      const device = await em.findOne(DeviceEntity, { sessionId: event.resourceId });
      const how =
        data.signInMethod === 'passkey'
          ? 'your identity verification and a passkey'
          : 'your identity verification and your ID card';
      const hold = data.holdUntil
        ? ` Until ${String(data.holdUntil)} it cannot send funds, change your PIN, email or address book, or read your wallet backup.`
        : '';
      return {
        subject: 'A new device signed in to your account',
        text:
          `A device${device?.label ? ` ("${device.label}")` : ''} signed in to your wallet account at ${at} with ${how}.${hold} ` +
          'If this was not you, sign it out in the app (Security > Devices) with your PIN, and cancel any recovery you did not ask for.',
      };
    }
    case 'device.revoked':
      return {
        subject: 'A device was signed out of your account',
        text: `A device was signed out of your wallet account at ${at}. If you did not do this, contact us at once.`,
      };
    case 'backup.read':
      return {
        subject: 'Your wallet backup was read',
        text:
          `Your encrypted wallet backup (version ${String(data.version)}) was downloaded by one of your signed-in devices at ${at}. ` +
          'If this was not you, sign that device out in the app (Security > Devices) and move your funds with a new key.',
      };
    case 'recovery.scheduled':
      return {
        subject: 'A recovery of your wallet was requested',
        text:
          `A recovery of your wallet's owner key was requested at ${at} from one of your signed-in devices. It takes effect after ${String(data.executeAfter)}. ` +
          'If you did not ask for it, cancel it now in the app with your current key (Security > Recovery), and sign out any device you do not know.',
      };
    case 'recovery.executed':
      return {
        subject: 'Your wallet was recovered',
        text: `The recovery of your wallet's owner key took effect at ${at}: the new key you chose now controls your account.`,
      };
    case 'recovery.cancelled':
      return {
        subject: 'A recovery of your wallet was cancelled',
        text: `The recovery of your wallet's owner key was cancelled at ${at} with your current key. Nothing changed.`,
      };
    default:
      throw new Error(`no notice text for ${event.type}`);
  }
}
