import { Type } from '@sinclair/typebox';

const TokenSymbol = Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' });
export const QuoteBody = Type.Object(
  {
    source: { ...TokenSymbol, description: 'token sold, e.g. ETH' },
    target: { ...TokenSymbol, description: 'token bought, e.g. USDT' },
    networkId: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$' }),
    direction: Type.Union([Type.Literal('exactInput'), Type.Literal('exactOutput')]),
    amount: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'decimal in whole tokens of source (exactInput) or target (exactOutput)',
    }),
  },
  { additionalProperties: false },
);
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
export const Quote = Type.Object({
  source: Type.String(),
  target: Type.String(),
  direction: Type.String(),
  sourceAmount: Type.String(),
  targetAmount: Type.String(),
  sourceDisplayAmount: Type.String(),
  targetDisplayAmount: Type.String(),
  exchangeRate: Type.String({ description: 'target tokens per source token' }),
  priceImpact: Type.String({ description: 'e.g. "0.09%", pool fees excluded' }),
  priceImpactWarning: Type.Boolean(),
  route: Type.Array(Type.String()),
  feeTier: Type.Union([Type.Integer(), Type.Null()]),
  slippage: Type.String(),
  minimumReceived: Type.String(),
  minimumReceivedDisplay: Type.String(),
  networkId: Type.String(),
  executable: Type.Boolean(),
  notExecutableReason: Type.Union([Type.Literal('insufficient_balance'), Type.Literal('limit_exceeded'), Type.Null()]),
  intermediary: Nullable(Type.String()),
});
