import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { IdCardToCheck } from '../../integrations/id-card/authenticity';
import { UsebIdCardCheck, UsebStatusAnswer, verdictOf } from '../../integrations/id-card/useb';
import { ProviderAnswerInvalid, ProviderUnavailable, expectAnswer } from '../../integrations/provider-http';
import { usebRouter, type UsebErrorCode } from '../../sandbox/useb';

/**
 * The useB adapter against the useB emulator over real HTTP, and both against useB's published examples
 * (fixtures/useb/SOURCES.md). One clock for both, moved by the tests; the emulator's may run ahead of the adapter's.
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/useb', name), 'utf8'));
const CLIENT = { clientId: 'useb-client', clientSecret: 'useb-client-secret' };
const MINUTE = 60_000;

let server: Server;
let base: string;
let clock = Date.parse('2026-03-02T03:00:00Z');
/** How far the emulator's clock runs ahead of the adapter's. */
let usebAhead = 0;
let failWith: UsebErrorCode | undefined;
/** What a stub provider answers under /stub/api and /stub/auth (answers the emulator never gives). */
let stub: { api?: { status: number; body: unknown }; auth?: { status: number; body: unknown } };
const sent: Array<{ path: string; headers: IncomingHttpHeaders; body: any }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '20mb' }));
  koa.use(async (ctx, next) => {
    if (/^\/(useb|stub)\/(api|auth)\//.test(ctx.path))
      sent.push({ path: ctx.path, headers: ctx.headers, body: ctx.request.body });
    const stubbed = ctx.path.startsWith('/stub/auth/')
      ? stub.auth
      : ctx.path.startsWith('/stub/api/')
        ? stub.api
        : null;
    if (stubbed === null) return next();
    ctx.status = stubbed?.status ?? 404;
    ctx.body = stubbed?.body ?? { error: 'no stub' };
  });
  koa.use(usebRouter({ ...CLIENT, now: () => new Date(clock + usebAhead), failWith: () => failWith }).routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  failWith = undefined;
  stub = {};
  sent.length = 0;
});

const check = (options: { apiUrl?: string; authUrl?: string; clientSecret?: string } = {}) =>
  new UsebIdCardCheck({
    apiUrl: `${base}/useb/api`,
    authUrl: `${base}/useb/auth`,
    ...CLIENT,
    transport: { timeoutMs: 5000 },
    now: () => clock,
    ...options,
  });
