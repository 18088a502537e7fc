import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Koa from 'koa';
import type { Server } from 'node:http';
import { FaultInjector } from '../../sandbox/faults';
import { mailSandbox } from '../../sandbox/mail';
import { SmtpMailer, type SmtpSettings } from '../../integrations/mail/smtp';
import { MailRefused } from '../../integrations/mail/mailer';
import { ProviderUnavailable } from '../../integrations/provider-http';
import { TestCa } from '../helpers/certificates';

interface Reply {
  command: 'AUTH' | 'MAIL' | 'RCPT' | 'DATA';
  code: number;
  text: string;
  means: 'recipient' | 'sender' | 'transient';
}
const REPLIES: Reply[] = JSON.parse(readFileSync(join(__dirname, 'fixtures/smtp/replies.json'), 'utf8'));

/**
 * The SMTP mailer against the sandbox's mail service, a real SMTP server (smtp-server): AUTH, STARTTLS verified
 * against a CA of our own, the Message-ID derived from the message key, and what every reply the RFCs define means
 * (fixtures/smtp/SOURCES.md).
 */
describe('SMTP mailer (RFC 5321) against the sandbox mail service', () => {
  const ca = new TestCa();
  const serverCert = ca.issue('localhost', { server: ['localhost', '127.0.0.1'] });
  const faults = new FaultInjector();
  const plain = mailSandbox({ user: 'wallet', password: 'secret-password', faults });
  const tls = mailSandbox({ user: 'wallet', password: 'secret-password', faults, tls: serverCert });
  const inboxApps = { plain: new Koa().use(plain.router.routes()), tls: new Koa().use(tls.router.routes()) };
  const inboxServers: Partial<Record<keyof typeof inboxApps, Server>> = {};
  let plainPort: number;
  let tlsPort: number;
  const mailers: SmtpMailer[] = [];

  beforeAll(async () => {
    await new Promise<void>((resolve) => plain.smtp.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => tls.smtp.listen(0, '127.0.0.1', resolve));
    plainPort = (plain.smtp.server.address() as AddressInfo).port;
    tlsPort = (tls.smtp.server.address() as AddressInfo).port;
    inboxServers.plain = inboxApps.plain.listen(0, '127.0.0.1');
    inboxServers.tls = inboxApps.tls.listen(0, '127.0.0.1');
  });
  afterEach(() => faults.clear());
  afterAll(async () => {
    for (const mailer of mailers) mailer.close();
    await new Promise<void>((resolve) => plain.smtp.close(() => resolve()));
    await new Promise<void>((resolve) => tls.smtp.close(() => resolve()));
    for (const server of Object.values(inboxServers)) await new Promise((resolve) => server.close(resolve));
    ca.remove();
  });

  const mailer = (settings: Partial<SmtpSettings> = {}) => {
    const made = new SmtpMailer({
      host: '127.0.0.1',
      port: plainPort,
      security: 'none',
      user: 'wallet',
      password: 'secret-password',
      from: 'Wallet <no-reply@wallet.example>',
      timeoutMs: 5000,
      ...settings,
    });
    mailers.push(made);
    return made;
  };
  const inbox = async (address: string, server: keyof typeof inboxApps = 'plain') => {
    const { port } = inboxServers[server]!.address() as AddressInfo;
    const answer = await fetch(`http://127.0.0.1:${port}/mail/v1/_inbox/${encodeURIComponent(address)}`);
    return ((await answer.json()) as { messages: Array<{ messageId: string; subject: string; text: string }> })
      .messages;
  };
  const message = (to: string) => ({ to, subject: 'Your PIN was changed', text: 'Your PIN was changed just now.' });

  it('delivers with AUTH, and the Message-ID is derived from the message key: the same key, the same id', async () => {
    const sent = await mailer().send(message('kim@example.com'), 'notice:evt_1:abc');
    expect(sent.messageId).toMatch(/^<[A-Za-z0-9_-]{32}@wallet\.example>$/);
    const again = await mailer().send(message('kim@example.com'), 'notice:evt_1:abc');
    expect(again.messageId).toBe(sent.messageId);
    expect((await mailer().send(message('kim@example.com'), 'notice:evt_2:abc')).messageId).not.toBe(sent.messageId);
    const delivered = await inbox('kim@example.com');
    expect(delivered.map((m) => m.messageId)).toEqual([
      expect.not.stringMatching(sent.messageId),
      sent.messageId,
      sent.messageId,
    ]);
    expect(delivered[0]).toMatchObject({ subject: 'Your PIN was changed', text: 'Your PIN was changed just now.\n' });
  });

  it('refuses to send with a wrong password as a refusal of us (535), never of the recipient', async () => {
    const refused = await mailer({ password: 'wrong-password' })
      .send(message('lee@example.com'), 'k1')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MailRefused);
    expect(refused).toMatchObject({ refuses: 'sender', replyCode: 535 });
    expect(await inbox('lee@example.com')).toHaveLength(0);
  });

  it.each(REPLIES)('reads $code to $command as $means ($text)', async (reply) => {
    faults.set('mail', { failTimes: 1, status: reply.code, paths: [reply.command], answer: { body: reply.text } });
    const to = `reply.${reply.code}.${reply.command.toLowerCase()}@example.com`;
    const failure = await mailer()
      .send(message(to), `reply-${reply.code}-${reply.command}`)
      .catch((e: unknown) => e);
    if (reply.means === 'transient') {
      expect(failure).toBeInstanceOf(ProviderUnavailable);
      expect((failure as Error).message).toContain(reply.text);
    } else {
      expect(failure).toBeInstanceOf(MailRefused);
      expect(failure).toMatchObject({ refuses: reply.means, replyCode: reply.code });
    }
  });

  it('upgrades with STARTTLS and verifies the server against the configured CA', async () => {
    const sent = await mailer({ port: tlsPort, security: 'starttls', host: 'localhost', tls: { ca: ca.ca.cert } }).send(
      message('park@example.com'),
      'tls-1',
    );
    expect((await inbox('park@example.com', 'tls'))[0]?.messageId).toBe(sent.messageId);
  });

  it('sends nothing to a server whose certificate does not chain to the configured CA', async () => {
    const other = new TestCa('Another CA');
    try {
      const failure = await mailer({
        port: tlsPort,
        security: 'starttls',
        host: 'localhost',
        tls: { ca: other.ca.cert },
      })
        .send(message('choi@example.com'), 'tls-2')
        .catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ProviderUnavailable);
      expect(await inbox('choi@example.com', 'tls')).toHaveLength(0);
    } finally {
      other.remove();
    }
  });

  it('sends nothing in the clear when STARTTLS is required and the server does not offer it', async () => {
    const failure = await mailer({ security: 'starttls' })
      .send(message('jung@example.com'), 'tls-3')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderUnavailable);
    expect(await inbox('jung@example.com')).toHaveLength(0);
  });
});
