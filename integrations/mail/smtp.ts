import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { ProviderUnavailable } from '../provider-http';
import { MailRefused, type Mailer, type MailMessage } from './mailer';

/**
 * `starttls`: plain connection upgraded with STARTTLS, refused if the server does not offer it (port 587);
 * `tls`: TLS from the first byte (port 465); `none`: no encryption (a relay on loopback, the sandbox; not in production).
 */
export type SmtpSecurity = 'starttls' | 'tls' | 'none';

export interface SmtpSettings {
  host: string;
  port: number;
  security: SmtpSecurity;
  user?: string;
  password?: string;
  from: string;
  timeoutMs: number;
  /** Our client certificate for servers that ask for one, and the CA the server's certificate must chain to. */
  tls?: { cert?: string; key?: string; ca?: string };
}

/** The domain of the sender (`Wallet <no-reply@wallet.example>` -> wallet.example): Message-IDs are ours. */
const domainOf = (from: string): string => /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';

/**
 * Mail over SMTP (RFC 5321) with nodemailer: every mail service accepts it (a company relay, SES, SendGrid, Naver
 * Works, ...). The Message-ID is derived from the message key, so a message sent again after a send that was cut off
 * carries the same Message-ID as the first (RFC 5322: one message, one id; receiving clients collapse repeats of it).
 *
 * Replies are read as RFC 5321 defines them: a 5xx to RCPT TO refuses the recipient for good; a 5xx to anything else
 * (AUTH, MAIL FROM, DATA) refuses us; a 4xx, a timeout or a dropped connection may pass and is thrown to be retried.
 */
export class SmtpMailer implements Mailer {
  /** nodemailer's transport, made on the first message (a process that mails nothing does not load it). */
  private transportMade?: Promise<Transporter>;
  private readonly domain: string;

  constructor(private readonly settings: SmtpSettings) {
    this.domain = domainOf(settings.from);
  }

  /** The Message-ID a message key is sent with. */
  messageIdOf(messageKey: string): string {
    return `<${createHash('sha256').update(messageKey).digest('base64url').slice(0, 32)}@${this.domain}>`;
  }

  private transport(): Promise<Transporter> {
    return (this.transportMade ??= this.makeTransport());
  }

  private async makeTransport(): Promise<Transporter> {
    const { createTransport } = await import('nodemailer');
    const { settings } = this;
    return createTransport({
      host: settings.host,
      port: settings.port,
      secure: settings.security === 'tls',
      requireTLS: settings.security === 'starttls',
      ignoreTLS: settings.security === 'none',
      ...(settings.user ? { auth: { user: settings.user, pass: settings.password ?? '' } } : {}),
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
      tls: { ...settings.tls, servername: settings.host, minVersion: 'TLSv1.2' },
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(message: MailMessage, messageKey: string): Promise<{ messageId: string }> {
    const messageId = this.messageIdOf(messageKey);
    try {
      const transport = await this.transport();
      await transport.sendMail({
        from: this.settings.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        messageId,
        headers: { 'auto-submitted': 'auto-generated' },
      });
      return { messageId };
    } catch (error) {
      throw smtpFailure(error as SmtpError, message.to);
    }
  }

  close(): void {
    void this.transportMade?.then((transport) => transport.close());
  }
}

interface SmtpError extends Error {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  rejectedErrors?: SmtpError[];
}

/** What a failed send means, by the reply (RFC 5321 4.2.1: 4yz transient, 5yz permanent) and the command it ended. */
function smtpFailure(error: SmtpError, to: string): Error {
  // No encryption could be agreed (no STARTTLS offered, a certificate that does not verify): nothing was sent in clear.
  if (error.code === 'ETLS')
    return new ProviderUnavailable(`TLS with the mail service failed: ${error.message.slice(0, 200)}`, {
      cause: error,
    });
  const refusal = error.rejectedErrors?.[0] ?? error;
  const code = refusal.responseCode ?? error.responseCode;
  const reply = (refusal.response ?? error.message).slice(0, 200);
  if (code !== undefined && code >= 500 && code < 600) {
    const atRecipient = /^RCPT/i.test(error.command ?? refusal.command ?? '');
    return new MailRefused(
      atRecipient
        ? `the mail service refuses ${to.replace(/^(.).*@/, '$1***@')}: ${reply}`
        : `the mail service refuses us: ${reply}`,
      atRecipient ? 'recipient' : 'sender',
      code,
    );
  }
  return new ProviderUnavailable(`the mail service did not take the message (${error.code ?? 'error'}): ${reply}`, {
    cause: error,
  });
}
