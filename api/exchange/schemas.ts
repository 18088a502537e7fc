import { Type } from '@sinclair/typebox';
import { DeployExecuteBody, SigningContainer } from '../wallet/schemas';

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

export const SwapPrepareBody = Type.Object(
  {
    quoteId: Type.String({
      pattern: '^q1\\.[A-Za-z0-9_-]{16,4000}$',
      description: 'the quoteId of POST /v1/exchange/quote, before its expiresAt',
    }),
  },
  { additionalProperties: false },
);
/** EVM: the prepared operation's signed slots; SOLANA: the quote and the PIN approving it (no prepare). */
export const SwapExecuteBody = Type.Object(
  {
    signing: Type.Optional({
      ...DeployExecuteBody.properties.signing,
      description: 'EVM: the slots of POST /v1/exchange/swaps/prepare, the on-chain one signed by the owner key',
    }),
    quoteId: Type.Optional({
      ...SwapPrepareBody.properties.quoteId,
      description: 'SOLANA: the quoteId of POST /v1/exchange/quote, before its expiresAt (with pin)',
    }),
    pin: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]*){4}$',
        maxLength: 2048,
        description:
          'SOLANA: the PIN as a JWE to /api/v1/pin/public-key, approving this swap once: {"pin","iat","jti","request":{"action":"swap","quote_sha256","idempotency_key"}}, quote_sha256 the base64url SHA-256 of the quoteId; without it: 422 step-up-required',
      }),
    ),
  },
  { additionalProperties: false },
);
export const SwapParams = Type.Object({ swapId: Type.String({ pattern: '^swap_[0-9a-f-]{36}$' }) });
export const SwapAccepted = Type.Object({
  swapId: Type.String(),
  status: Type.String({ description: 'submitted' }),
});
export const SwapPrepared = Type.Object({
  swapId: Type.String(),
  description: Type.String(),
  items: SigningContainer.properties.items,
});
const Amounts = Type.Object({
  amountIn: Type.String({ description: 'whole tokens of source' }),
  amountOut: Type.String({ description: 'whole tokens of target' }),
});
export const SwapView = Type.Object({
  swapId: Type.String(),
  networkId: Type.String(),
  source: Type.String(),
  target: Type.String(),
  direction: Type.String(),
  quoted: Type.Object({
    ...Amounts.properties,
    minimumReceived: Type.String(),
    maximumSent: Type.String(),
    blockNumber: Type.Integer(),
  }),
  route: Type.Array(Type.String()),
  status: Type.String({ description: 'prepared, submitted, stalled, completed, failed or replaced' }),
  received: Type.Union([Amounts, Type.Null()], {
    description: "completed: what the swap really took and gave, read from the pools' events on chain",
  }),
  txHash: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  stallReason: Type.Union([Type.Literal('fees-rose'), Type.Null()]),
  replacedBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
