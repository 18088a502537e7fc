import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ApplicationFailure } from '@temporalio/common';
import { UpbitCandles, UpbitQuotation } from '../../integrations/prices/upbit';
import { PriceFeedClient } from '../../integrations/prices/feed';
import { ProviderUnavailable, expectAnswer } from '../../integrations/provider-http';
import { priceAt, upbitQuotationRouter } from '../../sandbox/upbit-quotation';
import { PROVIDER_REJECTED } from '../../platform/failures';
import { upbitCandles } from '../helpers/prices';

/**
 * The Upbit quotation adapter against the sandbox's emulation over real HTTP, and both against Upbit's published
 * examples (fixtures/upbit/SOURCES.md).
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/upbit', name), 'utf8'));
const HOUR = 3_600_000;

let server: Server;
let base: string;
/** What a stub Upbit answers under /stub (answers the emulator never gives), in turn. */
let stub: Array<{ status: number; body: unknown; headers?: Record<string, string> }>;
const sent: Array<{ url: string; headers: IncomingHttpHeaders; at: number }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json'] }));
  koa.use(async (ctx, next) => {
    if (!ctx.path.includes('/_')) sent.push({ url: ctx.url, headers: ctx.headers, at: Date.now() });
    if (ctx.path.startsWith('/stub/')) {
      const answer = stub.shift() ?? { status: 404, body: { error: { name: 404, message: 'no stub' } } };
      ctx.status = answer.status;
      ctx.body = answer.body;
      for (const [name, value] of Object.entries(answer.headers ?? {})) ctx.set(name, value);
      return;
    }
    return next();
  });
  koa.use(upbitQuotationRouter().routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  stub = [];
  sent.length = 0;
});

const upbit = (options: { apiUrl?: string; keepSeconds?: number } = {}) =>
  new UpbitQuotation({
    apiUrl: options.apiUrl ?? `${base}/upbit`,
    transport: { timeoutMs: 5000 },
    keepSeconds: options.keepSeconds ?? 0,
  });
const thisHour = () => Math.floor(Date.now() / HOUR);
const failure = async (asking: Promise<unknown>): Promise<Error> => {
  try {
    await asking;
  } catch (error) {
    return error as Error;
  }
  throw new Error('the call did not fail');
};
const isoHour = (hour: number) => new Date(hour * HOUR).toISOString().replace('.000Z', 'Z');
const keysOf = (value: object) => Object.keys(value).sort();

