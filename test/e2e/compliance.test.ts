import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet, parseEther } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { deployAccount } from '../helpers/wallet';
import { waitFor } from '../helpers/processes';
import {
  EventEntity,
  GasSponsorshipEntity,
  SanctionsListEntity,
  TransferEntity,
  UserPinEntity,
} from '../../db/entities';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';

/** Addresses of the OFAC snapshot (data/ofac-sdn/ETH.txt): what the sandbox's SDN list names at the start of every stack. */
const LISTED = readFileSync(join(__dirname, '..', '..', 'data', 'ofac-sdn', 'ETH.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);

/**
 * Sanctions screening end to end, on a real chain: the SDN list read by the refresh workflow from the sandbox's XML,
 * the screening provider over HTTP, the API's checks before any credential, and the workflow's check before signing.
 */
describe.each(testDatabases())('sanctions screening on $name', (kind) => {
  let stack: TestStack;
  let user: RegisteredUser;
  let account: string;
  const PIN = '482915';
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        OPERATOR_TOKENS: JSON.stringify({ compliance: operatorTokenHash(operatorToken) }),
        TRANSFER_WAIT_SECONDS: '3',
        SCREENING_TIMEOUT_MS: '1000',
      },
    });
    user = await registerUser(stack, undefined, { pin: PIN });
    account = await deployAccount(stack, user, Wallet.createRandom(), 'ETHEREUM');
    const chain = stack.chains[0]!;
    await (
      await chain.funder.sendTransaction({
        to: account,
        value: parseEther('1'),
        nonce: await chain.provider.getTransactionCount(chain.funder.address, 'latest'),
      })
    ).wait();
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => stack.faults.clear());

  const body = (to: string, amount = '0.01'): TransferFields => ({
    to_address: to,
    network: 'ETHEREUM',
    token: 'ETH',
    amount,
  });
  const prepare = (to: string) =>
    callApi(stack, '/api/v1/transfer/crypto/prepare', user, { json: body(to), key: randomUUID() });
  const execute = async (to: string, pin = PIN, key = randomUUID()) =>
    callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { pin: await transferPin(stack, pin, body(to), key), ...body(to) },
      key,
    });
  const addRecipient = (address: string) =>
    callApi(stack, '/api/v1/transfer/address-book', user, { json: { network: 'ETHEREUM', address } });
  const operator = (path: string, init: { method?: string; json?: unknown } = {}) =>
    call(`${stack.apiUrl}${path}`, { ...init, headers: asOperator });
  const cases = async () =>
    (await operator(`/v1/compliance/cases?userId=${user.userId}`)).body.items as Array<Record<string, unknown>>;
  const refreshList = async () => {
    const before = (await operator('/v1/compliance/sanctions-list')).body.refreshedAt as string;
    expect((await operator('/v1/compliance/sanctions-list/refresh', { method: 'POST' })).status).toBe(202);
    await waitFor(
      async () => (await operator('/v1/compliance/sanctions-list')).body.refreshedAt !== before,
      30_000,
      'the list refreshed',
    );
    return (await operator('/v1/compliance/sanctions-list')).body;
  };

  it('refuses a sanctioned recipient at prepare, at execute before the PIN (no attempt spent) and in the address book: one case, nothing on chain', async () => {
    const listed = LISTED[0]!;
    const prepared = await prepare(listed.toLowerCase());
    expect([prepared.status, prepared.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect(prepared.body.programme).toBe('OFAC SDN');
    // Nothing of the entry beyond the programme: no asset tag, no list date, no source.
    expect(JSON.stringify(prepared.body)).not.toMatch(/USDT|2024-09-27|ofac-sdn/);

    const executed = await execute(listed, '000000'); // a wrong PIN: were it checked, an attempt would be spent
    expect([executed.status, executed.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);
    const added = await addRecipient(listed);
    expect([added.status, added.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect((await callApi(stack, '/api/v1/transfer/address-book', user)).body.items).toEqual([]);

    expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(0);
    expect(await stack.chains[0]!.provider.getBalance(listed)).toBe(0n);
    // Three refusals of one finding: one case, told once.
    const opened = (await cases()).filter((c) => c.address === listed);
    expect(opened).toEqual([
      expect.objectContaining({
        kind: 'sanctions_hit',
        status: 'open',
        networkId: 'ETHEREUM',
        source: 'ofac-sdn',
        programme: 'OFAC SDN',
        foundAt: 'prepare',
        transferId: null,
      }),
    ]);
    const events = await stack.orm.em
      .fork()
      .find(EventEntity, { type: 'compliance.case_opened', resourceId: opened[0]!.caseId as string });
    expect(events.map((e) => e.data)).toEqual([
      { caseId: opened[0]!.caseId, kind: 'sanctions_hit', transferId: null, programme: 'OFAC SDN' },
    ]);
    expect((await operator(`/v1/compliance/cases/${opened[0]!.caseId as string}`)).body).toEqual(opened[0]);
  });

  it('follows the list: a refresh that delists an address lets it receive, one that lists it again refuses it', async () => {
    const address = LISTED[1]!;
    const first = (await operator('/v1/compliance/sanctions-list')).body;
    expect(first).toMatchObject({
      source: 'ofac-sdn',
      listDate: '2024-09-27',
      status: 'current',
      provider: 'configured',
    });
    expect((await prepare(address)).status).toBe(422);

    expect((await call(`${stack.sandboxUrl}/ofac/_entries/${address}`, { method: 'DELETE' })).status).toBe(204);
    const delisted = await refreshList();
    expect(delisted.addressCount).toBe(first.addressCount - 1);
    expect((await prepare(address)).status).toBe(200);
    const sent = await execute(address);
    // Accepted; included within TRANSFER_WAIT_SECONDS (3 here) or, on a busy machine, soon after (202, then polled).
    expect([200, 202]).toContain(sent.status);
    await waitFor(
      async () =>
        INCLUDED.test(
          (await callApi(stack, `/api/v1/transfer/crypto/${sent.body.transfer_id}`, user)).body.status as string,
        ),
      60_000,
      'the transfer to the delisted address included',
    );
    expect(await stack.chains[0]!.provider.getBalance(address)).toBe(parseEther('0.01'));

    await call(`${stack.sandboxUrl}/ofac/_entries/${address}`, { method: 'PUT', json: { asset: 'ETH' } });
    await call(`${stack.sandboxUrl}/ofac/_date`, { method: 'PUT', json: { date: '2026-11-24' } });
    const relisted = await refreshList();
    expect(relisted).toMatchObject({ addressCount: first.addressCount, listDate: '2026-11-24' });
    expect((await prepare(address)).body.type).toBe('/problems/recipient-sanctioned');
  });

  it('screens again just before signing: a recipient named after the API let it through fails the transfer, nothing signed', async () => {
    const recipient = Wallet.createRandom().address;
    await stack.stopWorker();
    let transferId: string;
    try {
      const accepted = await execute(recipient);
      expect([accepted.status, accepted.body.status]).toEqual([202, 'processing']);
      transferId = accepted.body.transfer_id;
      // Named by the screening provider while the transfer waits for a worker.
      await call(`${stack.sandboxUrl}/chainalysis/_addresses/${recipient}`, {
        method: 'PUT',
        json: { category: 'sanctions' },
      });
    } finally {
      await stack.startWorker();
    }
    await waitFor(
      async () => (await callApi(stack, `/api/v1/transfer/crypto/${transferId!}`, user)).body.status === 'failed',
      30_000,
      'the transfer failed',
    );
    const failed = (await callApi(stack, `/api/v1/transfer/crypto/${transferId!}`, user)).body;
    expect(failed).toMatchObject({
      status: 'failed',
      tx_hash: '',
      error: expect.stringContaining('sanctions screening: SANCTIONS'),
    });
    const row = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId: transferId! });
    expect([row.userOperation ?? null, row.userOpHash ?? null]).toEqual([null, null]); // never signed
    // The screening ran beside the signing's reads; nothing was sponsored before it answered (nor after).
    expect(await stack.orm.em.fork().count(GasSponsorshipEntity, { sponsorshipId: `transfer:${transferId!}` })).toBe(0);
    expect(await stack.chains[0]!.provider.getBalance(recipient)).toBe(0n);
    expect((await cases()).filter((c) => c.transferId === transferId!)).toEqual([
      expect.objectContaining({
        kind: 'sanctions_hit',
        source: 'screening-provider',
        programme: 'SANCTIONS',
        foundAt: 'workflow',
        address: recipient,
      }),
    ]);
    // The same address is refused up front from now on.
    expect((await prepare(recipient)).body.type).toBe('/problems/recipient-sanctioned');
  });

  it('fails closed: the provider down or slow, or a list older than allowed, refuses with 503 and Retry-After, never sends unscreened', async () => {
    const recipient = Wallet.createRandom().address;
    stack.faults.set('chainalysis', { failTimes: 1000, status: 503 });
    for (const answer of [
      await prepare(recipient),
      await execute(recipient, '000000'),
      await addRecipient(recipient),
    ]) {
      expect([answer.status, answer.body.type, answer.headers.get('retry-after')]).toEqual([
        503,
        '/problems/screening-unavailable',
        '30',
      ]);
    }
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);
    // A listed address needs no provider: still refused as sanctioned while the provider is down.
    expect((await prepare(LISTED[2]!)).body.type).toBe('/problems/recipient-sanctioned');

    stack.faults.set('chainalysis', { delayMs: 2500 }); // past SCREENING_TIMEOUT_MS
    expect((await prepare(recipient)).status).toBe(503);
    stack.faults.clear();
    expect((await prepare(recipient)).status).toBe(200);

    // The list not refreshed for longer than SANCTIONS_LIST_MAX_AGE_HOURS (48 h): stale, every screening refused.
    await stack.orm.em
      .fork()
      .nativeUpdate(SanctionsListEntity, { source: 'ofac-sdn' }, { refreshedAt: new Date(Date.now() - 49 * 3600_000) });
    expect((await operator('/v1/compliance/sanctions-list')).body.status).toBe('stale');
    expect((await prepare(recipient)).status).toBe(503);
    expect((await refreshList()).status).toBe('current');
    expect((await prepare(recipient)).status).toBe(200);
    expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId, toAddress: recipient })).toBe(0);
  });

  it('keeps its routes for operators: a user token or none is refused', async () => {
    for (const path of ['/v1/compliance/cases', '/v1/compliance/sanctions-list']) {
      expect((await call(`${stack.apiUrl}${path}`)).status).toBe(401);
      expect(
        (await call(`${stack.apiUrl}${path}`, { headers: { authorization: `Bearer ${user.accessToken}` } })).status,
      ).toBe(401);
    }
    expect(
      (
        await call(`${stack.apiUrl}/v1/compliance/sanctions-list/refresh`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.accessToken}` },
        })
      ).status,
    ).toBe(401);
    expect((await operator(`/v1/compliance/cases/case_${randomUUID()}`)).status).toBe(404);
    expect((await operator('/v1/compliance/cases?status=unknown')).status).toBe(400);
  });
});
