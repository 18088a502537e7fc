import type { Holdings } from '../common/holdings';
import type { QuoteEngine } from './quote';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { Quote, QuoteBody } from './schemas';

export interface ExchangeRouteDeps {
  engine: QuoteEngine;
  holdings: Holdings;
}

export function exchangeRoutes({ engine, holdings }: ExchangeRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/exchange/quote',
      operationId: 'exchangeQuote',
      tags: ['Exchange'],
      auth: 'bearer',
      summary: 'Exchange quote (preview): best route over the configured pools, price impact, slippage, executability',
      description:
        'A preview only: nothing is reserved and no swap is made. Prices come from the constant-product pools ' +
        'configured for the network (built-in, or EXCHANGE_POOLS), whose reserves are set in configuration, not ' +
        'read from a chain. `executable` is false with `limit_exceeded` when the input is over the daily limit ' +
        'of the token (EXCHANGE_DAILY_LIMITS), else with `insufficient_balance` when it is over the balance of ' +
        'the user on chain (zero without an account there).',
      body: QuoteBody,
      rateLimits: [{ rule: 'exchange-quote', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Quote', schema: Quote },
        404: { description: 'No exchange on this network' },
        422: { description: 'Unknown token, bad amount, no route or not enough liquidity' },
      },
      handler: async ({ body, user }) => {
        return {
          status: 200,
          body: await engine.quote(body, () => holdings.balanceOf(user.userId, body.networkId, body.source)),
        };
      },
    }),
  ];
}
