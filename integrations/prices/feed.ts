import { ProviderAnswerInvalid } from '../provider-http';
import type { MarketData, PricePoint } from './market-data';

export type { PricePoint } from './market-data';

/**
 * What makes a price usable for a won value: at most `maxAgeSeconds` old, and within `bandPercent` of the previous
 * hour's price and of the asset's reference (PriceReferences).
 */
export interface PriceChecks {
  maxAgeSeconds: number;
  bandPercent: number;
}

/** A won price ×100 fit to value money with, or why none can be had now (never a guess). */
export type WonPrice = { centi: bigint; at: string } | { refused: string };

/** The price a fresh one is held to, and when it became that (ms since the epoch, real time). */
export interface PriceAnchor {
  centi: bigint;
  setAtMs: number;
}

/**
 * Where the reference of each asset is kept. The composition roots give the database's (db/price-references.ts), so
 * every API and worker process holds prices to the same one. `replace` sets `next` only while the reference is still
 * `expected` (undefined: none yet), atomically, and answers the reference in force afterwards.
 */
export interface PriceReferences {
  get(asset: string): Promise<PriceAnchor | undefined>;
  replace(asset: string, expected: PriceAnchor | undefined, next: PriceAnchor): Promise<PriceAnchor>;
}

/** References kept in this process only: for a client used alone (a tool, a test), never by a composition root. */
export class ProcessPriceReferences implements PriceReferences {
  private readonly anchors = new Map<string, PriceAnchor>();

  async get(asset: string): Promise<PriceAnchor | undefined> {
    return this.anchors.get(asset);
  }

  async replace(asset: string, expected: PriceAnchor | undefined, next: PriceAnchor): Promise<PriceAnchor> {
    const current = this.anchors.get(asset);
    if (current?.setAtMs !== expected?.setAtMs) return current!;
    this.anchors.set(asset, next);
    return next;
  }
}

/**
 * The reference moves at most one band per window passed: a feed answering lower on every call (a compromised one)
 * drags what prices value at by a band per window of time, however many answers it gives, instead of a band per
 * call; a real move past the band is followed within a few windows (refused until then: fail closed).
 */
const REFERENCE_WINDOW_MS = 6 * 3_600_000;

/** How far `centi` is from `reference`, in percent (two decimals). */
const percentFrom = (centi: bigint, reference: bigint): number =>
  reference > 0n
    ? Number(((centi > reference ? centi - reference : reference - centi) * 10_000n) / reference) / 100
    : Infinity;

/** `centi`, brought within `windows` bands of `reference`. */
function withinBands(centi: bigint, reference: bigint, bandPercent: number, windows: number): bigint {
  const bandBps = BigInt(Math.round(bandPercent * 100));
  let [low, high] = [reference, reference];
  for (let i = 0; i < windows && (centi < low || centi > high); i += 1) {
    low -= (low * bandBps) / 10_000n;
    high += (high * bandBps) / 10_000n;
  }
  return centi < low ? low : centi > high ? high : centi;
}

/**
 * Won prices for the service: the market data's hourly points (a quotation API behind the MarketData port), and the
 * checks a price passes before money is valued with it (wonPrice).
 */
export class PriceFeedClient {
  readonly source: MarketData;
  private readonly checks: PriceChecks;
  private readonly references: PriceReferences;

  constructor(options: { source: MarketData; checks?: PriceChecks; references?: PriceReferences }) {
    this.source = options.source;
    this.checks = options.checks ?? { maxAgeSeconds: 2 * 3600, bandPercent: 20 };
    this.references = options.references ?? new ProcessPriceReferences();
  }

  quotes(asset: string): boolean {
    return this.source.quotes(asset);
  }

  /** The source's points, each a finite positive price (anything else: ProviderAnswerInvalid, a 503 upstream). */
  async hourly(asset: string, fromHour: number, toHour: number, options?: { urgent?: boolean }): Promise<PricePoint[]> {
    const points = await this.source.hourly(asset, fromHour, toHour, options);
    for (const point of points)
      if (!Number.isFinite(point.price) || point.price <= 0)
        throw new ProviderAnswerInvalid(
          `the market data answered a ${asset} price of ${point.price}`,
          JSON.stringify(point),
        );
    return points;
  }

  /**
   * The asset's won price ×100 at the last full hour, checked before any money is valued with it: a feed that does not
   * answer, answers another shape, an old point, a price that rounds to nothing, or a price past the band from the
   * previous hour's or from the reference (a glitch or a compromised feed: either would switch the won limits off or
   * on for everyone) gives no price.
   */
  async wonPrice(asset: string): Promise<WonPrice> {
    if (!this.source.quotes(asset)) return { refused: `the market data quotes no ${asset}` };
    const now = Date.now();
    const hour = Math.floor(now / 3_600_000);
    let points: PricePoint[];
    try {
      points = await this.hourly(asset, hour - 1, hour, { urgent: true });
    } catch (error) {
      // Why, without the provider's address (this text reaches the caller of a transfer).
      const why = (error as Error).message.replace(/https?:\/\/[^\s)]+/g, 'the provider');
      return { refused: `the price feed gave no usable answer (${why})` };
    }
    const last = points.at(-1);
    if (!last) return { refused: `the price feed has no ${asset} price for the last hour` };
    const at = Date.parse(last.at);
    // A price carried over quiet hours is as old as its trade.
    const tradedAt = last.tradedAt ? Date.parse(last.tradedAt) : at;
    if (
      Number.isNaN(tradedAt) ||
      now - tradedAt > this.checks.maxAgeSeconds * 1000 ||
      at - now > 300_000 ||
      tradedAt - now > 300_000
    )
      return { refused: `the ${asset} price is stale (of ${last.tradedAt ?? last.at})` };
    const centi = BigInt(Math.round(last.price * 100));
    if (centi < 1n) return { refused: `the ${asset} price ${last.price} is implausible` };
    const previous = points.length > 1 ? points.at(-2)! : undefined;
    if (previous) {
      const refusal = this.outsideBand(
        asset,
        last.price,
        BigInt(Math.round(previous.price * 100)),
        `the previous hour's ${previous.price}`,
      );
      if (refusal) return refusal;
    }
    const anchor = await this.referenceFor(asset, centi, now);
    const what = `the reference ${Number(anchor.centi) / 100} (of ${new Date(anchor.setAtMs).toISOString()})`;
    return this.outsideBand(asset, last.price, anchor.centi, what) ?? { centi, at: last.at };
  }

  /**
   * The reference `centi` is held to. The first price becomes it; once it is a window old, it follows `centi` by at
   * most a band per window passed, and only one process's renewal counts (the others are held to that one).
   */
  private async referenceFor(asset: string, centi: bigint, now: number): Promise<PriceAnchor> {
    const current = await this.references.get(asset);
    if (current && now - current.setAtMs < REFERENCE_WINDOW_MS) return current;
    const windows = current ? Math.floor((now - current.setAtMs) / REFERENCE_WINDOW_MS) : 0;
    const next = current ? withinBands(centi, current.centi, this.checks.bandPercent, windows) : centi;
    return this.references.replace(asset, current, { centi: next, setAtMs: now });
  }

  private outsideBand(asset: string, price: number, reference: bigint, what: string): { refused: string } | undefined {
    const movedBy = percentFrom(BigInt(Math.round(price * 100)), reference);
    if (movedBy <= this.checks.bandPercent) return undefined;
    return {
      refused: `the ${asset} price ${price} is implausible: ${movedBy}% from ${what} (the band is ${this.checks.bandPercent}%)`,
    };
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