describe('Upbit candles as Upbit documents them', () => {
  it('asks hourly candles of the market before the last mark, without credentials or an Origin', async () => {
    const hour = thisHour();
    const points = await upbit().hourly('ETH', hour - 24, hour);
    const [request] = sent;
    expect(request!.url).toBe(
      `/upbit/v1/candles/minutes/60?market=KRW-ETH&to=${encodeURIComponent(isoHour(hour))}&count=49`,
    );
    expect(request!.headers.authorization).toBeUndefined();
    expect(request!.headers.origin).toBeUndefined();
    expect(points.map((p) => [p.at, p.price])).toEqual(
      Array.from({ length: 25 }, (_, i) => [
        new Date((hour - 24 + i) * HOUR).toISOString(),
        priceAt('ETH', hour - 24 + i),
      ]),
    );
    expect(points.some((p) => p.carried)).toBe(false);
  });

  it('reads 200 candles a page, back to the window’s start', async () => {
    const hour = thisHour();
    const points = await upbit().hourly('BTC', hour - 24 * 30, hour);
    expect(points).toHaveLength(24 * 30 + 1);
    expect(points[0]!.price).toBe(priceAt('BTC', hour - 24 * 30));
    expect(sent.map((r) => new URL(`http://x${r.url}`).searchParams.get('count'))).toEqual([
      '200',
      '200',
      '200',
      '145',
    ]);
  });

  it('carries the last trade over hours without trades (no candle), and says so', async () => {
    const hour = thisHour();
    await fetch(`${base}/upbit/_quiet/KRW-SOL`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hours: [hour - 3, hour - 2] }),
    });
    const points = await upbit().hourly('SOL', hour - 4, hour);
    expect(points.map((p) => [p.price, p.carried ?? false])).toEqual([
      [priceAt('SOL', hour - 4), false],
      [priceAt('SOL', hour - 3), false],
      [priceAt('SOL', hour - 3), true], // the hour before this mark had no trade
      [priceAt('SOL', hour - 3), true],
      [priceAt('SOL', hour), false],
    ]);
    expect(points[3]!.tradedAt).toBe(new Date((hour - 3) * HOUR - 1000).toISOString());
  });

  it('paces its calls below Upbit’s 10 a second, waits out a 429, and keeps answers as long as told, one request for callers at once', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the calls of the tests before are a second old
    sent.length = 0;
    const hour = thisHour();
    const adapter = upbit();
    // 14 different windows at once: the process sends at most 8 in any second, so Upbit never refuses one.
    const results = await Promise.all(Array.from({ length: 14 }, (_, i) => adapter.hourly('ETH', hour - 2 - i, hour)));
    expect(results.map((r) => r.length)).toEqual(Array.from({ length: 14 }, (_, i) => 3 + i));
    expect(sent).toHaveLength(14);
    for (const call of sent)
      expect(sent.filter((c) => c.at >= call.at && c.at < call.at + 1000).length).toBeLessThanOrEqual(8);

    // A 429 all the same (another process used the allowance): waited out and asked again.
    sent.length = 0;
    stub = [
      { status: 429, body: { error: { name: 429, message: 'Too many API requests.' } } },
      { status: 200, body: upbitCandles('KRW-ETH', [{ hour, price: 4_200_000 }]) },
    ];
    expect((await upbit({ apiUrl: `${base}/stub` }).hourly('ETH', hour, hour)).map((p) => p.price)).toEqual([
      4_200_000,
    ]);
    expect(sent).toHaveLength(2);

    sent.length = 0;
    const keeping = upbit({ keepSeconds: 60 });
    await Promise.all([keeping.hourly('ETH', hour - 1, hour), keeping.hourly('ETH', hour - 1, hour)]);
    await keeping.hourly('ETH', hour - 1, hour);
    expect(sent).toHaveLength(1);
  });
});

describe('Upbit refusals and answers outside the API', () => {
  it('takes an unknown market as a refusal, a 5xx or a 418 as an outage, and a candle of another market or hour as invalid', async () => {
    const hour = thisHour();
    const stubbed = upbit({ apiUrl: `${base}/stub` });
    stub = [{ status: 404, body: { error: { name: 404, message: 'Code not found' } } }];
    const refused = await failure(stubbed.hourly('ETH', hour - 1, hour));
    expect(refused instanceof ApplicationFailure && refused.type === PROVIDER_REJECTED).toBe(true);
    stub = [{ status: 500, body: {} }];
    expect(await failure(stubbed.hourly('ETH', hour - 1, hour))).toBeInstanceOf(ProviderUnavailable);
    // Refused for a valuation, the reason names no provider address (it reaches the caller of a transfer).
    stub = [{ status: 500, body: {} }];
    const refusal = await new PriceFeedClient({ source: stubbed }).wonPrice('ETH');
    expect(refusal).toEqual({ refused: expect.stringContaining('answered 500') });
    expect(JSON.stringify(refusal)).not.toContain('127.0.0.1');
    stub = [{ status: 400, body: { error: { name: 'validation_error', message: 'count' } } }];
    expect(await failure(stubbed.hourly('ETH', hour - 1, hour))).toBeInstanceOf(ProviderUnavailable);
    // Blocked (418): nothing more is called for a while, whatever is asked.
    const blocked = upbit({ apiUrl: `${base}/stub` });
    stub = [{ status: 418, body: { error: { name: 418, message: 'blocked' } } }];
    expect(await failure(blocked.hourly('ETH', hour - 1, hour))).toBeInstanceOf(ProviderUnavailable);
    sent.length = 0;
    expect((await failure(blocked.hourly('BTC', hour - 1, hour))).message).toContain('418');
    expect(sent).toHaveLength(0);
    stub = [{ status: 200, body: upbitCandles('KRW-BTC', [{ hour, price: 1 }]) }];
    expect((await failure(stubbed.hourly('ETH', hour - 1, hour))).message).toContain('KRW-BTC');
    stub = [{ status: 200, body: upbitCandles('KRW-ETH', [{ hour: hour + 1, price: 1 }]) }];
    expect(await failure(stubbed.hourly('ETH', hour - 1, hour))).toBeInstanceOf(ProviderUnavailable);
    // A last trade outside its candle's hour (a future one would make an old price look fresh).
    const [candle] = upbitCandles('KRW-ETH', [{ hour, price: 1 }]) as Array<Record<string, unknown>>;
    stub = [{ status: 200, body: [{ ...candle, timestamp: Date.now() + 3_600_000 }] }];
    expect(await failure(stubbed.hourly('ETH', hour - 1, hour))).toBeInstanceOf(ProviderUnavailable);
    // A price JSON reads as Infinity is refused, not thrown about.
    stub = [{ status: 200, body: [{ ...candle, trade_price: 1e308 * 10 }] }];
    expect(await new PriceFeedClient({ source: stubbed }).wonPrice('ETH')).toEqual({ refused: expect.any(String) });
    expect(await failure(upbit().hourly('GOLD', hour - 1, hour))).toBeInstanceOf(ApplicationFailure);
  });

  it('values nothing with a price older than the age the checks allow, however it is carried', async () => {
    const hour = thisHour();
    stub = [{ status: 200, body: upbitCandles('KRW-USDT', [{ hour: hour - 5, price: 1400 }]) }];
    const prices = new PriceFeedClient({ source: upbit({ apiUrl: `${base}/stub` }) });
    expect(await prices.wonPrice('USDT')).toEqual({ refused: expect.stringContaining('stale') });
  });
});

