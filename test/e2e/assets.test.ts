import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { bearer } from '../helpers/wallet';
import { CexAccountEntity, CexAuthorizationEntity } from '../../db/entities';
import { closeAccountBody } from '../helpers/pin';
import { priceAt } from '../../sandbox/upbit-quotation';
import { goldCloseOn } from '../../sandbox/krx-gold';

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
        quiet_hours: 0,
      };
    };
    const hour = Math.floor(Date.now() / 3_600_000);
    expect([expectedFor(hour), expectedFor(hour - 1)]).toContainEqual(body);
    expect(body.change).toMatch(/^[+-]?[\d,]+ \([+-]?\d+\.\d{2}%\)$/);
    expect((await api('/api/v1/market-price?asset=BTC', user)).body.window).toBe('24h');

    expect((await api('/api/v1/market-price?asset=DOGE', user)).status).toBe(422);
    // An hour without trades at Upbit has no candle: its price is the last trade's, and the answer counts such hours.
    await call(`${stack.sandboxUrl}/upbit/_quiet/KRW-SOL`, { method: 'PUT', json: { hours: [hour - 3, hour - 2] } });
    const quiet = await api('/api/v1/market-price?asset=SOL', user);
    expect([quiet.status, quiet.body.quiet_hours]).toEqual([200, 2]);
    // Gold is not on Upbit: the KRX gold market's daily close (won per gram), carried through the hours after it.
    const gold = await api('/api/v1/market-price?asset=GOLD&window=7d', user);
    let day = Math.floor((Date.now() + 9 * 3_600_000) / 86_400_000) - 1;
    while (goldCloseOn(day) === null || day * 86_400_000 + 6.5 * 3_600_000 > Date.now()) day -= 1;
    expect([gold.status, gold.body.current]).toEqual([200, goldCloseOn(day)]);
    expect(gold.body.quiet_hours).toBeGreaterThan(24 * 7 - 10);
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

  it("verifies a securities account with the person's KIS app key and secret, never leaking a full account number", async () => {
    // The holdings of KIS's published paper-account answer (test/contract/fixtures/kis): 9,644,485 won of deposit,
    // 1 SK하이닉스 at 215,500 and 35 KODEX 인버스 at 4,290.
    const opened = (
      await call(`${stack.sandboxUrl}/kis/_accounts`, {
        json: {
          deposit: 9_644_485,
          holdings: [
            { pdno: '000660', name: 'SK하이닉스', quantity: 1, price: 215_500, averagePrice: 198_600 },
            { pdno: '114800', name: 'KODEX 인버스', quantity: 35, price: 4_290, averagePrice: 4482.142 },
          ],
        },
      })
    ).body as { accountNo: string; appKey: string; appSecret: string };
    const verify = (u: RegisteredUser, body: object) => api('/api/v1/securities/verify', u, { json: body });
    const keyPair = { firm_code: '243', method: 'app_key', app_key: opened.appKey, app_secret: opened.appSecret };
    const verified = await verify(user, { ...keyPair, account_no: opened.accountNo });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      verified: true,
      firm_name: '한국투자증권',
      accounts: [{ no: `******${opened.accountNo.slice(6)}`, balance: '10,010,135 KRW' }],
    });
    // The account number written without its dash is the same account.
    expect((await verify(user, { ...keyPair, account_no: opened.accountNo.replace('-', '') })).body.verified).toBe(
      true,
    );

    // Another account than the key's (OPSQ2000), or a wrong secret (EGW00105): not verified, nothing else said.
    const other = `${opened.accountNo.startsWith('509') ? '508' : '509'}${opened.accountNo.slice(3)}`;
    expect((await verify(user, { ...keyPair, account_no: other })).body).toEqual({
      verified: false,
      firm_name: null,
      accounts: [],
    });
    const wrongSecret = `${opened.appSecret.slice(0, -2)}${opened.appSecret.endsWith('AA') ? 'BB' : 'AA'}`;
    expect(
      (await verify(user, { ...keyPair, app_secret: wrongSecret, account_no: opened.accountNo })).body.verified,
    ).toBe(false);

    // The broker failing is an outage to retry, not a refusal of the person's key.
    await call(`${stack.sandboxUrl}/_faults/securities`, { method: 'PUT', json: { failTimes: 5, status: 500 } });
    const down = await verify(user, { ...keyPair, account_no: opened.accountNo });
    expect([down.status, down.body.type]).toEqual([503, '/problems/service-unavailable']);
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });

    // The deprecated methods say what to send instead; another firm, and malformed keys, are refused as such.
    const pin = await verify(user, { firm_code: '243', method: 'pin', account_no: opened.accountNo, pin: '4321' });
    expect([pin.status, pin.body.type]).toEqual([422, '/problems/securities-method-unsupported']);
    expect(pin.body.detail).toContain('app_key');
    const code = await verify(user, { firm_code: '243', method: 'auth_code', auth_code: 'ABC123' });
    expect([code.status, code.body.type]).toEqual([422, '/problems/securities-method-unsupported']);
    const firm = await verify(user, { ...keyPair, firm_code: '240', account_no: opened.accountNo });
    expect([firm.status, firm.body.type]).toEqual([422, '/problems/securities-firm-unsupported']);
    for (const bad of [
      { ...keyPair, account_no: '1234567-01' },
      { ...keyPair, account_no: opened.accountNo, app_key: `${opened.appKey}\n` },
      { ...keyPair, account_no: opened.accountNo, app_secret: undefined },
      { ...keyPair, account_no: opened.accountNo, pin: '1234' },
    ])
      expect((await verify(user, bad)).status).toBe(400);
  });

  it("connects Upbit and Bithumb accounts with the person's key pair: checked by reading the balances, then not kept", async () => {
    /** A key pair the exchange issued (its access and secret keys only). */
    const issue = async (exchange: 'upbit' | 'bithumb', body: object) => {
      const { accessKey, secretKey } = (await call(`${stack.sandboxUrl}/${exchange}/_keys`, { json: body })).body;
      return { accessKey: accessKey as string, secretKey: secretKey as string };
    };
    const connect = (u: RegisteredUser, body: object) =>
      call(`${stack.apiUrl}/v1/asset/cex-accounts`, { headers: bearer(u), json: body });
    const keys = await issue('upbit', { balances: { BTC: { balance: '0.5', locked: '0.1' }, KRW: '1200000' } });
    const connected = await connect(user, { provider: 'upbit', ...keys, label: '업비트' });
    expect(connected.status).toBe(201);
    expect(connected.body).toMatchObject({
      provider: 'upbit',
      label: '업비트',
      authMethod: 'api_key',
      permissions: { read: true, withdraw: false },
    });
    expect(connected.headers.get('location')).toBe(`/v1/asset/cex-accounts/${connected.body.cexAccountId}`);
    // The person is told the service cannot see the key's permissions and kept nothing.
    expect(connected.body.keyNotice).toMatch(/cannot see which permissions.*did not keep it/s);
    const stored = await stack.orm.em
      .fork()
      .findOneOrFail(CexAccountEntity, { cexAccountId: connected.body.cexAccountId });
    expect(stored.balances).toEqual([
      { currency: 'BTC', balance: '0.6' },
      { currency: 'KRW', balance: '1200000' },
    ]);
    // No key is kept, in clear or sealed: the row as the database holds it names neither key, nor anything that opens
    // to them (before, the pair was sealed into tokens_sealed and never read again).
    const [row] = await stack.orm.em
      .fork()
      .getConnection()
      .execute('select * from cex_accounts where cex_account_id = ?', [connected.body.cexAccountId]);
    expect(Object.keys(row as object).sort()).toEqual([
      'auth_method',
      'balances',
      'can_read',
      'can_withdraw',
      'cex_account_id',
      'external_account_id',
      'label',
      'last_sync_at',
      'provider',
      'registered_at',
      'user_id',
    ]);
    expect(JSON.stringify(row)).not.toContain(keys.secretKey);
    expect(JSON.stringify(row)).not.toContain(keys.accessKey);
    // The same key again reads the balances again into the same account (200), its lastSyncAt later.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = await connect(user, { provider: 'upbit', ...keys });
    expect([again.status, again.body.cexAccountId]).toEqual([200, connected.body.cexAccountId]);
    expect(Date.parse(again.body.lastSyncAt)).toBeGreaterThan(Date.parse(connected.body.lastSyncAt));
    expect(
      (
        await call(`${stack.apiUrl}/v1/asset/cex-accounts/${connected.body.cexAccountId}`, {
          headers: bearer(stranger),
        })
      ).status,
    ).toBe(404);

    // Disconnected: the row and the sealed key pair are gone; anyone else's id is not found.
    const removeUrl = `${stack.apiUrl}/v1/asset/cex-accounts/${connected.body.cexAccountId}`;
    expect((await call(removeUrl, { method: 'DELETE', headers: bearer(stranger) })).status).toBe(404);
    expect((await call(removeUrl, { method: 'DELETE', headers: bearer(user) })).status).toBe(204);
    expect(await stack.orm.em.fork().count(CexAccountEntity, { cexAccountId: connected.body.cexAccountId })).toBe(0);
    expect((await call(removeUrl, { method: 'DELETE', headers: bearer(user) })).status).toBe(404);
    expect((await connect(user, { provider: 'upbit', ...keys })).status).toBe(201);

    const bithumbKeys = await issue('bithumb', { balances: { ETH: '2.5' } });
    expect((await connect(user, { provider: 'bithumb', ...bithumbKeys })).body).toMatchObject({
      provider: 'bithumb',
      authMethod: 'api_key',
    });

    // Refusals say what to fix: the permission, the allowed IPs, the keys themselves.
    const refused = async (body: object) => {
      const answer = await connect(user, body);
      return [answer.status, answer.body.type, answer.body.detail] as const;
    };
    const orderOnly = await issue('upbit', { balances: {}, permissions: ['make_orders'] });
    expect(await refused({ provider: 'upbit', ...orderOnly })).toEqual([
      422,
      '/problems/cex-key-refused',
      expect.stringContaining('View Account'),
    ]);
    const elsewhere = await issue('upbit', { balances: {}, allowedIps: ['203.0.113.7'] });
    expect((await refused({ provider: 'upbit', ...elsewhere }))[2]).toContain('allowed IPs');
    expect((await refused({ provider: 'upbit', ...keys, secretKey: 'x'.repeat(40) }))[2]).toContain('jwt_verification');
    expect((await refused({ provider: 'bithumb', ...keys }))[1]).toBe('/problems/cex-key-refused');
    // The exchange down is an outage, not a refusal; malformed keys never reach it.
    await call(`${stack.sandboxUrl}/_faults/cex`, { method: 'PUT', json: { failTimes: 1, status: 503 } });
    expect((await connect(user, { provider: 'upbit', ...(await issue('upbit', { balances: {} })) })).status).toBe(503);
    for (const bad of [
      { provider: 'coinone', ...keys },
      { provider: 'upbit', accessKey: keys.accessKey },
      { provider: 'upbit', ...keys, secretKey: 'short' },
      { provider: 'upbit', ...keys, state: 'x'.repeat(16) },
    ])
      expect((await connect(user, bad)).status).toBe(400);
  });

  it('deletes every exchange account and pending OAuth state of a closed account', async () => {
    const pin = '482915';
    const leaving = await registerUser(stack, undefined, { pin });
    const { accessKey, secretKey } = (
      await call(`${stack.sandboxUrl}/upbit/_keys`, { json: { balances: { BTC: '0.1' } } })
    ).body;
    const connected = await call(`${stack.apiUrl}/v1/asset/cex-accounts`, {
      headers: bearer(leaving),
      json: { provider: 'upbit', accessKey, secretKey },
    });
    expect(connected.status).toBe(201);
    const started = await call(`${stack.apiUrl}/v1/asset/cex-accounts/authorize`, {
      headers: bearer(leaving),
      json: { redirectUri: 'wallet://cex/callback' },
    });
    expect(started.status).toBe(200);
    const held = async () => [
      await stack.orm.em.fork().count(CexAccountEntity, { userId: leaving.userId }),
      await stack.orm.em.fork().count(CexAuthorizationEntity, { userId: leaving.userId }),
    ];
    expect(await held()).toEqual([1, 1]);
    const closed = await call(`${stack.apiUrl}/v1/account/close`, {
      headers: bearer(leaving),
      json: await closeAccountBody(stack, pin),
    });
    expect([closed.status, closed.body.status]).toEqual([200, 'closed']);
    expect(await held()).toEqual([0, 0]);
  });

  it('still connects an exchange account through the deprecated OAuth 2.0 flow, and says it is deprecated', async () => {
    const cexUser = `upbit-${randomUUID().slice(0, 8)}`;
    await call(`${stack.sandboxUrl}/cex/_users`, {
      json: { userId: cexUser, name: user.person.name, balances: { BTC: '0.5', KRW: '1200000' } },
    });
    const authorize = (u: RegisteredUser, body: object) =>
      call(`${stack.apiUrl}/v1/asset/cex-accounts/authorize`, { headers: bearer(u), json: body });
    const connect = (u: RegisteredUser, body: object) =>
      call(`${stack.apiUrl}/v1/asset/cex-accounts`, { headers: bearer(u), json: body });

    expect((await authorize(user, { redirectUri: 'https://evil.example/cb' })).status).toBe(422);
    // Only reading is ever asked of the exchange: a withdraw scope is refused before anything is recorded.
    for (const scopes of [['withdraw'], ['read', 'withdraw']]) {
      const refused = await authorize(user, { redirectUri: 'wallet://cex/callback', scopes });
      expect([refused.status, refused.body.type]).toEqual([400, '/problems/validation-error']);
    }
    const started = await authorize(user, {
      redirectUri: 'wallet://cex/callback',
      label: '업비트',
      scopes: ['read'],
      loginHint: cexUser,
    });
    expect(started.status).toBe(200);
    expect(started.headers.get('deprecation')).toBeTruthy();
    expect(started.headers.get('sunset')).toBe('Mon, 31 May 2027 00:00:00 GMT');
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
      keyNotice: expect.stringContaining('did not keep them'),
    });
    expect((await connect(user, { state: started.body.state, code })).status).toBe(409);

    const id = connected.body.cexAccountId;
    const { keyNotice: _notice, ...view } = connected.body;
    expect((await call(`${stack.apiUrl}/v1/asset/cex-accounts/${id}`, { headers: bearer(user) })).body).toEqual(view);
    expect((await call(`${stack.apiUrl}/v1/asset/cex-accounts/${id}`, { headers: bearer(stranger) })).status).toBe(404);
    expect(
      (await call(`${stack.apiUrl}/v1/asset/cex-accounts/cex_${randomUUID()}`, { headers: bearer(user) })).status,
    ).toBe(404);
    const listed = (await call(`${stack.apiUrl}/v1/asset/cex-accounts`, { headers: bearer(user) })).body.items;
    expect(
      listed
        .filter((a: { authMethod: string }) => a.authMethod === 'oauth2')
        .map((a: { cexAccountId: string }) => a.cexAccountId),
    ).toEqual([id]);

    // A forged code is refused by the exchange; the state cannot be replayed either way.
    const second = await authorize(user, { redirectUri: 'wallet://cex/callback', loginHint: cexUser });
    const refused = await connect(user, { state: second.body.state, code: 'forged' });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/cex-grant-refused');
  });
});
