import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import type { EntityManager } from '@mikro-orm/core';
import {
  BankAccountEntity,
  DeviceEntity,
  EmailChangeEntity,
  EventEntity,
  PasskeyEntity,
  UserEntity,
  emailAad,
  emailUndoCode,
  type Event,
} from '../db/entities';
import { MailRefused, type Mailer } from '../integrations/mail/mailer';
import { mailOnce } from './mail-sends';
import type { DataEncryption } from '../platform/data-encryption';
import type { SecurityNoticeInput, SecurityNoticeOutcome } from '../workflows/messages';

export interface SecurityNoticeActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  mail: Mailer;
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
  async committedSecurityEvent({
    userId,
    eventType,
    resourceId,
    eventId,
  }: SecurityNoticeInput): Promise<string | null> {
    const deadline = Date.now() + COMMIT_WAIT_MS;
    for (;;) {
      const event = await orm.em
        .fork()
        .findOne(
          EventEntity,
          { type: eventType, resourceId, userId, ...(eventId ? { eventId } : {}) },
          { fields: ['eventId'] },
        );
      if (event) return event.eventId;
      if (Date.now() >= deadline) return null;
      Context.current().heartbeat();
      await Context.current().sleep(POLL_MS);
    }
  },

  /**
   * Mails the notice to every address the person has: the verified one and, while an email change can be undone, the
   * one it replaced (so a thief who changed the address cannot silence the notices). The replaced address is mailed
   * first, and each address on its own: a provider that refuses one address (a thief's mailbox made to bounce, so the
   * provider suppresses it) does not keep the notice from the other. A refusal is reported, not retried; any other
   * failure (and a refusal of us rather than of the address: a wrong key, throttling) is retried once every address
   * was tried. The provider's message key is the event id and the address: one mail each, however often this is
   * retried.
   */
  async mailSecurityNotice({ eventId }: { eventId: string }): Promise<SecurityNoticeOutcome> {
    const em = orm.em.fork();
    const event = await em.findOneOrFail(EventEntity, { eventId });
    const user = await em.findOneOrFail(UserEntity, { id: event.userId! });
    const recipients = [
      ...(user.previousEmailSealed && user.previousEmailUntil && user.previousEmailUntil > event.createdAt
        ? [{ sealed: user.previousEmailSealed, role: 'previous' as const }]
        : []),
      ...(user.emailSealed ? [{ sealed: user.emailSealed, role: 'current' as const }] : []),
    ];
    if (!recipients.length) return { mailed: false, reason: 'no-verified-email' };
    const refused: Array<'current' | 'previous'> = [];
    let retry: unknown;
    for (const { sealed, role } of recipients) {
      const to = encryption.openText(sealed, emailAad(user.id));
      try {
        const { subject, text } = await noticeText(em, event, { newPasskeyHoldSeconds, encryption, role });
        // Keyed by the address, not its role: a retry after an undo (which swaps the roles) mails no address twice.
        await mailOnce(orm, mail, { to, subject, text }, `notice:${eventId}:${addressKey(to)}`);
      } catch (error) {
        if (refusesRecipient(error)) refused.push(role);
        else retry ??= error;
      }
    }
    if (retry) {
      // Any other refusal (a wrong password, our domain refused) is the mail service refusing us, not the address:
      // retried until it mails, and visible as a failing activity meanwhile.
      if (retry instanceof MailRefused)
        throw ApplicationFailure.retryable((retry as Error).message, 'MailProviderRefusedUs');
      throw retry;
    }
    if (refused.length === recipients.length) return { mailed: false, reason: 'refused', refused };
    return {
      mailed: true,
      eventId,
      addresses: recipients.length - refused.length,
      ...(refused.length ? { refused } : {}),
    };
  },
});

/** A refusal of the recipient (a 5xx to RCPT TO: no such mailbox, suppressed after bounces), not of us. */
const refusesRecipient = (error: unknown): boolean => error instanceof MailRefused && error.refuses === 'recipient';

/** The provider's message key part for an address: a digest (no address in the key the provider keeps). */
const addressKey = (address: string): string =>
  createHash('sha256').update(address.trim().toLowerCase()).digest('base64url').slice(0, 22);

