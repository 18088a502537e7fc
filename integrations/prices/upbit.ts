import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import { PROVIDER_REJECTED } from '../../platform/failures';
import type { ProviderTransport } from '../../platform/provider-settings';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';
import type { MarketData, PricePoint } from './market-data';

/**
 * Upbit's quotation API (https://docs.upbit.com/kr/reference, no authentication): hourly candles,
 * `GET /v1/candles/minutes/60?market=KRW-BTC&to=…&count=…` (at most 200 a call, newest first, `to` exclusive). An hour
 * without trades has no candle (Upbit: "캔들은 해당 시간대에 체결이 발생한 경우에만 생성됩니다"): its mark carries the last
 * earlier trade's price, and says so (`carried`). Candles are read back until the window's first mark has a price or
 * a day before it has been read. Rate limits: 10 calls a second per IP for candles; this process paces its calls at 8
 * a second (valuations first), reads `Remaining-Req` (`group=candles; min=…; sec=N`: how many are left this second),
 * waits a 429 out (a second, three times) and calls nothing for a minute after a 418 (blocked). A candle once
 * complete never changes, so answers are kept `keepSeconds` (PRICE_FEED_KEEP_SECONDS), and calls asking the same at
once share one request.
 */
export const UPBIT_API = 'https://api.upbit.com';
const MAX_CANDLES = 200;
const HOUR_MS = 3_600_000;
/** How far before a window candles are read for a price to carry into its first marks. */
const LOOKBACK_HOURS = 24;
const RATE_LIMIT_RETRIES = 3;
const MAX_KEPT = 512;
/**
 * Below Upbit's 10 candle calls a second per IP, leaving room for the other processes' valuations: at most 8 calls
 * in any 1.2 s (the margin absorbs calls that set out apart and arrive together).
 */
const CALLS_PER_WINDOW = 8;
const PACE_WINDOW_MS = 1_200;
/** How long no call is made after Upbit blocked the address (418). */
const BLOCKED_MS = 60_000;

/**
 * Paces the quotation calls of this process below Upbit's limit; valuations (urgent: a transfer waits) go before
 * charts. After a 418 nothing is called until the block has passed.
 */
class Pacer {
  private stamps: number[] = [];
  private urgentWaiting = 0;
  private blockedUntil = 0;

  block(ms: number): void {
    this.blockedUntil = Date.now() + ms;
  }

  async slot(urgent: boolean): Promise<void> {
    if (urgent) this.urgentWaiting += 1;
    try {
      for (;;) {
        const now = Date.now();
        if (now < this.blockedUntil)
          throw new ProviderUnavailable(
            `Upbit blocked our address (418); no quotation call until ${new Date(this.blockedUntil).toISOString()}`,
          );
        this.stamps = this.stamps.filter((t) => now - t < PACE_WINDOW_MS);
        const reserved = urgent ? 0 : this.urgentWaiting;
        if (this.stamps.length + reserved < CALLS_PER_WINDOW) {
          this.stamps.push(now);
          return;
        }
        await sleep(Math.max(PACE_WINDOW_MS - (now - (this.stamps[0] ?? now)), 5));
      }
    } finally {
      if (urgent) this.urgentWaiting -= 1;
    }
  }
}

/** The assets Upbit's KRW market quotes, by our symbol (UPBIT_MARKETS overrides). */
export const DEFAULT_UPBIT_MARKETS: Record<string, string> = {
  BTC: 'KRW-BTC',
  ETH: 'KRW-ETH',
  SOL: 'KRW-SOL',
  POL: 'KRW-POL',
  USDT: 'KRW-USDT',
  USDC: 'KRW-USDC',
};

/** One minute candle as the API documents it (the fields we read; others are allowed). */
const Candle = Type.Object({
  market: Type.String(),
  candle_date_time_utc: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' }),
  trade_price: Type.Number({ exclusiveMinimum: 0 }),
  timestamp: Type.Integer({ minimum: 0 }),
  unit: Type.Optional(Type.Integer()),
});
export const UpbitCandles = Type.Array(Candle, { maxItems: MAX_CANDLES });
/** `{"error": {"name": "…", "message": "…"}}` (`name` a string, or a number on the quotation API). */
const UpbitError = Type.Object({
  error: Type.Object({ name: Type.Union([Type.String(), Type.Number()]), message: Type.Optional(Type.String()) }),
});

type Candles = Array<{ hour: number; price: number; at: number }>;

const isoOf = (hour: number) => new Date(hour * HOUR_MS).toISOString().replace(/\.000Z$/, 'Z');

export class UpbitQuotation implements MarketData {
  private readonly http: ProviderHttpOptions;
  private readonly markets: Record<string, string>;
  private readonly kept = new Map<string, { at: number; candles: Candles }>();
  private readonly asking = new Map<string, Promise<Candles>>();
  private readonly keepMs: number;
  private readonly pacer = new Pacer();

