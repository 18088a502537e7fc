/**
 * The mailer port: what the service asks of a mail service, in its own words. One adapter per real provider
 * (integrations/mail/smtp.ts: SMTP, which every mail service accepts), chosen by MAIL_PROVIDER.
 */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /**
   * Hands the message to the mail service. `messageKey` names the message (the notice and the address it goes to): the
   * same key always gives the same Message-ID, so a message sent again after an interrupted send is recognisably the
   * same one. The mailer itself promises no more than one attempt; activities/mail-sends.ts records each send.
   */
  send(message: MailMessage, messageKey: string): Promise<{ messageId: string }>;
}

/**
 * The mail service refused the message for good. `recipient`: it refuses the address (no such mailbox, suppressed
 * after bounces): retrying cannot help. `sender`: it refuses us (a wrong password, our domain not allowed): an
 * operator must act, and the send is retried meanwhile. A failure that may pass (a timeout, a 4xx reply) is thrown
 * as a plain error.
 */
export class MailRefused extends Error {
  constructor(
    message: string,
    readonly refuses: 'recipient' | 'sender',
    readonly replyCode?: number,
  ) {
    super(message);
    this.name = 'MailRefused';
  }
}
