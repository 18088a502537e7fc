import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { ApplicationFailure } from '@temporalio/common';
import {
  AccountsAnswer,
  UpbitStyleExchange,
  addDecimals,
  exchangeJwt,
  queryHashInput,
} from '../../integrations/exchange/upbit-style';
import { ProviderUnavailable, expectAnswer } from '../../integrations/provider-http';
import { exchangeAccountsRouter } from '../../sandbox/exchange-accounts';
import { PROVIDER_REJECTED } from '../../platform/failures';

/**
 * The Upbit and Bithumb key-pair adapters against the sandbox's emulation of their Exchange APIs over real HTTP; the
 * signing against the official SDK's algorithm byte for byte, and the emulation against published answers
 * (fixtures/upbit/SOURCES.md).
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/upbit', name), 'utf8'));

let server: Server;
let base: string;
let stub: Array<{ status: number; body: unknown }> = [];
const sent: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json'] }));
  koa.use(async (ctx, next) => {
    if (!ctx.path.includes('/_')) sent.push({ url: ctx.url, headers: ctx.headers });
    if (ctx.path.startsWith('/stub/')) {
      const answer = stub.shift() ?? { status: 500, body: {} };
      ctx.status = answer.status;
      ctx.body = answer.body;
      return;
    }
    return next();
  });
  koa.use(exchangeAccountsRouter('upbit').routes());
  koa.use(exchangeAccountsRouter('bithumb').routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  stub = [];
  sent.length = 0;
});

const upbit = (apiUrl = `${base}/upbit`) =>
  new UpbitStyleExchange('upbit', { apiUrl, transport: { timeoutMs: 5000 }, algorithm: 'HS512', timestamp: false });
const bithumb = () =>
  new UpbitStyleExchange('bithumb', {
    apiUrl: `${base}/bithumb`,
    transport: { timeoutMs: 5000 },
    algorithm: 'HS256',
    timestamp: true,
  });
const issue = async (exchange: 'upbit' | 'bithumb', body: object) =>
  (await (
    await fetch(`${base}/${exchange}/_keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json()) as { accessKey: string; secretKey: string };
const refusal = async (asking: Promise<unknown>): Promise<{ name: string; status: number }> => {
  try {
    await asking;
  } catch (error) {
    if (!(error instanceof ApplicationFailure) || error.type !== PROVIDER_REJECTED) throw error;
    const [answer, status] = error.details as [{ name: string }, number];
    return { name: answer.name, status };
  }
  throw new Error('the call was not refused');
};

describe('the JWT of a private call, as Upbit and Bithumb document it', () => {
  it('matches the official SDK algorithm byte for byte: query_hash over the unencoded query, HS512 and HS256', async () => {
    const vector = fixture('jwt-test-vector.computed.json');
    const query = queryHashInput({ market: 'KRW-BTC', states: ['wait', 'watch'] });
    expect(query).toBe(vector.query);
    const keys = { accessKey: 'test-access-key', secretKey: 'test-secret-key' };
    const nonce = '00000000-0000-4000-8000-000000000000';
    expect(await exchangeJwt(keys, { algorithm: 'HS512', nonce, query })).toBe(vector.hs512);
    expect(await exchangeJwt(keys, { algorithm: 'HS256', nonce, query })).toBe(vector.hs256);
    expect(decodeJwt(vector.hs512).query_hash).toBe(vector.query_hash);
  });

  it('reads balances at Upbit with an HS512 token of access_key and a fresh nonce only (no parameters, no hash)', async () => {
    const keys = await issue('upbit', { balances: { BTC: { balance: '0.5', locked: '0.25' }, KRW: '1200000' } });
    const adapter = upbit();
    expect(await adapter.balances(keys)).toEqual([
      { currency: 'BTC', balance: '0.75' },
      { currency: 'KRW', balance: '1200000' },
    ]);
    await adapter.balances(keys);
    const tokens = sent.map((r) => String(r.headers.authorization).replace(/^Bearer /, ''));
    expect(sent.map((r) => r.url)).toEqual(['/upbit/v1/accounts', '/upbit/v1/accounts']);
    for (const token of tokens) {
      expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS512', typ: 'JWT' });
      expect(Object.keys(decodeJwt(token))).toEqual(['access_key', 'nonce']);
      expect(decodeJwt(token).access_key).toBe(keys.accessKey);
    }
    expect(decodeJwt(tokens[0]!).nonce).not.toBe(decodeJwt(tokens[1]!).nonce);
  });

  it('reads balances at Bithumb with an HS256 token that carries a timestamp', async () => {
    const keys = await issue('bithumb', { balances: { ETH: '2.5' } });
    expect(await bithumb().balances(keys)).toEqual([{ currency: 'ETH', balance: '2.5' }]);
    const token = String(sent[0]!.headers.authorization).replace(/^Bearer /, '');
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(token);
    expect(Object.keys(claims)).toEqual(['access_key', 'nonce', 'timestamp']);
    expect(Math.abs((claims.timestamp as number) - Date.now())).toBeLessThan(10_000);
  });
});

describe('refusals, by the exchange’s error name', () => {
  it('a wrong secret (jwt_verification), a key without View Account (out_of_scope), our address not allowed, an expired key', async () => {
    const keys = await issue('upbit', { balances: {} });
    expect(await refusal(upbit().balances({ ...keys, secretKey: 'x'.repeat(40) }))).toEqual({
      name: 'jwt_verification',
      status: 401,
    });
    const orderOnly = await issue('upbit', { balances: {}, permissions: ['make_orders'] });
    expect(await refusal(upbit().balances(orderOnly))).toEqual({ name: 'out_of_scope', status: 403 });
    const elsewhere = await issue('upbit', { balances: {}, allowedIps: ['203.0.113.7'] });
    expect(await refusal(upbit().balances(elsewhere))).toEqual({ name: 'no_authorization_ip', status: 401 });
    const old = await issue('upbit', { balances: {}, expiresAt: '2020-01-01T00:00:00Z' });
    expect(await refusal(upbit().balances(old))).toEqual({ name: 'expired_access_key', status: 401 });
    const bithumbElsewhere = await issue('bithumb', { balances: {}, allowedIps: ['203.0.113.7'] });
    expect(await refusal(bithumb().balances(bithumbElsewhere))).toEqual({ name: 'NotAllowIP', status: 401 });
  });

  it('the emulation refuses a reused nonce and a query hash that is not of the query sent', async () => {
    const keys = await issue('upbit', { balances: {} });
    const token = await exchangeJwt(keys, { algorithm: 'HS512' });
    const call = (path: string, jwt: string) =>
      fetch(`${base}/upbit${path}`, { headers: { authorization: `Bearer ${jwt}` } }).then(async (r) => [
        r.status,
        ((await r.json()) as any).error?.name ?? 'ok',
      ]);
    expect(await call('/v1/api_keys', token)).toEqual([200, 'ok']);
    expect(await call('/v1/api_keys', token)).toEqual([401, 'nonce_used']);
    const hashed = await exchangeJwt(keys, { algorithm: 'HS512', query: 'uuids[]=a&uuids[]=b' });
    expect(await call('/v1/api_keys?uuids[]=a&uuids[]=b', hashed)).toEqual([200, 'ok']);
    const other = await exchangeJwt(keys, { algorithm: 'HS512', query: 'uuids[]=a' });
    expect(await call('/v1/api_keys?uuids[]=a&uuids[]=b', other)).toEqual([401, 'invalid_query_payload']);
  });

  it('takes 429 and 5xx as outages, and an answer outside the API as invalid', async () => {
    const keys = { accessKey: 'a'.repeat(40), secretKey: 'b'.repeat(40) };
    stub = [{ status: 429, body: { error: { name: 429, message: 'Too many API requests.' } } }];
    expect(
      await upbit(`${base}/stub`)
        .balances(keys)
        .catch((e) => e),
    ).toBeInstanceOf(ProviderUnavailable);
    stub = [{ status: 502, body: {} }];
    expect(
      await upbit(`${base}/stub`)
        .balances(keys)
        .catch((e) => e),
    ).toBeInstanceOf(ProviderUnavailable);
    stub = [{ status: 200, body: [{ currency: 'BTC', balance: 0.5 }] }];
    expect(
      await upbit(`${base}/stub`)
        .balances(keys)
        .catch((e) => e),
    ).toBeInstanceOf(ProviderUnavailable);
    stub = [{ status: 401, body: fixture('error-jwt-verification.thirdparty.json') }];
    expect(await refusal(upbit(`${base}/stub`).balances(keys))).toEqual({ name: 'jwt_verification', status: 401 });
    stub = [{ status: 403, body: fixture('error-out-of-scope.thirdparty.json') }];
    expect(await refusal(upbit(`${base}/stub`).balances(keys))).toEqual({ name: 'out_of_scope', status: 403 });
  });
});

describe("the sandbox's emulation against Upbit's published answers", () => {
  it('answers balances with the keys and types of the published example, which the adapter reads', async () => {
    const published = fixture('accounts-response.thirdparty.json');
    expect(expectAnswer(AccountsAnswer, published, 'the published example')).toHaveLength(3);
    stub = [{ status: 200, body: published }];
    expect(await upbit(`${base}/stub`).balances({ accessKey: 'a'.repeat(40), secretKey: 'b'.repeat(40) })).toEqual([
      { currency: 'BTC', balance: '0.00048' },
      { currency: 'KRW', balance: addDecimals('0.34202414', '4999.99999922') },
      { currency: 'ETH', balance: '0.00935861' },
    ]);
    const keys = await issue('upbit', { balances: { BTC: '0.00048' } });
    const answer = (await (
      await fetch(`${base}/upbit/v1/accounts`, {
        headers: { authorization: `Bearer ${await exchangeJwt(keys, { algorithm: 'HS512' })}` },
      })
    ).json()) as any[];
    expect(Object.keys(answer[0]).sort()).toEqual(Object.keys(published[0]).sort());
    for (const [key, value] of Object.entries(published[0]))
      expect([key, typeof answer[0][key]]).toEqual([key, typeof value]);
  });

  it('adds decimal strings exactly', () => {
    expect(addDecimals('0.34202414', '4999.99999922')).toBe('5000.34202336');
    expect([addDecimals('0.1', '0.2'), addDecimals('1', '0'), addDecimals('0.5', '0.5')]).toEqual(['0.3', '1', '1']);
  });
});
