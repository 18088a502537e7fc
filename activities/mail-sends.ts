import type { Orm } from '../db/orm';
import { MailSendEntity } from '../db/entities';
import type { Mailer, MailMessage } from '../integrations/mail/mailer';
import { clock } from '../platform/clock';

/**
 * Mails a message at least once per message key, and once only unless a send is cut off. SMTP takes no idempotency
 * key, so the send is recorded: `sending` before the message is handed over, `sent` once the server accepted it. A
 * retry of a key already `sent` sends nothing; a retry of one left `sending` (the worker died, or the connection
 * dropped, after the server may have taken the message) sends it again, with the same Message-ID, so the person
 * may get it twice but never misses it. At least once is the guarantee chosen: a security notice or a code that
 * never arrives is worse than one that arrives twice (and mail clients collapse repeats of one Message-ID).
 */
export async function mailOnce(
  orm: Orm,
  mailer: Mailer,
  message: MailMessage,
  messageKey: string,
): Promise<{ messageId: string; resent: boolean }> {
  const em = orm.em.fork();
  const earlier = await em.findOne(MailSendEntity, { messageKey });
  if (earlier?.status === 'sent') return { messageId: earlier.messageId, resent: false };
  if (earlier) await em.nativeUpdate(MailSendEntity, { messageKey }, { attempts: earlier.attempts + 1 });
  else
    await em.insert(MailSendEntity, {
      messageKey,
      messageId: '',
      status: 'sending',
      attempts: 1,
      createdAt: clock.date(),
      sentAt: null,
    });
  const { messageId } = await mailer.send(message, messageKey);
  await em.nativeUpdate(MailSendEntity, { messageKey }, { status: 'sent', messageId, sentAt: clock.date() });
  return { messageId, resent: !!earlier };
}
