/**
 * Hourly candles as Upbit's quotation API answers them (newest first), for the price at each hour mark given: the
 * candle of the hour before the mark closes at that price. What a test makes the sandbox answer instead of its series.
 */
export function upbitCandles(market: string, marks: Array<{ hour: number; price: number }>): object[] {
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  return [...marks]
    .sort((a, b) => b.hour - a.hour)
    .map(({ hour, price }) => {
      const start = (hour - 1) * 3_600_000;
      return {
        market,
        candle_date_time_utc: iso(start),
        candle_date_time_kst: iso(start + 9 * 3_600_000),
        opening_price: price,
        high_price: price,
        low_price: price,
        trade_price: price,
        timestamp: start + 3_600_000 - 1000,
        candle_acc_trade_price: price,
        candle_acc_trade_volume: 1,
        unit: 60,
      };
    });
}
