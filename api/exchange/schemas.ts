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
  quoteId: Type.String({ description: "the quote's terms, sealed and bound to the caller: what a swap names" }),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'a swap on this quote after it is refused (stale-quote)',
  }),
  blockNumber: Type.Integer({ description: 'the block (EVM) or slot (SOLANA) every read of the quote was made at' }),
  maximumSent: Type.Union([Type.String(), Type.Null()], {
    description: 'exactOutput: the most the swap may take (the input plus the slippage); null for exactInput',
  }),
  hops: Type.Array(
    Type.Object({
      tokenIn: Type.String(),
      tokenOut: Type.String(),
      feeTier: Type.Union([Type.Integer(), Type.Null()], {
        description: "the pool's fee in hundredths of a basis point (500 = 0.05 %); null where the venue names none",
      }),
      pool: Type.String({ description: 'the pool (EVM address) or AMM the hop trades in' }),
    }),
    { description: 'the route hop by hop, each with its own fee (feeTier above is null on two hops)' },
  ),
});
