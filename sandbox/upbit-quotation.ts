import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * Upbit's quotation API as it answers (https://docs.upbit.com/kr/reference, no authentication), under /upbit:
 * `GET /upbit/v1/candles/minutes/{unit}` (units 1, 3, 5, 10, 15, 30, 60, 240; `market`, `to` exclusive, `count` at
 * most 200 intervals; newest first) and `GET /upbit/v1/ticker?markets=…`, over a deterministic price series per market (the
 * same market and time always give the same price), so tests can check statistics by hand:
 * price(t) = base · (1 + 0.04·sin(2πt/1 day) + 0.08·sin(2πt/9 days)), t in hours since the Unix epoch; USDT and USDC
 * stay at their base. A candle's close (`trade_price`) is the price at its end, its last trade a second before.
 * As Upbit: no trade, no candle (`PUT /upbit/_quiet/{market}` `{hours}` marks hours without trades); errors as
 * `{"error": {"name", "message"}}`; `Remaining-Req: group=candles; min=600; sec=N`, 10 calls a second, then 429.
 */
export const BASE_PRICES_KRW: Record<string, number> = {
  'KRW-BTC': 95_000_000,
  'KRW-ETH': 4_200_000,
  'KRW-SOL': 210_000,
  'KRW-POL': 700,
  'KRW-USDT': 1_400,
  'KRW-USDC': 1_400,
};
const UNITS = [1, 3, 5, 10, 15, 30, 60, 240];
const CALLS_PER_SECOND = 10;
const HOUR_MS = 3_600_000;

/** The price of an asset (BTC, or its market KRW-BTC) at a time (ms since the epoch). */
export function priceAtMs(asset: string, ms: number): number {
  const market = asset.includes('-') ? asset : `KRW-${asset}`;
  const base = BASE_PRICES_KRW[market]!;
  if (market === 'KRW-USDT' || market === 'KRW-USDC') return base;
  const hour = ms / HOUR_MS;
  return Math.round(
    base * (1 + 0.04 * Math.sin((2 * Math.PI * hour) / 24) + 0.08 * Math.sin((2 * Math.PI * hour) / (24 * 9))),
  );
}

/** The price at an hour mark (hours since the epoch). */
export const priceAt = (asset: string, hour: number): number => priceAtMs(asset, hour * HOUR_MS);

/** `yyyy-MM-ddTHH:mm:ss` of a time, in UTC or in Korea. */
const dateTime = (ms: number, offsetHours = 0) => new Date(ms + offsetHours * HOUR_MS).toISOString().slice(0, 19);

