import Router from '@koa/router';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { FaultInjector, FaultSettings } from './faults';

interface StoredMessage {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  sentAt: string;
}

export interface MailSandboxOptions {
  /** SMTP AUTH credentials the service must present (MAIL_SMTP_USER / MAIL_SMTP_PASSWORD). */
  user: string;
  password: string;
  /** PEM key and certificate: STARTTLS offered with them (and required of nobody); without them, no STARTTLS. */
  tls?: { key: string; cert: string };
  faults: FaultInjector;
  log?: (line: string) => void;
}

/** The SMTP command a mail fault applies to (`paths` of PUT /_faults/mail; RCPT by default). */
type FaultCommand = 'AUTH' | 'MAIL' | 'RCPT' | 'DATA';

const replyError = (code: number, text: string): Error => Object.assign(new Error(text), { responseCode: code });

/**
 * Stand-in for a mail service: a real SMTP server (the `smtp-server` package: EHLO, AUTH PLAIN/LOGIN, STARTTLS when
 * given a certificate, MAIL FROM, RCPT TO, DATA), as every mail service accepts mail. Nothing leaves the machine: what
 * it accepts is kept, and `GET /mail/v1/_inbox/{address}` shows what was delivered to an address, newest first
 * (tests, walk-throughs). Faults (`PUT /_faults/mail`): `status` is an SMTP reply code (451 a transient refusal, 550
 * a refused mailbox, 535 refused credentials) with the text `answer.body` when given, at the command named in `paths`
 * (AUTH, MAIL, RCPT, DATA; RCPT by default) for `failTimes` calls or at `errorRate`, only to a recipient containing
 * `bodyIncludes` when set;
 * `delayMs` holds the answer to DATA after the message was kept (a server that took the message but answered late).
 */
export function mailSandbox(options: MailSandboxOptions): { smtp: SMTPServer; router: Router } {
  const inbox: StoredMessage[] = [];

  /** Whether the fault settings make this command fail now (counting a `failTimes` fault down). */
  const faultAt = (command: FaultCommand, recipient?: string): FaultSettings | undefined => {
    const fault = options.faults.get('mail');
    if (!fault?.status) return undefined;
    const commands = (fault.paths?.length ? fault.paths : ['RCPT']).map((p) => p.replace(/^\//, '').toUpperCase());
    if (!commands.includes(command)) return undefined;
    if (fault.bodyIncludes !== undefined && !(recipient ?? '').includes(fault.bodyIncludes)) return undefined;
    const now = (fault.failTimes ?? 0) > 0 || (fault.errorRate ?? 0) > Math.random();
    if (!now) return undefined;
    if (fault.failTimes) fault.failTimes -= 1;
    return fault;
  };
  const refuseIf = (command: FaultCommand, recipient?: string): Error | undefined => {
    const fault = faultAt(command, recipient);
    if (!fault) return undefined;
    const text = typeof fault.answer?.body === 'string' ? fault.answer.body : `injected fault at ${command}`;
    return replyError(fault.status!, text);
  };

  const smtp = new SMTPServer({
    name: 'mail.sandbox.local',
    banner: 'wallet sandbox mail service',
    logger: false,
    authMethods: ['PLAIN', 'LOGIN'],
    size: 1024 * 1024,
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : { disabledCommands: ['STARTTLS'] }),
    // AUTH over a connection without TLS is allowed here only because the sandbox listens on loopback.
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      const refused = refuseIf('AUTH');
      if (refused) return callback(refused);
      if (auth.username !== options.user || auth.password !== options.password)
        return callback(replyError(535, '5.7.8 Authentication credentials invalid'));
      callback(null, { user: auth.username });
    },
    onMailFrom(_address, session, callback) {
      if (!session.user) return callback(replyError(530, '5.7.0 Authentication required'));
      callback(refuseIf('MAIL'));
    },
    onRcptTo(address, _session, callback) {
      callback(refuseIf('RCPT', address.address.toLowerCase()));
    },
    onData(stream, session, callback) {
      void receive(stream, session).then(
        async () => {
          const delay = options.faults.get('mail')?.delayMs;
          if (delay) await new Promise((r) => setTimeout(r, delay));
          callback(refuseIf('DATA'));
        },
        (error: Error) => callback(replyError(451, `4.3.0 ${error.message}`)),
      );
    },
  });
  smtp.on('error', (error) => options.log?.(`smtp: ${error.message}`));

  async function receive(stream: NodeJS.ReadableStream, session: SMTPServerSession): Promise<void> {
    const parsed = await simpleParser(stream as never);
    const from = parsed.from?.text ?? '';
    for (const recipient of session.envelope.rcptTo) {
      inbox.unshift({
        messageId: parsed.messageId ?? '',
        from,
        to: recipient.address.toLowerCase(),
        subject: parsed.subject ?? '',
        text: parsed.text ?? '',
        sentAt: new Date().toISOString(),
      });
      options.log?.(`mail to ${recipient.address}: ${parsed.subject ?? ''}`);
    }
  }

  const router = new Router({ prefix: '/mail/v1' });
  router.get('/_inbox/:address', (ctx) => {
    const address = ctx.params.address!.toLowerCase();
    ctx.body = { messages: inbox.filter((m) => m.to === address) };
  });
  return { smtp, router };
}
