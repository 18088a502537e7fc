import { Type } from '@sinclair/typebox';
import { ProviderAnswerInvalid, callProvider, expectAnswer, type ProviderHttpOptions } from './provider-http';

export interface PricePoint {
  at: string;
  price: number;
}

/** The feed's answer as its API documents it; anything else is ProviderAnswerInvalid (a 503 upstream). */
const HistoryAnswer = Type.Object({
  points: Type.Array(Type.Object({ at: Type.String({ format: 'date-time' }), price: Type.Number() }), {
    maxItems: 24 * 366 + 1,
  }),
});

/**
 * What makes a price usable for a won value: at most `maxAgeSeconds` old, and within `bandPercent` of the previous
 * hour's price and of the last price this process accepted in the last two hours.
 */
export interface PriceChecks {
  maxAgeSeconds: number;
  bandPercent: number;
}

/** A won price ×100 fit to value money with, or why none can be had now (never a guess). */
export type WonPrice = { centi: bigint; at: string } | { refused: string };

/** How long an accepted price serves as the reference of the next one. */
const REFERENCE_MS = 2 * 3_600_000;

/** HTTP client of the market data provider (hourly KRW prices). */
export class PriceFeedClient {
  private readonly http: ProviderHttpOptions;
  private readonly checks: PriceChecks;
  /** The last price accepted per asset, with when: a reference against which a wild next answer is refused. */
  private readonly accepted = new Map<string, { centi: bigint; atMs: number }>();

  constructor(options: { baseUrl: string; timeoutMs: number; checks?: PriceChecks }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, maxAnswerBytes: 4 * 1024 * 1024 };
    this.checks = options.checks ?? { maxAgeSeconds: 2 * 3600, bandPercent: 20 };
  }

  async hourly(asset: string, fromHour: number, toHour: number): Promise<PricePoint[]> {
    const { body } = await callProvider<unknown>(
      this.http,
      'GET',
      `/prices/v1/${encodeURIComponent(asset)}/history?fromHour=${fromHour}&toHour=${toHour}`,
    );
    const { points } = expectAnswer(HistoryAnswer, body, `the ${asset} price history`);
    for (const point of points) {
      if (!Number.isFinite(point.price) || point.price <= 0)
        throw new ProviderAnswerInvalid(
          `the price feed answered a ${asset} price of ${point.price}`,
          JSON.stringify(point),
        );
    }
    return points;
  }

  /**
   * The asset's won price ×100 at the last full hour, checked before any money is valued with it: a feed that does not
   * answer, answers another shape, an old point, a price that rounds to nothing, or a jump past the band (a glitch or
   * a compromised feed: either would switch the won limits off or on for everyone) gives no price.
   */
  async wonPrice(asset: string): Promise<WonPrice> {
    const now = Date.now();
    const hour = Math.floor(now / 3_600_000);
    let points: PricePoint[];
    try {
      points = await this.hourly(asset, hour - 1, hour);
    } catch (error) {
      return { refused: `the price feed gave no usable answer (${(error as Error).message})` };
    }
    const last = points.at(-1);
    if (!last) return { refused: `the price feed has no ${asset} price for the last hour` };
    const at = Date.parse(last.at);
    if (now - at > this.checks.maxAgeSeconds * 1000 || at - now > 300_000)
      return { refused: `the ${asset} price is stale (of ${last.at})` };
    const centi = BigInt(Math.round(last.price * 100));
    if (centi < 1n) return { refused: `the ${asset} price ${last.price} is implausible` };
    const previous = points.length > 1 ? points.at(-2)! : undefined;
    const known = this.accepted.get(asset);
    const references = [
      ...(previous
        ? [{ centi: BigInt(Math.round(previous.price * 100)), what: `the previous hour's ${previous.price}` }]
        : []),
      ...(known && now - known.atMs < REFERENCE_MS
        ? [{ centi: known.centi, what: `the last accepted ${Number(known.centi) / 100}` }]
        : []),
    ];
    for (const reference of references) {
      const movedBy =
        reference.centi > 0n
          ? Number(
              ((centi > reference.centi ? centi - reference.centi : reference.centi - centi) * 10_000n) /
                reference.centi,
            ) / 100
          : Infinity;
      if (movedBy > this.checks.bandPercent) {
        return {
          refused: `the ${asset} price ${last.price} is implausible: ${movedBy}% from ${reference.what} (the band is ${this.checks.bandPercent}%)`,
        };
      }
    }
    this.accepted.set(asset, { centi, atMs: now });
    return { centi, at: last.at };
  }
}

export const WINDOWS = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30 } as const;
export type PriceWindow = keyof typeof WINDOWS;

/**
 * Statistics over the hourly points of a window ending at the last full hour: current = last point; average = mean
 * (rounded to the won); high, low; change = current − first point, with its percentage (two decimals).
 */
export function priceStatistics(points: PricePoint[]): {
  current: number;
  average: number;
  high: number;
  low: number;
  change: string;
} {
  const prices = points.map((p) => p.price);
  const first = prices[0]!;
  const current = prices.at(-1)!;
  const delta = current - first;
  const pct = first === 0 ? 0 : (delta / first) * 100;
  const sign = delta > 0 ? '+' : delta < 0 ? '-' : '';
  const grouped = Math.abs(delta).toLocaleString('en-US');
  return {
    current,
    average: Math.round(prices.reduce((a, b) => a + b, 0) / prices.length),
    high: Math.max(...prices),
    low: Math.min(...prices),
    change: `${sign}${grouped} (${sign}${Math.abs(pct).toFixed(2)}%)`,
  };
}
