import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';
import { consentAtBankPage, openBankAccount } from '../helpers/bank';
import { bearer } from '../helpers/wallet';
import { BankVerificationEntity } from '../../db/entities';

/**
 * A provider that answers as a compromised one would: a redirect to an internal address (where a followed request
 * would carry its body, e.g. a bank account number or an authorization code with our client secret), or an answer
 * without end. The service follows no redirect, reads no more than it needs, and fails typed (503), changing nothing.
 */
describe('answers of a hostile provider', () => {
  let stack: TestStack;
  let trap: Server;
  let trapUrl: string;
  const trapped: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  beforeAll(async () => {
    trap = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', () => {
        trapped.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
    trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}/internal/collect`;
    stack = await startTestStack(testDatabases()[0]!);
  });
  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => trap?.close(resolve));
  });
  afterEach(async () => {
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  });

  it('follows no redirect: the bank account number, the consent code and our client secret are never sent to where a provider points', async () => {
    const user = await registerUser(stack);
    const account = await openBankAccount(stack, user.person, 1000);
    await call(`${stack.sandboxUrl}/_faults/bank`, { method: 'PUT', json: { redirectTo: trapUrl } });
    const sent = await call(`${stack.apiUrl}/api/v1/bank/send-won`, {
      headers: bearer(user),
      json: { bank_code: account.bankCode, account_no: account.accountNo },
    });
    expect(sent.status).toBe(503);
    expect(await stack.orm.em.fork().count(BankVerificationEntity, { userId: user.userId })).toBe(0);

    // The bank's token endpoint, pointing elsewhere as a person comes back from consenting: the authorization code
    // and our client secret stay here, and the consent waits (503) rather than taking an answer from elsewhere.
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
    const back = await consentAtBankPage(stack, user, user.person, account);
    await call(`${stack.sandboxUrl}/_faults/bank`, {
      method: 'PUT',
      json: { redirectTo: trapUrl, paths: ['/oauth/2.0/token'] },
    });
    expect((await call(back)).status).toBe(503);
    expect((await call(`${stack.apiUrl}/api/v1/bank/consent`, { headers: bearer(user) })).body.data.status).toBe(
      'pending',
    );
    expect(trapped).toEqual([]);

    // With the provider sound again, the same requests go through.
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
    expect(
      (
        await call(`${stack.apiUrl}/api/v1/bank/send-won`, {
          headers: bearer(user),
          json: { bank_code: account.bankCode, account_no: account.accountNo },
        })
      ).status,
    ).toBe(200);
  });

  it('reads no more of an answer than the client allows: an endless answer is a typed failure, not a process out of memory', async () => {
    const user = await registerUser(stack);
    const account = await openBankAccount(stack, user.person, 1000);
    await call(`${stack.sandboxUrl}/_faults/bank`, { method: 'PUT', json: { bodyBytes: 200 * 1024 * 1024 } });
    const sent = await call(`${stack.apiUrl}/api/v1/bank/send-won`, {
      headers: bearer(user),
      json: { bank_code: account.bankCode, account_no: account.accountNo },
    });
    expect([sent.status, sent.body.status]).toEqual([503, 'error']);
    // The client stopped at its cap (1 MiB); what the socket buffered on the way is all the provider got to send.
    const { bytesServed } = (await call(`${stack.sandboxUrl}/_faults/bank`)).body;
    expect(bytesServed).toBeGreaterThan(1024 * 1024);
    expect(bytesServed).toBeLessThan(16 * 1024 * 1024);
    await call(`${stack.sandboxUrl}/_faults/prices`, { method: 'PUT', json: { bodyBytes: 50 * 1024 * 1024 } });
    const chart = await call(`${stack.apiUrl}/api/v1/market-price?asset=ETH`, { headers: bearer(user) });
    expect(chart.status).toBe(503);
  });
});
