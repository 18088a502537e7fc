import { ApplicationFailure } from '@temporalio/common';
import { PROVIDER_REJECTED } from '../../platform/failures';
import type { MarketData, PricePoint } from './market-data';

/** Several sources behind the one port: each asset from the first that quotes it (Upbit's coins, KRX's gold). */
export class MarketDataSources implements MarketData {
  constructor(readonly sources: MarketData[]) {}

  quotes(asset: string): boolean {
    return this.sources.some((s) => s.quotes(asset));
  }

  async hourly(asset: string, fromHour: number, toHour: number, options?: { urgent?: boolean }): Promise<PricePoint[]> {
    const source = this.sources.find((s) => s.quotes(asset));
    if (!source)
      throw ApplicationFailure.create({
        type: PROVIDER_REJECTED,
        nonRetryable: true,
        message: `no market data quotes ${asset}`,
        details: [{ asset }, 404],
      });
    return source.hourly(asset, fromHour, toHour, options);
  }
}
