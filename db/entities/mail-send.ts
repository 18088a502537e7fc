import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A mail handed to the mail service, by its message key (the notice or verification and the address it goes to). SMTP
 * has no idempotency key: this record is what keeps a retried activity from mailing a message it already sent
 * (`sent`), and tells that an earlier attempt may have (`sending`: it was cut off before the server's answer was
 * recorded, so the message goes again, with the same Message-ID). Holds no address and no text.
 */
export const MailSendEntity = defineEntity({
  name: 'MailSend',
  tableName: 'mail_sends',
  properties: (p) => ({
    messageKey: p.string().primary().length(128),
    messageId: p.string().length(255),
    status: p.enum(['sending', 'sent'] as const),
    attempts: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => clock.date()),
    sentAt: p.datetime().nullable(),
  }),
});
export type MailSend = InferEntity<typeof MailSendEntity>;
