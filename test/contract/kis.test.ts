import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ApplicationFailure } from '@temporalio/common';
import {
  KIS_BALANCE_PATH,
  KisBalanceAnswer,
  KisOpenApi,
  balanceQuery,
  splitKisAccount,
} from '../../integrations/securities/kis';
import { ProviderUnavailable, expectAnswer } from '../../integrations/provider-http';
import { kisRouter } from '../../sandbox/kis';
import { PROVIDER_REJECTED } from '../../platform/failures';

/**
 * The KIS adapter against the sandbox's emulation of KIS's paper-trading domain over real HTTP, and both against KIS's
 * published examples (fixtures/kis/SOURCES.md). The emulator's clock runs `ahead` of the real one by what a test says.
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/kis', name), 'utf8'));
/** The published token answer, its token's cut ("…", which no HTTP header can carry) filled in. */
const publishedToken = () => {
  const answer = fixture('token-success.json');
  return { ...answer, access_token: answer.access_token.replace('…', 'x') };
};
const HOUR = 3600_000;

let server: Server;
let base: string;
let ahead = 0;
/** What a stub KIS answers under /stub (answers the emulator never gives). */
let stub: { token?: { status: number; body: unknown }; balance?: Array<{ status: number; body: unknown }> };
const sent: Array<{ path: string; url: string; headers: IncomingHttpHeaders; raw: string }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    // The request's bytes, before any parsing.
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (!ctx.path.includes('/_')) sent.push({ path: ctx.path, url: ctx.url, headers: ctx.headers, raw });
    (ctx.request as unknown as { body?: unknown }).body = raw ? JSON.parse(raw) : {};
    if (ctx.path === '/stub/oauth2/tokenP' && stub.token) {
      ctx.status = stub.token.status;
      ctx.body = stub.token.body;
      return;
    }
    if (ctx.path === `/stub${KIS_BALANCE_PATH}` && stub.balance?.length) {
      const answer = stub.balance.shift()!;
      ctx.status = answer.status;
      ctx.body = answer.body;
      return;
    }
    if (ctx.path.startsWith('/stub/')) ctx.path = ctx.path.replace('/stub/', '/kis/');
    return next();
  });
  koa.use(bodyParser({ enableTypes: ['json'] }));
  koa.use(kisRouter({ now: () => Date.now() + ahead }).routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  stub = {};
  sent.length = 0;
});

const kis = (apiUrl = `${base}/kis`) =>
  new KisOpenApi({ apiUrl, environment: 'mock', transport: { timeoutMs: 5000 }, now: () => Date.now() });
/** A paper account of the published example's holdings (9,644,485 won and two stocks: 10,010,135 won in all). */
const openAccount = async () =>
  (await (
    await fetch(`${base}/kis/_accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        deposit: 9_644_485,
        holdings: [
          { pdno: '000660', name: 'SK하이닉스', quantity: 1, price: 215_500, averagePrice: 198_600 },
          { pdno: '114800', name: 'KODEX 인버스', quantity: 35, price: 4_290, averagePrice: 4482.142 },
        ],
      }),
    })
  ).json()) as { accountNo: string; appKey: string; appSecret: string };
const failure = async (asking: Promise<unknown>): Promise<Error> => {
  try {
    await asking;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the inquiry did not fail');
};
const isRefusal = (error: Error) => error instanceof ApplicationFailure && error.type === PROVIDER_REJECTED;
const sentTo = (suffix: string) => sent.filter((r) => r.path.endsWith(suffix));
const keysOf = (value: object) => Object.keys(value).sort();

describe('KIS requests as KIS documents them', () => {
  it('asks for a token with client credentials in a JSON body, and inquires with the headers and query of the official sample', async () => {
    const account = await openAccount();
    const holdings = await kis().holdingsByAppKey(account);
    expect(holdings).toEqual({
      firmCode: '243',
      firmName: '한국투자증권',
      accounts: [{ accountNo: account.accountNo, totalKrw: 10_010_135n }],
    });

    const [token] = sentTo('/oauth2/tokenP');
    expect(token!.headers['content-type']).toBe('application/json');
    expect(token!.raw).toBe(
      `{"grant_type":"client_credentials","appkey":"${account.appKey}","appsecret":"${account.appSecret}"}`,
    );
    expect(token!.headers.authorization).toBeUndefined();

    const [inquiry] = sentTo('/inquire-balance');
    const { cano, productCode } = splitKisAccount(account.accountNo);
    expect(inquiry!.url).toBe(`/kis${KIS_BALANCE_PATH}?${balanceQuery(cano, productCode)}`);
    // The official Postman request's parameters, in its order and with its values (its account put in).
    const postman = new URL(
      readFileSync(join(__dirname, 'fixtures/kis/inquire-balance-request.postman.txt'), 'utf8')
        .trim()
        .replace('{{PROD}}', 'https://kis.example')
        .replace('{{CANO_REAL}}', cano),
    );
    expect([...new URL(`https://kis.example${inquiry!.url}`).searchParams]).toEqual([...postman.searchParams]);
    expect(inquiry!.raw).toBe('');
    expect({
      authorization: inquiry!.headers.authorization,
      appkey: inquiry!.headers.appkey,
      appsecret: inquiry!.headers.appsecret,
      tr_id: inquiry!.headers.tr_id,
      custtype: inquiry!.headers.custtype,
      tr_cont: inquiry!.headers.tr_cont,
      'content-type': inquiry!.headers['content-type'],
    }).toEqual({
      authorization: `Bearer ${await tokenOf(account)}`, // the same token again within 6 hours
      appkey: account.appKey,
      appsecret: account.appSecret,
      tr_id: 'VTTC8434R',
      custtype: 'P',
      tr_cont: '',
      'content-type': 'application/json; charset=utf-8',
    });
  });

  it('uses the real domain’s transaction id on the real domain', async () => {
    const account = await openAccount();
    const real = new KisOpenApi({ apiUrl: `${base}/kis`, environment: 'real', transport: { timeoutMs: 5000 } });
    // The paper domain refuses the real transaction id as KIS's does (HTTP 500, "모의투자 TR 이 아닙니다.").
    expect(await failure(real.holdingsByAppKey(account))).toBeInstanceOf(ProviderUnavailable);
    expect(sentTo('/inquire-balance')[0]!.headers.tr_id).toBe('TTTC8434R');
  });
});

