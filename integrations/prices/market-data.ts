/**
 * The market-data port: hourly won prices of an asset, as a quotation API gives them. PriceFeedClient (feed.ts) holds
 * them to the sanity rules before any money is valued with them.
 */

/**
 * The price at an hour mark: the last trade before it. `carried`: the source had no trade in the hour before the mark
 * (a quiet market has no candle), so the price is the last earlier trade's; `tradedAt` is when that trade was.
 */
export interface PricePoint {
  /** The hour mark (ISO 8601, UTC). */
  at: string;
  price: number;
  carried?: true;
  /** When the trade the price is was made, if the source says (ISO 8601). */
  tradedAt?: string;
}

export interface MarketData {
  /** Whether the source quotes the asset at all (an asset it does not: 422 unknown-asset, without a call). */
  quotes(asset: string): boolean;
  /**
   * The points at each hour mark from `fromHour` to `toHour` (hours since the epoch, both included), oldest first;
   * marks before the source's first trade are left out. A refusal of the request is PROVIDER_REJECTED; an outage, a
   * limit or an answer outside the API's shape ProviderUnavailable. `urgent`: a valuation a transfer waits on (asked
   * before charts when the source limits us).
   */
  hourly(asset: string, fromHour: number, toHour: number, options?: { urgent?: boolean }): Promise<PricePoint[]>;
}
