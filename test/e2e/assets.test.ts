import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { bearer } from '../helpers/wallet';
import { priceAt } from '../../sandbox/prices';

describe.each(testDatabases())('asset views on %s', (database) => {
  let stack: TestStack;
  let user: RegisteredUser;
  let stranger: RegisteredUser;
  beforeAll(async () => {
    stack = await startTestStack(database);
    [user, stranger] = [await registerUser(stack), await registerUser(stack)];
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  });
  const api = (path: string, u: RegisteredUser, init: { json?: unknown; method?: string } = {}) =>
    callApi(stack, path, u, init);

  it('computes market price statistics over the window from the price feed', async () => {
    const { status, body } = await api('/api/v1/market-price?asset=ETH&window=7d', user);
    expect(status).toBe(200);
    // The sandbox series is deterministic; recompute the statistics by hand for the window that ends at the last full hour.
    const expectedFor = (toHour: number) => {
      const prices = Array.from({ length: 24 * 7 + 1 }, (_, i) => priceAt('ETH', toHour - 24 * 7 + i));
      const delta = prices.at(-1)! - prices[0]!;
      const sign = delta > 0 ? '+' : delta < 0 ? '-' : '';
      return {
        asset: 'ETH',
        currency: 'KRW',
        window: '7d',
        current: prices.at(-1),
        high: Math.max(...prices),
        low: Math.min(...prices),
        average: Math.round(prices.reduce((a, b) => a + b, 0) / prices.length),
        change: `${sign}${Math.abs(delta).toLocaleString('en-US')} (${sign}${Math.abs((delta / prices[0]!) * 100).toFixed(2)}%)`,
      };
    };
    const hour = Math.floor(Date.now() / 3_600_000);
    expect([expectedFor(hour), expectedFor(hour - 1)]).toContainEqual(body);
    expect(body.change).toMatch(/^[+-]?[\d,]+ \([+-]?\d+\.\d{2}%\)$/);
    expect((await api('/api/v1/market-price?asset=BTC', user)).body.window).toBe('24h');

    expect((await api('/api/v1/market-price?asset=DOGE', user)).status).toBe(422);
    expect((await api('/api/v1/market-price?asset=ETH&window=1y', user)).status).toBe(400);
    expect((await api('/api/v1/market-price', user)).status).toBe(400);
    await call(`${stack.sandboxUrl}/_faults/prices`, { method: 'PUT', json: { failTimes: 1, status: 503 } });
    const down = await api('/api/v1/market-price?asset=ETH', user);
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
  });

  it('registers and removes other assets with a total value', async () => {
    expect((await api('/api/v1/other-assets', user)).body).toEqual({ totalValue: 0, assets: [] });
    const gold = await api('/api/v1/other-assets', user, {
      json: { name: '금 10돈', category: 'gold', value: 4_650_000 },
    });
    expect(gold.status).toBe(201);
    await api('/api/v1/other-assets', user, { json: { name: '비상금', category: 'cash', value: 300_000 } });
    const listed = await api('/api/v1/other-assets', user);
    expect(listed.body).toEqual({
      totalValue: 4_950_000,
      assets: [
        { assetId: gold.body.assetId, name: '금 10돈', category: 'gold', value: 4_650_000 },
        { assetId: expect.stringMatching(/^oa_/), name: '비상금', category: 'cash', value: 300_000 },
      ],
    });
    expect((await api(`/api/v1/other-assets/${gold.body.assetId}`, stranger, { method: 'DELETE' })).status).toBe(404);
    expect((await api(`/api/v1/other-assets/${gold.body.assetId}`, user, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/api/v1/other-assets/${gold.body.assetId}`, user, { method: 'DELETE' })).status).toBe(404);
    expect((await api('/api/v1/other-assets', user)).body.totalValue).toBe(300_000);
    expect((await api('/api/v1/other-assets', stranger)).body.assets).toEqual([]);
    for (const bad of [
      { name: 'x', category: 'stocks', value: 1 },
      { name: 'x', category: 'cash', value: -1 },
      { name: 'x', category: 'cash', value: 1.5 },
      { name: '', category: 'cash', value: 1 },
    ]) {
      expect((await api('/api/v1/other-assets', user, { json: bad })).status).toBe(400);
    }
  });

  it('verifies securities accounts by PIN or by auth code, never leaking a full account number', async () => {
    const holder = user.person.name;
    await call(`${stack.sandboxUrl}/securities/v1/_accounts`, {
      json: { firmCode: '240', accountNo: '7001234567', holder, pin: '4321', balance: 12_345_678 },
    });
    await call(`${stack.sandboxUrl}/securities/v1/_accounts`, {
      json: { firmCode: '240', accountNo: '7009876543', holder, pin: '1111', balance: 500_000 },
    });
    const verified = await api('/api/v1/securities/verify', user, {
      json: { firm_code: '240', method: 'pin', account_no: '700-123-4567', pin: '4321' },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      verified: true,
      firm_name: '삼성증권',
      accounts: [
        { no: '******4567', balance: '12,345,678 KRW' },
        { no: '******6543', balance: '500,000 KRW' },
      ],
    });
    expect(
      (
        await api('/api/v1/securities/verify', user, {
          json: { firm_code: '240', method: 'pin', account_no: '7001234567', pin: '0000' },
        })
      ).body,
    ).toEqual({ verified: false, firm_name: null, accounts: [] });
    // Someone else cannot use the account's PIN: the holder is the caller's verified name.
    expect(
      (
        await api('/api/v1/securities/verify', stranger, {
          json: { firm_code: '240', method: 'pin', account_no: '7001234567', pin: '4321' },
        })
      ).body.verified,
    ).toBe(false);

    const { authCode } = (
      await call(`${stack.sandboxUrl}/securities/v1/_auth-codes`, { json: { firmCode: '240', holder } })
    ).body;
    expect(
      (
        await api('/api/v1/securities/verify', user, {
          json: { firm_code: '240', method: 'auth_code', auth_code: authCode },
        })
      ).body.accounts,
    ).toHaveLength(2);
    expect(
      (
        await api('/api/v1/securities/verify', user, {
          json: { firm_code: '240', method: 'auth_code', auth_code: authCode },
        })
      ).body.verified,
    ).toBe(false); // one use
    expect(
      (
        await api('/api/v1/securities/verify', user, {
          json: { firm_code: '240', method: 'pin', account_no: '7001234567' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await api('/api/v1/securities/verify', user, {
          json: { firm_code: '240', method: 'pin', account_no: '7001234567', pin: '12' },
        })
      ).status,
    ).toBe(400);
  });

  it('connects an exchange account through OAuth 2.0 with PKCE, visible to its owner only', async () => {
    const cexUser = `upbit-${randomUUID().slice(0, 8)}`;
    await call(`${stack.sandboxUrl}/cex/_users`, {
      json: { userId: cexUser, name: user.person.name, balances: { BTC: '0.5', KRW: '1200000' } },
    });
    const authorize = (u: RegisteredUser, body: object) =>
      call(`${stack.apiUrl}/v1/asset/cex-accounts/authorize`, { headers: bearer(u), json: body });
    const connect = (u: RegisteredUser, body: object) =>
      call(`${stack.apiUrl}/v1/asset/cex-accounts`, { headers: bearer(u), json: body });

    expect((await authorize(user, { redirectUri: 'https://evil.example/cb' })).status).toBe(422);
    const started = await authorize(user, {
      redirectUri: 'wallet://cex/callback',
      label: '업비트',
      scopes: ['read'],
      loginHint: cexUser,
    });
    expect(started.status).toBe(200);
    const url = new URL(started.body.authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('state')).toBe(started.body.state);
    // The user consents at the exchange, which redirects to the app with a code.
    const consent = await fetch(url, { redirect: 'manual' });
    const redirect = new URL(consent.headers.get('location')!);
    expect(redirect.protocol).toBe('wallet:');
    const code = redirect.searchParams.get('code')!;

    expect((await connect(stranger, { state: started.body.state, code })).status).toBe(404);
    const connected = await connect(user, { state: started.body.state, code });
    expect(connected.status).toBe(201);
    expect(connected.body).toEqual({
      cexAccountId: expect.stringMatching(/^cex_/),
      provider: 'upbit',
      label: '업비트',
      authMethod: 'oauth2',
      permissions: { read: true, withdraw: false },
      lastSyncAt: expect.any(String),
      registeredAt: expect.any(String),
    });
    expect((await connect(user, { state: started.body.state, code })).status).toBe(409);

    const id = connected.body.cexAccountId;
    expect((await call(`${stack.apiUrl}/v1/asset/cex-accounts/${id}`, { headers: bearer(user) })).body).toEqual(
      connected.body,
    );
    expect((await call(`${stack.apiUrl}/v1/asset/cex-accounts/${id}`, { headers: bearer(stranger) })).status).toBe(404);
    expect(
      (await call(`${stack.apiUrl}/v1/asset/cex-accounts/cex_${randomUUID()}`, { headers: bearer(user) })).status,
    ).toBe(404);
    expect((await call(`${stack.apiUrl}/v1/asset/cex-accounts`, { headers: bearer(user) })).body.items).toHaveLength(1);

    // A forged code is refused by the exchange; the state cannot be replayed either way.
    const second = await authorize(user, { redirectUri: 'wallet://cex/callback', loginHint: cexUser });
    const refused = await connect(user, { state: second.body.state, code: 'forged' });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/cex-grant-refused');
  });
});