const sentTo = (suffix: string) => sent.filter((r) => r.path.endsWith(suffix));
const stats = async () => (await fetch(`${base}/useb/_stats`)).json() as Promise<{ tokens: number; checks: number }>;
const admin = (path: string, body: object) =>
  fetch(`${base}/useb${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** The error a check ends with (the check must fail). */
const failure = async (checking: Promise<unknown>): Promise<Error> => {
  try {
    await checking;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the check did not fail');
};
const shape = (value: unknown): unknown =>
  value && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
    : typeof value;

/** A card of its own per test (the emulator remembers reports and wrong issue dates per number). */
let serial = 100000;
const residentCard = (change: Partial<IdCardToCheck> = {}): IdCardToCheck => ({
  kind: 'resident_id',
  name: '홍길동',
  birthDate: '1980-01-01',
  idNumber: `8001011${++serial}`,
  issueDate: '2020-08-16',
  ...change,
});
const licence = (change: Partial<IdCardToCheck> = {}): IdCardToCheck => ({
  kind: 'driver_license',
  name: '홍길동',
  birthDate: '1982-11-20',
  idNumber: '8211201234567',
  licenseNumber: `1116${++serial}61`,
  licenseSerial: '9WSWRQ',
  ...change,
});

describe('the useB token', () => {
  it('is asked for with HTTP Basic client credentials and no body', async () => {
    await check().check(residentCard(), 'req-1');
    const [request] = sentTo('/oauth/token');
    expect(request!.path).toBe('/useb/auth/oauth/token');
    const basic = Buffer.from('useb-client:useb-client-secret').toString('base64');
    expect(request!.headers.authorization).toBe(`Basic ${basic}`);
    expect(request!.headers['content-length'] ?? '0').toBe('0');
  });

  it('is reused until a minute before it expires, then renewed', async () => {
    const adapter = check();
    const before = await stats();
    await adapter.check(residentCard(), 'r1');
    await adapter.check(residentCard(), 'r2');
    clock += 58 * MINUTE;
    await adapter.check(residentCard(), 'r3');
    expect((await stats()).tokens - before.tokens).toBe(1);
    clock += MINUTE;
    await adapter.check(residentCard(), 'r4');
    expect((await stats()).tokens - before.tokens).toBe(2);
    const tokens = sentTo('/status/idcard').map((r) => r.headers.authorization);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    expect(tokens[3]).not.toBe(tokens[0]);
  });

  it('is asked for once for checks made at once', async () => {
    const adapter = check();
    const before = await stats();
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => adapter.check(residentCard(), `r${n}`)));
    expect(results).toEqual(['valid', 'valid', 'valid', 'valid', 'valid']);
    expect((await stats()).tokens - before.tokens).toBe(1);
  });

  it('is renewed when useB no longer takes it (C011), and the check asked again once', async () => {
    const adapter = check();
    await adapter.check(residentCard(), 'r1');
    usebAhead = 2 * 60 * MINUTE; // expired at useB, not yet by our clock
    try {
      const before = await stats();
      expect(await adapter.check(residentCard(), 'r2')).toBe('valid');
      expect((await stats()).tokens - before.tokens).toBe(1);
      expect(sentTo('/status/idcard')).toHaveLength(3);
    } finally {
      usebAhead = 0;
    }
  });

  it('fails the check as an outage when useB refuses a fresh token too', async () => {
    failWith = 'C011';
    const error = await failure(check().check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toBe('useB refused a fresh token: C011 Token is invalid');
    expect(sentTo('/status/idcard')).toHaveLength(2);
    expect(sentTo('/oauth/token')).toHaveLength(2);
  });

  it('names the client settings when useB refuses our client credentials (C003)', async () => {
    const error = await failure(check({ clientSecret: 'not-the-secret' }).check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toBe(
      'useB refused us a token (C003 Client info is invalid): check ID_CARD_CHECK_CLIENT_ID and ID_CARD_CHECK_CLIENT_SECRET',
    );
    expect(sentTo('/status/idcard')).toHaveLength(0);
  });

  it('refuses a token answer without a readable expiry as invalid', async () => {
    stub.auth = { status: 200, body: { ...fixture('token-success.json'), expires_in: '2021-05-08T18:39:00Z' } };
    const error = await failure(check({ authUrl: `${base}/stub/auth` }).check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
  });

  it("takes the published token example's JWT, and keeps one whose expiry reads as past until useB refuses it", async () => {
    const token = fixture('token-success.json');
    stub.auth = { status: 200, body: token };
    stub.api = { status: 200, body: fixture('status-idcard-success.json') };
    const adapter = check({ authUrl: `${base}/stub/auth`, apiUrl: `${base}/stub/api` });
    expect(await adapter.check(residentCard(), 'r1')).toBe('valid');
    expect(await adapter.check(residentCard(), 'r2')).toBe('valid');
    expect(sentTo('/oauth/token')).toHaveLength(1);
    expect(sentTo('/status/idcard').map((r) => r.headers.authorization)).toEqual([
      `Bearer ${token.jwt}`,
      `Bearer ${token.jwt}`,
    ]);
  });
});

describe('the useB check request', () => {
  it('sends a resident card to /status/idcard as the documented fields, with the token as Bearer', async () => {
    const card = residentCard();
    expect(await check().check(card, 'r1')).toBe('valid');
    const [request] = sentTo('/status/idcard');
    expect(request!.path).toBe('/useb/api/status/idcard');
    expect(request!.headers.authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toEqual({ identity: card.idNumber, issueDate: '20200816', userName: '홍길동' });
    expect(shape(request!.body)).toEqual(shape(fixture('status-idcard-request.json')));
  });

  it('sends a driver licence to /status/driver: the hyphenated number, birth date, resident number and serial', async () => {
    const card = licence({ licenseNumber: '111604439161' });
    expect(await check().check(card, 'r1')).toBe('valid');
    const [request] = sentTo('/status/driver');
    expect(request!.body).toEqual({
      userName: '홍길동',
      birthDate: '19821120',
      licenseNo: '11-16-044391-61',
      juminNo: '8211201234567',
      serialNo: '9WSWRQ',
    });
    expect(shape(request!.body)).toEqual(shape(fixture('status-driver-request.json')));
  });

  it('leaves out the serial and the resident number a licence reading lacks', async () => {
    await check().check(licence({ idNumber: undefined, licenseSerial: undefined }), 'r1');
    expect(Object.keys(sentTo('/status/driver')[0]!.body).sort()).toEqual(['birthDate', 'licenseNo', 'userName']);
  });

  it.each(['passport', 'alien_registration'] as const)(
    'answers unsupported for a %s without calling useB',
    async (kind) => {
      expect(await check().check(residentCard({ kind }), 'r1')).toBe('unsupported');
      expect(sent).toHaveLength(0);
    },
  );

  it.each([
    ['a resident card without its number', residentCard({ idNumber: undefined })],
    ['a resident card without its issue date', residentCard({ issueDate: undefined })],
    ['a licence without its number', licence({ licenseNumber: undefined })],
    ['a licence number of 11 digits', licence({ licenseNumber: '11160443916' })],
    ['a licence without a birth date', licence({ birthDate: '' })],
  ])('answers mismatch for %s without calling useB', async (_what, card) => {
    expect(await check().check(card, 'r1')).toBe('mismatch');
    expect(sent).toHaveLength(0);
  });
});

describe("useB's verdicts, from the emulator's records", () => {
  it('answers valid for a consistent resident card', async () => {
    expect(await check().check(residentCard(), 'r1')).toBe('valid');
  });

  it('answers mismatch for an issue date before the birth date (A004)', async () => {
    expect(await check().check(residentCard({ issueDate: '1979-12-31' }), 'r1')).toBe('mismatch');
  });

  it('answers locked from the fifth wrong issue date on, even with the right one (A005)', async () => {
    const card = residentCard();
    const adapter = check();
    const wrong = { ...card, issueDate: '2099-01-01' };
    const results = [];
    for (let n = 0; n < 5; n += 1) results.push(await adapter.check(wrong, `r${n}`));
    expect(results).toEqual(['mismatch', 'mismatch', 'mismatch', 'mismatch', 'locked']);
    expect(await adapter.check(card, 'r5')).toBe('locked');
  });

  it('answers reported_lost for a resident card reported lost (A006)', async () => {
    const card = residentCard();
    expect((await admin('/_reports', { idNumber: card.idNumber, status: 'lost' })).status).toBe(201);
    expect(await check().check(card, 'r1')).toBe('reported_lost');
  });

  it('answers mismatch for a licence serial other than the one its card carries (A014), valid for that one', async () => {
    const card = licence();
    expect((await admin('/_licenses', { licenseNumber: card.licenseNumber, serial: 'A1B2C3' })).status).toBe(201);
    expect(await check().check(card, 'r1')).toBe('mismatch');
    expect(await check().check({ ...card, licenseSerial: 'A1B2C3' }, 'r2')).toBe('valid');
  });

  it('answers expired for a superseded licence number (A016)', async () => {
    const card = licence();
    expect((await admin('/_reports', { licenseNumber: card.licenseNumber, status: 'superseded' })).status).toBe(201);
    expect(await check().check(card, 'r1')).toBe('expired');
  });

  it('answers reported_lost for a licence reported lost (A006)', async () => {
    const card = licence();
    await admin('/_reports', { licenseNumber: card.licenseNumber, status: 'lost' });
    expect(await check().check(card, 'r1')).toBe('reported_lost');
  });

  it('answers mismatch for a licence whose year block is before the birth year (A013)', async () => {
    expect(await check().check(licence({ licenseNumber: `1175${++serial}61` }), 'r1')).toBe('mismatch');
  });

  it("answers mismatch for a licence whose resident number is not the holder's birth date (A011)", async () => {
    expect(await check().check(licence({ idNumber: '8311201234567' }), 'r1')).toBe('mismatch');
  });
});

describe("useB's codes", () => {
  it.each([
    ['A001', 'mismatch'],
    ['A002', 'mismatch'],
    ['A003', 'mismatch'],
    ['A004', 'mismatch'],
    ['A011', 'mismatch'],
    ['A013', 'mismatch'],
    ['A014', 'mismatch'],
    ['A005', 'locked'],
    ['A006', 'reported_lost'],
    ['A016', 'expired'],
  ] as const)('answer %s as %s', async (code, result) => {
    failWith = code;
    expect(await check().check(residentCard(), 'r1')).toBe(result);
  });

  it.each([
    ['C071', 'out_of_credit: ask useB for credit'],
    ['C004', 'account_suspended: ask useB'],
    ['C429', 'too_many_requests'],
    ['A015', 'scrapping_error: useB could not read the authority'],
  ] as const)('%s is an outage naming the code, never a result', async (code, meaning) => {
    failWith = code;
    const error = await failure(check().check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toBe(`useB did not check the card: ${code} ${meaning}`);
  });

  it.each(['C016', 'C061', 'C504'] as const)('%s (HTTP 500: the authority is down) is an outage', async (code) => {
    failWith = code;
    const error = await failure(check().check(licence(), 'r1'));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toMatch(/answered 500 on \/status\/driver$/);
  });

  it.each([
    ['C061 with a 400', 400, { success: false, message: 'server error', error_code: 'C061', transaction_id: 'x' }],
    ['any 5xx', 502, '<html>Bad Gateway</html>'],
  ])('%s is an outage', async (_what, status, body) => {
    stub.api = { status, body };
    const error = await failure(check({ apiUrl: `${base}/stub/api` }).check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
  });

  it.each([
    ['an unknown code', { success: false, message: 'new', error_code: 'A099', transaction_id: 'x' }],
    ['a documented code of another kind (C001)', { success: false, message: 'ct', error_code: 'C001' }],
    ['a failure without a code', { success: false, message: 'no code' }],
    ['success that is not a boolean', { success: 'true', message: 'ok' }],
    ['no message', { success: true }],
  ])('%s is an invalid answer, never a result', async (_what, body) => {
    stub.api = { status: 400, body };
    const error = await failure(check({ apiUrl: `${base}/stub/api` }).check(residentCard(), 'r1'));
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
  });
});

describe("useB's published answers", () => {
  const read = (body: unknown) => verdictOf(expectAnswer(UsebStatusAnswer, body, 'a useB answer'));

  it('reads the published success answer as valid', () => {
    expect(read(fixture('status-idcard-success.json'))).toBe('valid');
  });

  it('reads the published A001 answer as mismatch', () => {
    expect(read(fixture('status-idcard-error-A001.json'))).toBe('mismatch');
  });

  it('the emulator answers in their shape, and a token in the shape of the documented example', async () => {
    const tokenAnswer = await fetch(`${base}/useb/auth/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('useb-client:useb-client-secret').toString('base64')}` },
    });
    const token = (await tokenAnswer.json()) as any;
    expect(tokenAnswer.status).toBe(200);
    expect(shape(token)).toEqual(shape(fixture('token-success.json')));
    const inKst = new Date(clock + 60 * MINUTE + 9 * 60 * MINUTE).toISOString().slice(0, 19).replace('T', ' ');
    expect(token.expires_in).toBe(inKst);

    // useB's Go SDK sends the bare token (its Node client `Bearer <jwt>`): the emulator takes both.
    const ask = (body: object) =>
      fetch(`${base}/useb/api/status/idcard`, {
        method: 'POST',
        headers: { authorization: token.jwt, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const success = await ask({ identity: residentCard().idNumber, issueDate: '20200816', userName: '홍길동' });
    expect(success.status).toBe(200);
    expect(shape(await success.json())).toEqual(shape(fixture('status-idcard-success.json')));
    const a001 = await ask({ identity: '800101123', issueDate: '20200816', userName: '홍길동' });
    expect(a001.status).toBe(400);
    const refusal = (await a001.json()) as any;
    expect(shape(refusal)).toEqual(shape(fixture('status-idcard-error-A001.json')));
    expect(refusal.error_code).toBe('A001');
    expect(refusal.message).toBe(fixture('status-idcard-error-A001.json').message);
  });
});