  constructor(options: {
    apiUrl: string;
    transport: ProviderTransport;
    markets?: Record<string, string>;
    keepSeconds?: number;
  }) {
    this.keepMs = (options.keepSeconds ?? 10) * 1000;
    this.http = {
      baseUrl: options.apiUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      maxAnswerBytes: 512 * 1024,
    };
    this.markets = options.markets ?? DEFAULT_UPBIT_MARKETS;
  }

  quotes(asset: string): boolean {
    return Object.hasOwn(this.markets, asset);
  }

  async hourly(
    asset: string,
    fromHour: number,
    toHour: number,
    options: { urgent?: boolean } = {},
  ): Promise<PricePoint[]> {
    const market = this.markets[asset];
    if (!market || !Object.hasOwn(this.markets, asset))
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: `Upbit quotes no ${asset} here`,
        details: [{ asset }, 404],
      });
    // The price at mark h is the close of the candle of the hour before it (it starts at h - 1). Pages go back by
    // time (a page of quiet hours holds fewer candles, or none) until the window's first mark has a candle at or
    // before it, or a day before the window has been read.
    const candles = new Map<number, { price: number; at: number }>();
    const oldest = fromHour - 1 - LOOKBACK_HOURS;
    for (let before = toHour; before > oldest;) {
      const count = Math.min(MAX_CANDLES, before - oldest);
      for (const candle of await this.page(market, before, count, options.urgent ?? false))
        candles.set(candle.hour, candle);
      if ([...candles.keys()].some((hour) => hour <= fromHour - 1)) break;
      before -= count;
    }
    const points: PricePoint[] = [];
    let last: { price: number; at: number } | undefined;
    for (const hour of [...candles.keys()].filter((h) => h < fromHour - 1).sort((a, b) => a - b))
      last = candles.get(hour);
    for (let mark = fromHour; mark <= toHour; mark += 1) {
      const candle = candles.get(mark - 1);
      if (candle) last = candle;
      if (!last) continue;
      points.push({
        at: new Date(mark * HOUR_MS).toISOString(),
        price: last.price,
        tradedAt: new Date(last.at).toISOString(),
        ...(candle ? {} : { carried: true as const }),
      });
    }
    return points;
  }

  /** The hourly candles of the `count` hours before hour `before`, newest first, as hours and prices. */
  private async page(market: string, before: number, count: number, urgent: boolean): Promise<Candles> {
    const key = `${market} ${before} ${count}`;
    const kept = this.kept.get(key);
    if (kept && Date.now() - kept.at < this.keepMs) return kept.candles;
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.fetchPage(market, before, count, urgent)
        .then((candles) => {
          if (this.keepMs > 0) {
            if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value!);
            this.kept.set(key, { at: Date.now(), candles });
          }
          return candles;
        })
        .finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    return asking;
  }

  private async fetchPage(market: string, before: number, count: number, urgent: boolean): Promise<Candles> {
    const path = `/v1/candles/minutes/60?${new URLSearchParams({ market, to: isoOf(before), count: String(count) })}`;
    for (let attempt = 0; ; attempt += 1) {
      await this.pacer.slot(urgent);
      const { status, body, headers } = await requestProvider<unknown>(this.http, 'GET', path);
      if (status === 429 && attempt < RATE_LIMIT_RETRIES) {
        await sleep(1000);
        continue;
      }
      // Calling on after 429s gets the address blocked (418): no call until the block is likely over.
      if (status === 418) this.pacer.block(BLOCKED_MS);
      if (status === 429 || status === 418)
        throw new ProviderUnavailable(`Upbit limits our quotation calls (${status})`, { status });
      if (status >= 400) {
        const error = expectAnswer(UpbitError, body, `Upbit's refusal of ${market} candles`).error;
        const message = `Upbit refused ${market} candles (${status} ${error.name}: ${error.message ?? ''})`;
        // A market Upbit does not know is the asset's; any other refusal is of our request, not the person's.
        if (status !== 404) throw new ProviderUnavailable(message, { status });
        throw ApplicationFailure.create({
          type: PROVIDER_REJECTED,
          nonRetryable: true,
          message,
          details: [body, status],
        });
      }
      const answer = expectAnswer(UpbitCandles, body, `Upbit's ${market} candles`);
      const candles = answer.map((candle) => {
        const start = Date.parse(`${candle.candle_date_time_utc}Z`);
        const hour = start / HOUR_MS;
        // A candle of another market, not on an hour, of the hour still forming or later, or whose last trade is
        // outside its own hour (a trade's time decides how old a carried price is) is not Upbit's answer.
        if (
          candle.market !== market ||
          !Number.isInteger(hour) ||
          hour >= before ||
          candle.timestamp < start ||
          candle.timestamp >= start + HOUR_MS
        )
          throw new ProviderAnswerInvalid(
            `Upbit answered a candle of ${candle.market} at ${candle.candle_date_time_utc} to a request for ${market} hours before ${isoOf(before)}`,
            JSON.stringify(candle),
          );
        return { hour, price: candle.trade_price, at: candle.timestamp };
      });
      // None left this second: the next page waits for the next.
      if (/(?:^|;)\s*sec=0\s*(?:;|$)/.test(headers.get('remaining-req') ?? '')) await sleep(1000);
      return candles;
    }
  }
}
