/**
 * Jupiter's Swap API V2, the path Jupiter's docs recommend ("Start with the Meta-Aggregator"): `GET /order` for a quote
 * (and, with `taker`, the transaction to sign), `POST /execute` to land it; `x-api-key` on every call. ExactIn only
 * (`swapMode` "Currently only ExactIn is supported"). Fields as jup-ag/docs openapi-spec/swap/v2/swap.yaml publishes
 * them; an answer of another shape is ProviderAnswerInvalid, a 400 a refusal the caller reads (`{requestId, error}`).
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';

export const JUPITER_API = 'https://api.jup.ag/swap/v2';
/** The wrapped SOL mint: how Jupiter names SOL. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';

const Amount = Type.String({ pattern: '^\\d{1,30}$' });
const RoutePlanStep = Type.Object({
  swapInfo: Type.Object({
    ammKey: Type.String(),
    label: Type.String(),
    inputMint: Type.String(),
    outputMint: Type.String(),
    inAmount: Amount,
    outAmount: Amount,
  }),
  percent: Type.Number(),
  bps: Type.Optional(Type.Number()),
});
export const JupiterOrderAnswer = Type.Object({
  inputMint: Type.String(),
  outputMint: Type.String(),
  inAmount: Amount,
  outAmount: Amount,
  otherAmountThreshold: Amount,
  swapMode: Type.Literal('ExactIn'),
  slippageBps: Type.Number(),
  /** Percentage points, negative for a loss (-0.1 = -0.1 %). */
  priceImpact: Type.Optional(Type.Number()),
  /** Deprecated: a decimal ratio as a string. */
  priceImpactPct: Type.Optional(Type.String()),
  routePlan: Type.Array(RoutePlanStep, { minItems: 1 }),
  feeBps: Type.Optional(Type.Number()),
  feeMint: Type.Optional(Type.String()),
  router: Type.Optional(Type.String()),
  mode: Type.Optional(Type.String()),
  /** base64; null without a taker; "" when the order could not be built (errorCode says why). */
  transaction: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  lastValidBlockHeight: Type.Optional(Type.String()),
  requestId: Type.String({ minLength: 1 }),
  errorCode: Type.Optional(Type.Number()),
  errorMessage: Type.Optional(Type.String()),
});
export type JupiterOrder = Static<typeof JupiterOrderAnswer>;
const Refusal = Type.Object({ error: Type.String(), requestId: Type.Optional(Type.String()) });

export type JupiterOrderResult = { kind: 'order'; order: JupiterOrder } | { kind: 'refused'; error: string };

export class JupiterSwapApi {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; apiKey: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, headers: { 'x-api-key': options.apiKey } };
  }

  /** An order: a quote, and with `taker` the transaction it would sign. A 400 is Jupiter's refusal (no route...). */
  async order(params: {
    inputMint: string;
    outputMint: string;
    amount: bigint;
    slippageBps: number;
    taker?: string;
  }): Promise<JupiterOrderResult> {
    const query = new URLSearchParams({
      inputMint: params.inputMint,
      outputMint: params.outputMint,
      amount: params.amount.toString(),
      swapMode: 'ExactIn',
      slippageBps: String(params.slippageBps),
      ...(params.taker ? { taker: params.taker } : {}),
    });
    const answer = await requestProvider<unknown>(this.http, 'GET', `/order?${query.toString()}`);
    if (answer.status === 400)
      return { kind: 'refused', error: expectAnswer(Refusal, answer.body, 'Jupiter /order (400)').error };
    if (answer.status !== 200)
      throw new ProviderUnavailable(`Jupiter /order answered ${answer.status}`, { status: answer.status });
    const order = expectAnswer(JupiterOrderAnswer, answer.body, 'Jupiter /order');
    if (
      order.inputMint !== params.inputMint ||
      order.outputMint !== params.outputMint ||
      order.inAmount !== params.amount.toString()
    )
      throw new ProviderAnswerInvalid(
        'Jupiter /order answered for another pair or amount than asked',
        JSON.stringify({ inputMint: order.inputMint, outputMint: order.outputMint, inAmount: order.inAmount }),
      );
    return { kind: 'order', order };
  }
}
