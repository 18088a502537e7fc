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
 * a day before it has been read. Rate limits: 10 calls a second per IP for candles; `Remaining-Req` (`group=candles;
 * min=…; sec=N`) says how many are left this second, and a 429 is waited out (a second, three times). A candle once
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

  async hourly(asset: string, fromHour: number, toHour: number): Promise<PricePoint[]> {
    const market = this.markets[asset];
    if (!market || !Object.hasOwn(this.markets, asset))
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: `Upbit quotes no ${asset} here`,
        details: [{ asset }, 404],
      });
    // The price at mark h is the close of the candle of the hour before it (it starts at h - 1).
    const candles = new Map<number, { price: number; at: number }>();
    let before = toHour; // exclusive: candles that start before this hour
    const oldest = fromHour - 1 - LOOKBACK_HOURS;
    while (before > oldest) {
      const count = Math.min(MAX_CANDLES, before - oldest);
      const page = await this.page(market, before, count);
      for (const candle of page) candles.set(candle.hour, candle);
      const earliest = page.at(-1)?.hour;
      // Done once the window's first mark has a candle at or before it, or the source has nothing earlier.
      if (page.length < count || earliest === undefined || earliest <= fromHour - 1) break;
      before = earliest;
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

  /** Up to `count` hourly candles that start before hour `before`, newest first, as hours and prices. */
  private async page(market: string, before: number, count: number): Promise<Candles> {
    const key = `${market} ${before} ${count}`;
    const kept = this.kept.get(key);
    if (kept && Date.now() - kept.at < this.keepMs) return kept.candles;
    let asking = this.asking.get(key);
    if (!asking) {
      asking = this.fetchPage(market, before, count)
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

  private async fetchPage(market: string, before: number, count: number): Promise<Candles> {
    const path = `/v1/candles/minutes/60?${new URLSearchParams({ market, to: isoOf(before), count: String(count) })}`;
    for (let attempt = 0; ; attempt += 1) {
      const { status, body, headers } = await requestProvider<unknown>(this.http, 'GET', path);
      if (status === 429 && attempt < RATE_LIMIT_RETRIES) {
        await sleep(1000);
        continue;
      }
      if (status === 429 || status === 418)
        throw new ProviderUnavailable(`Upbit limits our quotation calls (${status})`, { status });
      if (status >= 400) {
        const error = expectAnswer(UpbitError, body, `Upbit's refusal of ${market} candles`).error;
        throw ApplicationFailure.create({
          type: PROVIDER_REJECTED,
          nonRetryable: true,
          message: `Upbit refused ${market} candles (${status} ${error.name}: ${error.message ?? ''})`,
          details: [body, status],
        });
      }
      const answer = expectAnswer(UpbitCandles, body, `Upbit's ${market} candles`);
      const candles = answer.map((candle) => {
        const start = Date.parse(`${candle.candle_date_time_utc}Z`);
        const hour = start / HOUR_MS;
        if (candle.market !== market || !Number.isInteger(hour) || hour >= before)
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
