import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Wallet, parseEther } from 'ethers';
import {
  createWalletClient,
  idempotencyKey,
  pages,
  poll,
  verifyWebhook,
  withRetries,
  type WalletClient,
} from '@wallet-service/client';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { deployAccount } from '../helpers/wallet';
import { INCLUDED } from '../helpers/transfers';
import { waitFor } from '../helpers/processes';
import { connectBankAccount, openBankAccount } from '../helpers/bank';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { verifiedIdentityCheck } from '../helpers/identity-checks';
import { pinSetRequest } from '../helpers/pin';

interface Delivery {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * An app built on the typed client (clients/typescript), as its README shows it: registration, a PIN, a wallet
 * deployed, a transfer approved by the PIN and polled until included, the same request retried without a second
 * transfer, and its events received by a webhook endpoint and verified with the client's helper.
 */
describe('an app on the typed client', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  let app: WalletClient;
  let operator: WalletClient;
  let receiver: Server;
  const deliveries: Delivery[] = [];
  const operatorToken = newOperatorToken();
  const PIN = '730519';

  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      env: {
        OPERATOR_TOKENS: JSON.stringify({ app: operatorTokenHash(operatorToken) }),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_POLL_SECONDS: '0.2',
      },
    });
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        deliveries.push({ body: Buffer.concat(chunks).toString('utf8'), headers: request.headers });
        response.writeHead(204).end();
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    user = await registerUser(stack, undefined, { pin: null }); // through the client (test/helpers/http.ts)
    app = createWalletClient({ baseUrl: stack.apiUrl, accessToken: user.accessToken });
    operator = createWalletClient({ baseUrl: stack.apiUrl, accessToken: operatorToken });
  });
  afterAll(async () => {
    receiver?.close();
    await stack?.stop();
  });

  it('registers, sets a PIN, deploys a wallet and makes a transfer, retried once without a second transfer', async () => {
    const { data: endpoint } = await operator.POST('/v1/webhooks/endpoints', {
      body: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        eventTypes: ['transfer.submitted', 'transfer.confirmed'],
      },
    });
    expect(endpoint?.secret).toMatch(/^whsec_/);

    const profile = await app.GET('/v1/account/profile');
    expect(profile.data).toMatchObject({ userId: user.userId, status: 'active' });
    // After registration the first PIN needs a fresh identity check (the person verified again on this phone).
    const firstPin = await app.pin.encrypt(PIN);
    const identityCheckId = await verifiedIdentityCheck(stack, user, pinSetRequest(firstPin));
    const pinSet = await app.POST('/api/v1/pin', { body: { pin: firstPin, identityCheckId } });
    expect(pinSet.response.status).toBe(201);
    user.pin = PIN;

    const account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM'); // through the client
    const chain = stack.chains[0]!;
    await (await chain.funder.sendTransaction({ to: account, value: parseEther('1') })).wait();

    const fields = {
      to_address: Wallet.createRandom().address,
      network: 'ETHEREUM' as const,
      token: 'ETH',
      amount: '0.01',
    };
    const key = idempotencyKey();
    const pin = await app.pin.forTransfer(PIN, fields, key);
    const send = () =>
      app.POST('/api/v1/transfer/crypto/execute', {
        params: { header: { 'idempotency-key': key } },
        body: { ...fields, pin },
      });
    const first = await withRetries(send);
    expect([200, 202]).toContain(first.response.status);
    const transferId = first.data!.data.transfer_id;
    // The app's retry after a lost answer: the same key, the same answer, no second transfer.
    const again = await withRetries(send);
    expect(again.data!.data.transfer_id).toBe(transferId);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');

    const done = await poll(
      () => app.GET('/api/v1/transfer/crypto/{transferId}', { params: { path: { transferId } } }),
      (answer) => INCLUDED.test(answer.data.status),
      { timeoutMs: 120_000, what: `transfer ${transferId}` },
    );
    expect(done.data.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.provider.getBalance(fields.to_address)).toBe(parseEther('0.01'));

    await waitFor(() => deliveries.length >= 2, 60_000, "the transfer's webhooks");
    const events = deliveries.map((d) => verifyWebhook(endpoint!.secret, d.body, d.headers));
    expect(events.map((e) => [e.type, e.resource.id])).toEqual([
      ['transfer.submitted', transferId],
      ['transfer.confirmed', transferId],
    ]);
    const confirmed = events[1]!;
    // The event is typed by its `type` (the document's webhooks): its data's fields are known.
    if (confirmed.type !== 'transfer.confirmed') throw new Error(`expected transfer.confirmed, got ${confirmed.type}`);
    expect(confirmed.data).toMatchObject({
      transferId,
      networkId: 'ETHEREUM',
      token: 'ETH',
      txHash: done.data.tx_hash,
    });
    // What the helper refuses: a tampered body, another secret.
    expect(() =>
      verifyWebhook(endpoint!.secret, deliveries[0]!.body.replace(transferId, 'tr_forged'), deliveries[0]!.headers),
    ).toThrow();
    expect(() =>
      verifyWebhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, deliveries[0]!.body, deliveries[0]!.headers),
    ).toThrow();
    // A rotation's overlap: either secret verifies.
    expect(
      verifyWebhook(
        [`whsec_${Buffer.alloc(32, 7).toString('base64')}`, endpoint!.secret],
        deliveries[0]!.body,
        deliveries[0]!.headers,
      ).id,
    ).toBe(events[0]!.id);

    const listed = await operator.GET('/v1/events', {
      params: { query: { type: 'transfer.submitted,transfer.confirmed', limit: 50 } },
    });
    expect(listed.data!.items.filter((e) => e.resource.id === transferId).map((e) => e.id)).toEqual(
      events.map((e) => e.id),
    );
    // The same events one page of one at a time, through `pages`: every one once, in order.
    const paged: string[] = [];
    for await (const event of pages((cursor) =>
      operator.GET('/v1/events', {
        params: { query: { type: 'transfer.submitted,transfer.confirmed', limit: 1, cursor } },
      }),
    ))
      paged.push(event.id);
    expect(paged).toEqual(listed.data!.items.map((e) => e.id));
  });

  it('connects a bank account, charges won and polls the charge to completion, the balance credited once', async () => {
    const account = await openBankAccount(stack, user.person, 1_000_000);
    const connected = await connectBankAccount(stack, user, account); // through the client (test/helpers/bank.ts)
    expect(connected).toMatchObject({ bank_code: account.bankCode });
    const key = idempotencyKey();
    const send = () =>
      app.POST('/api/v1/charge/execute', {
        params: { header: { 'idempotency-key': key } },
        body: { source: account.bankCode, amount: '50000', currency: 'KRW' },
      });
    const accepted = await withRetries(send);
    expect(accepted.response.status).toBe(202);
    const chargeId = accepted.data!.data.charge_id;
    expect((await withRetries(send)).data!.data.charge_id).toBe(chargeId); // the retry: the same charge
    const charge = await poll(
      () => app.GET('/api/v1/charge/{chargeId}', { params: { path: { chargeId } } }),
      (answer) => answer.data.status !== 'processing',
      { timeoutMs: 60_000, what: `charge ${chargeId}` },
    );
    expect(charge.data.status).toBe('completed');
    const balance = await app.GET('/api/v1/balance');
    expect(balance.data!.data.balances.find((b) => b.currency === 'KRW')).toMatchObject({ amount: '50000' });
    // The history (an /api/v1 list: snake_case paging in the envelope), one item a page through `pages`.
    const history: string[] = [];
    for await (const item of pages((cursor) =>
      app.GET('/api/v1/transactions', { params: { query: { limit: 1, cursor } } }),
    ))
      history.push(item.reference);
    expect(history).toContain(chargeId);
    expect(new Set(history).size).toBe(history.length);
  });

  it('answers a refusal as typed data: the problem the service sent, no exception', async () => {
    const refused = await app.POST('/api/v1/transfer/crypto/execute', {
      params: { header: { 'idempotency-key': idempotencyKey() } },
      body: {
        to_address: 'not-an-address',
        network: 'ETHEREUM',
        token: 'ETH',
        amount: '0.01',
        pin: await app.pin.encrypt(PIN),
      },
    });
    expect(refused.data).toBeUndefined();
    expect(refused.response.status).toBe(422);
    expect(refused.error).toMatchObject({ status: 'error' });
  });
});