describe("the sandbox's emulation against Upbit's published answers", () => {
  it('answers minute candles with the keys and types of the published example, newest first', async () => {
    const published = fixture('candles-minutes-1-response.thirdparty.json');
    expect(expectAnswer(UpbitCandles, published, 'the published example')).toHaveLength(1);
    const answer = (await (await fetch(`${base}/upbit/v1/candles/minutes/1?market=KRW-BTC&count=3`)).json()) as any[];
    expect(answer).toHaveLength(3);
    expect(keysOf(answer[0])).toEqual(keysOf(published[0]));
    for (const [key, value] of Object.entries(published[0]))
      expect([key, typeof answer[0][key]]).toEqual([key, typeof value]);
    expect(Date.parse(`${answer[0].candle_date_time_utc}Z`)).toBeGreaterThan(
      Date.parse(`${answer[1].candle_date_time_utc}Z`),
    );
    expect(Date.parse(`${answer[0].candle_date_time_kst}Z`) - Date.parse(`${answer[0].candle_date_time_utc}Z`)).toBe(
      9 * HOUR,
    );
  });

  it('answers the ticker with the keys and types of the published example, and the rate limit in Remaining-Req', async () => {
    const published = fixture('ticker-response.thirdparty.json');
    const response = await fetch(`${base}/upbit/v1/ticker?markets=KRW-BTC,KRW-ETH`);
    expect(response.headers.get('remaining-req')).toMatch(/^group=ticker; min=\d+; sec=\d+$/);
    const answer = (await response.json()) as any[];
    expect(answer.map((t) => t.market)).toEqual(published.map((t: any) => t.market));
    expect(keysOf(answer[0])).toEqual(keysOf(published[0]));
    for (const [key, value] of Object.entries(published[0]))
      expect([key, typeof answer[0][key]]).toEqual([key, typeof value]);
  });

  it('answers errors in the documented shape', async () => {
    const unknown = await fetch(`${base}/upbit/v1/candles/minutes/60?market=KRW-NOPE`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { name: 404, message: 'Code not found' } });
    const tooMany = await fetch(`${base}/upbit/v1/candles/minutes/60?market=KRW-BTC&count=201`);
    expect([tooMany.status, ((await tooMany.json()) as any).error.name]).toEqual([400, 'validation_error']);
  });
});
