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
      summary: "Exchange quote: the best route on the network's DEX, price impact, slippage, executability",
      description:
        "Read from the network's exchange at one block (EVM: Uniswap v3's QuoterV2 over direct routes at each fee " +
        "tier and two hops through the configured intermediaries; SOLANA: Jupiter's Swap API). Nothing is reserved. " +
        "`quoteId` carries the quote's terms (sealed, bound to the caller) until `expiresAt`: a swap names it. " +
        '`minimumReceived` is the output less the slippage (exactInput), `maximumSent` the input plus it (exactOutput). ' +
        '`executable` is false with `limit_exceeded` when the input is over the daily limit of the token ' +
        '(EXCHANGE_DAILY_LIMITS), else with `insufficient_balance` when it is over the balance of the user on chain ' +
        '(zero without an account there).',
      body: QuoteBody,
      rateLimits: [{ rule: 'exchange-quote', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Quote', schema: Quote },
        404: { description: 'No exchange on this network' },
        422: { description: 'Unknown token, bad amount, no route or not enough liquidity' },
        503: { description: "The network's chain node did not answer (Retry-After)" },
      },
      handler: async ({ body, user }) => {
        return {
          status: 200,
          body: await engine.quote(body, user.userId, () =>
            holdings.balanceOf(user.userId, body.networkId, body.source),
          ),
        };
      },
    }),
  ];
}
