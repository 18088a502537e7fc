import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';
import { encryptPin } from '../helpers/pin';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { MailSendEntity } from '../../db/entities';

interface Delivered {
  messageId: string;
  subject: string;
  text: string;
}

/**
 * Mail over SMTP has no idempotency key: the service records each send and promises at least once per message (a
 * code or a notice that never arrives is worse than one that arrives twice). Drilled here: the worker process is
 * SIGKILLed after the mail service took the message but before it answered; the message goes again, with the same
 * Message-ID, and the send ends recorded once.
 */
describe('mail delivery across a worker killed mid-send', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const inbox = async (email: string): Promise<Delivered[]> =>
    (await call(`${stack.sandboxUrl}/mail/v1/_inbox/${encodeURIComponent(email)}`)).body.messages;

  it('mails the code again with the same Message-ID: at least once, never lost, recorded as sent', async () => {
    const user = await registerUser(stack);
    const email = `drill.${randomUUID().slice(0, 8)}@example.com`;
    await stack.stopWorker();
    const workers: ServiceProcess[] = [];
    try {
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      // The mail service keeps the message, then holds its answer to DATA: the worker dies before it hears it.
      await call(`${stack.sandboxUrl}/_faults/mail`, { method: 'PUT', json: { delayMs: 60_000 } });
      const request = { action: 'email_change', email };
      const requested = call(`${stack.apiUrl}/v1/account/email`, {
        headers: { authorization: `Bearer ${user.accessToken}` },
        json: { email, pin: await encryptPin(stack, user.pin!, { request }) },
      });
      await waitFor(async () => (await inbox(email)).length === 1, 60_000, 'the mail service took the message');
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull();
      await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));

      const answered = await requested;
      expect(answered.status).toBe(200);
      const delivered = await inbox(email);
      expect(delivered).toHaveLength(2);
      expect(delivered[0]!.messageId).toMatch(/^<[A-Za-z0-9_-]{32}@/);
      expect(delivered[1]!.messageId).toBe(delivered[0]!.messageId);
      expect(delivered[1]!.text).toBe(delivered[0]!.text);
      const sends = await stack.orm.em
        .fork()
        .find(MailSendEntity, { messageKey: `email-verification:${answered.body.verificationId}` });
      expect(sends.map((s) => [s.status, s.attempts, s.messageId])).toEqual([['sent', 2, delivered[0]!.messageId]]);

      // The code of either copy confirms the address.
      const code = /code is (\d{6})/.exec(delivered[0]!.text)![1]!;
      const confirmed = await call(`${stack.apiUrl}/v1/account/email/confirm`, {
        headers: { authorization: `Bearer ${user.accessToken}` },
        json: { verificationId: answered.body.verificationId, code },
      });
      expect(confirmed.status).toBe(200);
    } finally {
      await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await stack.startWorker();
    }
  });
});