export function upbitQuotationRouter(options: { now?: () => number } = {}): Router {
  const now = options.now ?? Date.now;
  const quiet = new Map<string, Set<number>>();
  let second = 0;
  let calls = 0;
  const router = new Router({ prefix: '/upbit' });
  const fail = (ctx: Context, status: number, name: string | number, message: string) => {
    ctx.status = status;
    ctx.body = { error: { name, message } };
  };
  /** The quotation group's limit: per IP (here, per sandbox), per second. */
  const limited = (ctx: Context, group: string): boolean => {
    const at = Math.floor(now() / 1000);
    if (at !== second) [second, calls] = [at, 0];
    calls += 1;
    ctx.set('Remaining-Req', `group=${group}; min=600; sec=${Math.max(CALLS_PER_SECOND - calls, 0)}`);
    if (calls <= CALLS_PER_SECOND) return false;
    fail(ctx, 429, 429, 'Too many API requests.');
    return true;
  };

  router.put('/_quiet/:market', (ctx) => {
    const { hours } = ((ctx.request as unknown as { body?: { hours?: unknown } }).body ?? {}) as { hours?: unknown };
    if (!BASE_PRICES_KRW[ctx.params.market!] || !Array.isArray(hours) || !hours.every(Number.isSafeInteger)) {
      ctx.status = 400;
      ctx.body = { error: 'a market the sandbox quotes, and hours: [hours since the epoch] without trades' };
      return;
    }
    quiet.set(ctx.params.market!, new Set(hours as number[]));
    ctx.body = { market: ctx.params.market, quietHours: hours };
  });

  router.get('/v1/candles/minutes/:unit', (ctx) => {
    if (limited(ctx, 'candles')) return;
    const unit = Number(ctx.params.unit);
    const q = ctx.query as Record<string, string | undefined>;
    if (!UNITS.includes(unit)) return fail(ctx, 400, 'validation_error', `unit must be one of ${UNITS.join(', ')}`);
    const market = q.market;
    if (!market) return fail(ctx, 400, 'validation_error', 'market is required');
    if (!BASE_PRICES_KRW[market]) return fail(ctx, 404, 404, 'Code not found');
    const count = q.count === undefined ? 1 : Number(q.count);
    if (!Number.isInteger(count) || count < 1 || count > 200)
      return fail(ctx, 400, 'validation_error', 'count is between 1 and 200');
    const to = q.to ? Date.parse(/Z|[+-]\d{2}:\d{2}$/.test(q.to) ? q.to : `${q.to.replace(' ', 'T')}Z`) : now();
    if (Number.isNaN(to)) return fail(ctx, 400, 'validation_error', 'to is yyyy-MM-ddTHH:mm:ssZ');
    const unitMs = unit * 60_000;
    const current = now();
    const quietHours = quiet.get(market) ?? new Set<number>();
    const candles = [];
    // The candles of the `count` intervals before `to` that have started (the current one still forming), newest
    // first; an interval without trades has none, so such a page holds fewer (Upbit's guide to downloading candles
    // warns of exactly that).
    const newest = Math.floor(Math.min(to - 1, current) / unitMs) * unitMs;
    const first = Math.ceil(to / unitMs) * unitMs - count * unitMs;
    for (let start = newest; start >= Math.max(first, 0); start -= unitMs) {
      if (quietHours.has(Math.floor(start / HOUR_MS))) continue;
      const end = Math.min(start + unitMs, current);
      const [open, close] = [priceAtMs(market, start), priceAtMs(market, end)];
      candles.push({
        market,
        candle_date_time_utc: dateTime(start),
        candle_date_time_kst: dateTime(start, 9),
        opening_price: open,
        high_price: Math.max(open, close),
        low_price: Math.min(open, close),
        trade_price: close,
        timestamp: end - 1000,
        candle_acc_trade_price: close * 0.5,
        candle_acc_trade_volume: 0.5,
        unit,
      });
    }
    ctx.body = candles;
  });

  router.get('/v1/ticker', (ctx) => {
    if (limited(ctx, 'ticker')) return;
    const markets = String(ctx.query.markets ?? '')
      .split(',')
      .filter(Boolean);
    if (!markets.length) return fail(ctx, 400, 'validation_error', 'markets is required');
    if (markets.some((m) => !BASE_PRICES_KRW[m])) return fail(ctx, 404, 404, 'Code not found');
    const at = now();
    const day = Math.floor(at / (24 * HOUR_MS)) * 24 * HOUR_MS;
    ctx.body = markets.map((market) => {
      const price = priceAtMs(market, at);
      const previous = priceAtMs(market, day);
      const change = price - previous;
      return {
        market,
        trade_date: dateTime(at).slice(0, 10).replace(/-/g, ''),
        trade_time: dateTime(at).slice(11).replace(/:/g, ''),
        trade_date_kst: dateTime(at, 9).slice(0, 10).replace(/-/g, ''),
        trade_time_kst: dateTime(at, 9).slice(11).replace(/:/g, ''),
        trade_timestamp: at - 1000,
        opening_price: previous,
        high_price: Math.max(price, previous),
        low_price: Math.min(price, previous),
        trade_price: price,
        prev_closing_price: previous,
        change: change > 0 ? 'RISE' : change < 0 ? 'FALL' : 'EVEN',
        change_price: Math.abs(change),
        change_rate: previous ? Math.abs(change) / previous : 0,
        signed_change_price: change,
        signed_change_rate: previous ? change / previous : 0,
        trade_volume: 0.01,
        acc_trade_price: price,
        acc_trade_price_24h: price * 2,
        acc_trade_volume: 1,
        acc_trade_volume_24h: 2,
        highest_52_week_price: Math.round(BASE_PRICES_KRW[market]! * 1.12),
        highest_52_week_date: dateTime(at).slice(0, 10),
        lowest_52_week_price: Math.round(BASE_PRICES_KRW[market]! * 0.88),
        lowest_52_week_date: dateTime(at).slice(0, 10),
        timestamp: at,
      };
    });
  });
  return router;
}
