import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface PricePoint { at: string; price: number }

/** HTTP client of the market data provider (hourly KRW prices). */
export class PriceFeedClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs };
  }

  async hourly(asset: string, fromHour: number, toHour: number): Promise<PricePoint[]> {
    const { body } = await callProvider<{ points: PricePoint[] }>(this.http, 'GET', `/prices/v1/${encodeURIComponent(asset)}/history?fromHour=${fromHour}&toHour=${toHour}`);
    return body.points;
  }

  /** The asset's won price ×100 at the last full hour, or undefined when the feed cannot give one (never a guess). */
  async wonPriceCenti(asset: string): Promise<bigint | undefined> {
    const hour = Math.floor(Date.now() / 3_600_000);
    let price: number | undefined;
    try {
      price = (await this.hourly(asset, hour - 1, hour)).at(-1)?.price;
    } catch {
      return undefined;
    }
    return price !== undefined && Number.isFinite(price) && price > 0 ? BigInt(Math.round(price * 100)) : undefined;
  }
}

export const WINDOWS = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30 } as const;
export type PriceWindow = keyof typeof WINDOWS;

/**
 * Statistics over the hourly points of a window ending at the last full hour: current = last point; average = mean
 * (rounded to the won); high, low; change = current − first point, with its percentage (two decimals).
 */
export function priceStatistics(points: PricePoint[]): { current: number; average: number; high: number; low: number; change: string } {
  const prices = points.map((p) => p.price);
  const first = prices[0]!;
  const current = prices.at(-1)!;
  const delta = current - first;
  const pct = first === 0 ? 0 : (delta / first) * 100;
  const sign = delta > 0 ? '+' : delta < 0 ? '-' : '';
  const grouped = Math.abs(delta).toLocaleString('en-US');
  return {
    current, average: Math.round(prices.reduce((a, b) => a + b, 0) / prices.length),
    high: Math.max(...prices), low: Math.min(...prices),
    change: `${sign}${grouped} (${sign}${Math.abs(pct).toFixed(2)}%)`,
  };
}
