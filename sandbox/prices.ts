import Router from '@koa/router';

/**
 * Stand-in for a market data provider: a deterministic price series per asset (the same asset and time always give
 * the same price), so tests can check statistics by hand. price(t) = base · (1 + 0.04·sin(2πt/1 day) + 0.08·sin(2πt/9 days)),
 * with t in hours since the Unix epoch, on the hour.
 */
export const BASE_PRICES_KRW: Record<string, number> = {
  BTC: 95_000_000,
  ETH: 4_200_000,
  SOL: 210_000,
  POL: 700,
  USDT: 1_400,
  USDC: 1_400,
  GOLD: 125_000,
};

export function priceAt(asset: string, hour: number): number {
  const base = BASE_PRICES_KRW[asset]!;
  if (asset === 'USDT' || asset === 'USDC') return base;
  return Math.round(
    base * (1 + 0.04 * Math.sin((2 * Math.PI * hour) / 24) + 0.08 * Math.sin((2 * Math.PI * hour) / (24 * 9))),
  );
}

export function pricesRouter(): Router {
  const router = new Router({ prefix: '/prices/v1' });
  router.get('/:asset/history', (ctx) => {
    const asset = ctx.params.asset!.toUpperCase();
    const from = Number(ctx.query.fromHour);
    const to = Number(ctx.query.toHour);
    if (!BASE_PRICES_KRW[asset]) {
      ctx.status = 404;
      ctx.body = { code: 'unknown_asset', message: `no prices for ${asset}` };
      return;
    }
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || to < from || to - from > 24 * 366) {
      ctx.status = 400;
      ctx.body = { code: 'invalid_range', message: 'fromHour <= toHour (hours since the epoch), at most a year' };
      return;
    }
    const points = [];
    for (let hour = from; hour <= to; hour += 1)
      points.push({ at: new Date(hour * 3600_000).toISOString(), price: priceAt(asset, hour) });
    ctx.body = { asset, currency: 'KRW', interval: '1h', points };
  });
  return router;
}
