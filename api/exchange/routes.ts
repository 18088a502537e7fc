import { Type } from '@sinclair/typebox';
import type { Holdings } from '../common/holdings';
import { QuoteError, type QuoteEngine } from './quote';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { HttpError, problems } from '../http/problems';

export interface ExchangeRouteDeps { engine: QuoteEngine; holdings: Holdings }

const Symbol = Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' });
const QuoteBody = Type.Object({
  source: { ...Symbol, description: 'token sold, e.g. ETH' },
  target: { ...Symbol, description: 'token bought, e.g. USDT' },
  networkId: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$' }),
  direction: Type.Union([Type.Literal('exactInput'), Type.Literal('exactOutput')]),
  amount: Type.String({ minLength: 1, maxLength: 64, description: 'decimal in whole tokens of source (exactInput) or target (exactOutput)' }),
}, { additionalProperties: false });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Quote = Type.Object({
  source: Type.String(), target: Type.String(), direction: Type.String(),
  sourceAmount: Type.String(), targetAmount: Type.String(), sourceDisplayAmount: Type.String(), targetDisplayAmount: Type.String(),
  exchangeRate: Type.String({ description: 'target tokens per source token' }),
  priceImpact: Type.String({ description: 'e.g. "0.09%", pool fees excluded' }), priceImpactWarning: Type.Boolean(),
  route: Type.Array(Type.String()), feeTier: Type.Union([Type.Integer(), Type.Null()]),
  slippage: Type.String(), minimumReceived: Type.String(), minimumReceivedDisplay: Type.String(), networkId: Type.String(),
  executable: Type.Boolean(),
  notExecutableReason: Type.Union([Type.Literal('insufficient_balance'), Type.Literal('limit_exceeded'), Type.Null()]),
  intermediary: Nullable(Type.String()),
});

export function exchangeRoutes({ engine, holdings }: ExchangeRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/exchange/quote', operationId: 'exchangeQuote', tags: ['Exchange'], auth: 'bearer',
      summary: 'Exchange quote (preview): best route over the configured pools, price impact, slippage, executability',
      body: QuoteBody,
      rateLimits: [{ rule: 'exchange-quote', key: ({ user }) => user!.userId }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' }, 
        200: { description: 'Quote', schema: Quote },
        404: { description: 'No exchange on this network' }, 422: { description: 'Unknown token, bad amount, no route or not enough liquidity' },
      },
      handler: async ({ body, user }) => {
        try {
          return { status: 200, body: await engine.quote(body, () => holdings.balanceOf(user!.userId, body.networkId, body.source)) };
        } catch (error) {
          if (!(error instanceof QuoteError)) throw error;
          if (error.code === 'unknown-network') throw new HttpError(404, 'unknown-network', 'Unknown network', error.message);
          throw problems.unprocessable(error.code, error.message);
        }
      },
    }),
  ];
}