/** The token the emulator answers for the account now (a token request within 6 hours answers the same one). */
async function tokenOf(account: { appKey: string; appSecret: string }): Promise<string> {
  ahead += 61_000; // past the one-a-minute rule
  const answer = await fetch(`${base}/kis/oauth2/tokenP`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', appkey: account.appKey, appsecret: account.appSecret }),
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

describe('KIS tokens', () => {
  it('are kept per key pair for later inquiries, one issue at a time', async () => {
    const account = await openAccount();
    const adapter = kis();
    await Promise.all([adapter.holdingsByAppKey(account), adapter.holdingsByAppKey(account)]);
    ahead += 1000; // the paper domain's two inquiries a second
    await adapter.holdingsByAppKey(account);
    expect(sentTo('/oauth2/tokenP')).toHaveLength(1);
    expect(sentTo('/inquire-balance')).toHaveLength(3);
  });

  it('are asked for again once when KIS says the token expired (EGW00123), and the inquiry answered', async () => {
    const account = await openAccount();
    const adapter = kis();
    await adapter.holdingsByAppKey(account);
    ahead += 25 * HOUR; // KIS's clock past the token's 24 hours; ours not yet past its renewal
    const holdings = await adapter.holdingsByAppKey(account);
    expect(holdings.accounts[0]!.totalKrw).toBe(10_010_135n);
    expect(sentTo('/oauth2/tokenP')).toHaveLength(2);
    expect(sentTo('/inquire-balance')).toHaveLength(3);
  });

  it('are not asked for twice a minute: KIS refuses (EGW00133), an outage to retry, not a refusal of the key', async () => {
    const account = await openAccount();
    await kis().holdingsByAppKey(account);
    const error = await failure(kis().holdingsByAppKey(account)); // another process: no token kept
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toContain('EGW00133');
  });
});

describe('KIS refusals and failures', () => {
  it('refuses a wrong secret (EGW00105), an unknown key (EGW00103) and an account the key was not issued for (OPSQ2000)', async () => {
    const account = await openAccount();
    expect(isRefusal(await failure(kis().holdingsByAppKey({ ...account, appSecret: 'A'.repeat(180) })))).toBe(true);
    expect(isRefusal(await failure(kis().holdingsByAppKey({ ...account, appKey: `PS${'x'.repeat(34)}` })))).toBe(true);
    const other = `${account.accountNo.startsWith('509') ? '508' : '509'}${account.accountNo.slice(3)}`;
    const error = await failure(kis().holdingsByAppKey({ ...account, accountNo: other }));
    expect(isRefusal(error)).toBe(true);
    expect(error.message).toContain('OPSQ2000');
  });

  it('waits out the per-second limit (EGW00201) and answers', async () => {
    const account = await openAccount();
    const adapter = kis();
    await adapter.holdingsByAppKey(account);
    const results = await Promise.all([1, 2, 3].map(() => adapter.holdingsByAppKey(account)));
    expect(results.map((r) => r.accounts[0]!.totalKrw)).toEqual([10_010_135n, 10_010_135n, 10_010_135n]);
    expect(sentTo('/inquire-balance').length).toBeGreaterThan(4); // at least one was refused and sent again
  });

  it("reads KIS's published answers: the token, the balance, an account not linked, an invalid token, the token limit", async () => {
    const account = await openAccount();
    const adapter = kis(`${base}/stub`);
    stub.token = { status: 200, body: publishedToken() };
    stub.balance = [{ status: 200, body: fixture('inquire-balance-mock-success.thirdparty.json') }];
    expect((await adapter.holdingsByAppKey(account)).accounts[0]!.totalKrw).toBe(10_010_135n);
    expect(sentTo('/inquire-balance')[0]!.headers.authorization).toBe(`Bearer ${publishedToken().access_token}`);

    stub.balance = [{ status: 200, body: fixture('inquire-balance-error-OPSQ2000.thirdparty.json') }];
    expect(isRefusal(await failure(adapter.holdingsByAppKey(account)))).toBe(true);

    // An invalid token (HTTP 500, EGW00121): asked for again once, then the inquiry answered.
    stub.balance = [
      { status: 500, body: fixture('inquire-balance-error-EGW00121.thirdparty.json') },
      { status: 200, body: fixture('inquire-balance-mock-success.thirdparty.json') },
    ];
    const before = sentTo('/oauth2/tokenP').length;
    expect((await adapter.holdingsByAppKey(account)).accounts[0]!.totalKrw).toBe(10_010_135n);
    expect(sentTo('/oauth2/tokenP').length).toBe(before + 1);

    const fresh = kis(`${base}/stub`);
    stub.token = { status: 403, body: fixture('token-error-EGW00133.json') };
    expect(await failure(fresh.holdingsByAppKey(account))).toBeInstanceOf(ProviderUnavailable);
  });

  it('reads a token refusal that names its code by msg_cd instead of error_code as the same refusal (defensive: none is published)', async () => {
    const account = await openAccount();
    stub.token = { status: 403, body: { rt_cd: '1', msg_cd: 'EGW00103', msg1: '유효하지 않은 AppKey입니다.' } };
    const error = await failure(kis(`${base}/stub`).holdingsByAppKey(account));
    expect(isRefusal(error)).toBe(true);
    expect(error.message).toContain('EGW00103');
    // The published form still wins where both are given.
    stub.token = { status: 403, body: { ...fixture('token-error-EGW00133.json'), msg_cd: 'EGW00103' } };
    expect(await failure(kis(`${base}/stub`).holdingsByAppKey(account))).toBeInstanceOf(ProviderUnavailable);
  });

  it('takes a 5xx without a body, or an answer outside the schema, as an outage', async () => {
    const account = await openAccount();
    const adapter = kis(`${base}/stub`);
    stub.token = { status: 200, body: publishedToken() };
    stub.balance = [{ status: 502, body: '' }];
    expect(await failure(adapter.holdingsByAppKey(account))).toBeInstanceOf(ProviderUnavailable);
    const { output2, ...noSummary } = fixture('inquire-balance-mock-success.thirdparty.json');
    expect(output2).toHaveLength(1);
    stub.balance = [{ status: 200, body: noSummary }];
    expect(await failure(adapter.holdingsByAppKey(account))).toBeInstanceOf(ProviderUnavailable);
  });
});

describe("the sandbox's emulation against KIS's published answers", () => {
  it('answers a token with the keys of the published example', async () => {
    const account = await openAccount();
    ahead += 61_000;
    const answer = (await (
      await fetch(`${base}/kis/oauth2/tokenP`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          appkey: account.appKey,
          appsecret: account.appSecret,
        }),
      })
    ).json()) as Record<string, unknown>;
    expect(keysOf(answer)).toEqual(keysOf(fixture('token-success.json')));
    expect(answer.token_type).toBe('Bearer');
    expect(answer.expires_in).toBe(86_400);
    expect(answer.access_token_token_expired).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('answers the balance with the keys of the published answer, every number a string, and the same totals', async () => {
    const account = await openAccount();
    ahead += 61_000;
    const { cano, productCode } = splitKisAccount(account.accountNo);
    const token = await tokenOf(account);
    const response = await fetch(`${base}/kis${KIS_BALANCE_PATH}?${balanceQuery(cano, productCode)}`, {
      headers: {
        authorization: `Bearer ${token}`,
        appkey: account.appKey,
        appsecret: account.appSecret,
        tr_id: 'VTTC8434R',
        custtype: 'P',
      },
    });
    expect(response.headers.get('tr_cont')).toBe('D');
    const answer = (await response.json()) as any;
    const published = fixture('inquire-balance-mock-success.thirdparty.json');
    expect(keysOf(answer)).toEqual(keysOf(published));
    expect(keysOf(answer.output1[0])).toEqual(keysOf(published.output1[0]));
    expect(keysOf(answer.output2[0])).toEqual(keysOf(published.output2[0]));
    for (const row of [...answer.output1, ...answer.output2])
      for (const value of Object.values(row)) expect(typeof value).toBe('string');
    expect(answer.ctx_area_nk100).toHaveLength(100);
    expect([answer.rt_cd, answer.msg_cd, answer.msg1.trim()]).toEqual([
      published.rt_cd,
      published.msg_cd,
      published.msg1.trim(),
    ]);
    for (const field of ['dnca_tot_amt', 'scts_evlu_amt', 'tot_evlu_amt', 'nass_amt', 'pchs_amt_smtl_amt'])
      expect([field, answer.output2[0][field]]).toEqual([field, published.output2[0][field]]);
    expect(expectAnswer(KisBalanceAnswer, answer, 'the emulation').output2[0]!.tot_evlu_amt).toBe('10010135');
  });
});
