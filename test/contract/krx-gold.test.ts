import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { KrxGoldPrices } from '../../integrations/prices/krx-gold';
import { ProviderUnavailable } from '../../integrations/provider-http';
import { goldCloseOn, krxGoldRouter } from '../../sandbox/krx-gold';

/** The KRX gold adapter against the sandbox's emulation of the KRX Open API over real HTTP (fixtures/krx/SOURCES.md). */
const KEY = 'krx-auth-key-for-tests';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const KST = 9 * HOUR;

let server: Server;
let base: string;
const sent: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    sent.push({ url: ctx.url, headers: ctx.headers });
    return next();
  });
  koa.use(krxGoldRouter({ authKey: KEY }).routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
beforeEach(() => {
  sent.length = 0;
});

const gold = (authKey = KEY) =>
  new KrxGoldPrices({ apiUrl: `${base}/krx/svc/apis`, authKey, transport: { timeoutMs: 5000 } });
const thisHour = () => Math.floor(Date.now() / HOUR);
/** The Korean day number of a time. */
const kstDay = (ms: number) => Math.floor((ms + KST) / DAY);

describe('gold from the KRX Open API', () => {
  it('asks one trading day a call with the key in AUTH_KEY, never a weekend, and carries each close from 15:30 in Korea', async () => {
    const hour = thisHour();
    const points = await gold().hourly('GOLD', hour - 24 * 7, hour);
    expect(sent.length).toBeGreaterThan(0);
    for (const request of sent) {
      expect(request.url).toMatch(/^\/krx\/svc\/apis\/gen\/gold_bydd_trd\?basDd=\d{8}$/);
      expect(request.headers.auth_key).toBe(KEY);
      const basDd = request.url.slice(-8);
      const weekday = new Date(`${basDd.slice(0, 4)}-${basDd.slice(4, 6)}-${basDd.slice(6)}T00:00:00Z`).getUTCDay();
      expect([0, 6]).not.toContain(weekday);
    }
    expect(points).toHaveLength(24 * 7 + 1);
    for (const point of points) {
      const mark = Date.parse(point.at);
      // The last close at or before the mark: the latest weekday before today (Korea) whose 15:30 has passed.
      let day = kstDay(mark);
      const closeAt = (d: number) => d * DAY - KST + 15.5 * HOUR;
      while (goldCloseOn(day) === null || closeAt(day) > mark || day >= kstDay(Date.now())) day -= 1;
      expect([point.at, point.price, point.tradedAt]).toEqual([
        point.at,
        goldCloseOn(day),
        new Date(closeAt(day)).toISOString(),
      ]);
      expect(point.carried ?? false).toBe(mark - closeAt(day) >= HOUR);
    }
    // Past days never change: asked again, only the days not yet published are asked again.
    const asked = sent.length;
    sent.length = 0;
    await gold().hourly('GOLD', hour - 24 * 7, hour); // a new adapter asks every day again
    expect(sent.length).toBe(asked);
    const adapter = gold();
    await adapter.hourly('GOLD', hour - 24 * 7, hour);
    sent.length = 0;
    await adapter.hourly('GOLD', hour - 24 * 7, hour);
    expect(sent).toHaveLength(0); // days not published yet are asked again only after a while
  });

  it('quotes gold only, and takes a refused key as an outage naming the setting', async () => {
    expect([gold().quotes('GOLD'), gold().quotes('BTC')]).toEqual([true, false]);
    const error = await gold('wrong-key-for-tests')
      .hourly('GOLD', thisHour() - 1, thisHour())
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect((error as Error).message).toContain('GOLD_PRICE_AUTH_KEY');
  });

  it("answers the rows with the keys of the specification's sample, every value a string", async () => {
    const published = JSON.parse(
      readFileSync(join(__dirname, 'fixtures/krx/gold-bydd-trd-response.thirdparty.json'), 'utf8'),
    );
    // A weekday in the past.
    let day = kstDay(Date.now()) - 1;
    while (goldCloseOn(day) === null) day -= 1;
    const basDd = new Date(day * DAY).toISOString().slice(0, 10).replace(/-/g, '');
    const answer = (await (
      await fetch(`${base}/krx/svc/apis/gen/gold_bydd_trd?basDd=${basDd}`, { headers: { AUTH_KEY: KEY } })
    ).json()) as any;
    expect(Object.keys(answer)).toEqual(Object.keys(published));
    expect(Object.keys(answer.OutBlock_1[0]).sort()).toEqual(Object.keys(published.OutBlock_1[0]).sort());
    for (const value of Object.values(answer.OutBlock_1[0])) expect(typeof value).toBe('string');
    expect(answer.OutBlock_1[0]).toMatchObject({ BAS_DD: basDd, ISU_CD: '04020000', ISU_NM: '금 99.99_1kg' });
  });
});