export type SecurityNoticeActivities = ReturnType<typeof createSecurityNoticeActivities>;

/** What a notice says, by the change it tells of. No secret, no link: the person acts in the app they hold. */
export async function noticeText(
  em: EntityManager,
  event: Event,
  options: { newPasskeyHoldSeconds: number; encryption: DataEncryption; role: 'current' | 'previous' },
): Promise<{ subject: string; text: string }> {
  const { newPasskeyHoldSeconds, encryption, role } = options;
  const at = event.createdAt.toISOString();
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'pin.set':
      return {
        subject: 'A PIN was set on your account',
        text: `A transaction PIN was set on your wallet account at ${at}. If this was not you, contact us at once and reset your PIN in the app with your identity verification and ID card.`,
      };
    case 'pin.changed':
      return {
        subject: 'Your PIN was changed',
        text: `The transaction PIN of your wallet account was changed at ${at} with the current PIN. If this was not you, reset your PIN in the app with your identity verification and ID card, and contact us.`,
      };
    case 'pin.reset':
      return {
        subject: 'Your PIN was reset',
        text: `The transaction PIN of your wallet account was reset at ${at} after an identity verification and your ID card. If this was not you, contact us at once.`,
      };
    case 'pin.locked':
      return data.resetRequired
        ? {
            subject: 'Your PIN is locked until you reset it',
            text: `Wrong PINs were entered on your wallet account again and again, the last at ${at}. The PIN stays locked until you reset it in the app with your identity verification and ID card. If this was not you, someone may hold your phone or session: sign out the devices you do not know and contact us.`,
          }
        : {
            subject: 'Your PIN was locked',
            text: `Wrong PINs were entered on your wallet account, the last at ${at}; the PIN is locked until ${String(data.lockedUntil)}. If this was not you, someone may hold your phone or session: sign out the devices you do not know, reset your PIN in the app, and contact us.`,
          };
    case 'email.changed': {
      const change = await em.findOne(EmailChangeEntity, { changeId: event.resourceId });
      const until = change?.undoUntil.toISOString() ?? String(data.undoUntil);
      if (role === 'current')
        return {
          subject: 'This is now the email address of your wallet account',
          text: `This address became the email address of your wallet account at ${at}. Security notices come here from now on.`,
        };
      return {
        subject: 'The email address of your wallet account was changed',
        text:
          `The email address of your wallet account was changed at ${at} to another address. If you did not change it, undo it before ${until}: ` +
          `in the app (Security > Email > Undo) enter change ${event.resourceId} and code ${emailUndoCode(encryption, event.resourceId)}. ` +
          'Until then security notices come to this address too. Then sign out any device you do not know.',
      };
    }
    case 'email.change_undone':
      return {
        subject: 'An email change of your wallet account was undone',
        text: `The change of your wallet account's email address was undone at ${at} from the address it replaced: that address is the account's again.`,
      };
    case 'backup.stored':
      return {
        subject: 'Your wallet backup was replaced',
        text: `A new version (${String(data.version)}) of your encrypted wallet backup was stored from one of your signed-in devices at ${at}. If this was not you, sign that device out in the app (Security > Devices) and contact us.`,
      };
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
    case 'payout.processing': {
      const account = await em.findOne(BankAccountEntity, { bankAccountId: String(data.bankAccountId) });
      const to = account ? `${account.bankName} ${account.maskedAccountNo}` : 'your verified bank account';
      const won = /^\d+$/.test(String(data.amount))
        ? `${BigInt(String(data.amount)).toLocaleString('en-US')} KRW`
        : 'won';
      return data.purpose === 'closure'
        ? {
            subject: 'Your balance is being paid back to your bank account',
            text: `Your wallet account is being closed: its balance of ${won} is being paid to ${to} (payout ${event.resourceId}, asked at ${at}). The account closes once the bank has deposited it. If you did not ask for this, contact us at once.`,
          }
        : {
            subject: 'A payout to your bank account was asked for',
            text: `${won} of your wallet balance is being paid to ${to} (payout ${event.resourceId}, asked at ${at}). It can only go to an account in your own name. If you did not ask for this, change your PIN, sign out the devices you do not know and contact us at once.`,
          };
    }
    default:
      throw new Error(`no notice text for ${event.type}`);
  }
}
