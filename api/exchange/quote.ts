import { Type, type Static } from '@sinclair/typebox';
import Ajv from 'ajv';
import { formatDecimal, formatMoney, parseAmount } from '../../platform/money';
import { DomainError } from '../../platform/domain-error';
import { bestTrade, FEE_TIERS, priceImpactPpm, routesBetween, type Direction, type FeeTier, type Pool } from './pools';

/** Decimals of the tokens quotes may name. */
export const TOKEN_DECIMALS: Record<string, number> = { ETH: 18, POL: 18, SOL: 9, USDT: 6, USDC: 6, WBTC: 8 };

const PoolConfig = Type.Object(
  {
    pair: Type.Tuple([Type.String(), Type.String()]),
    reserves: Type.Tuple([Type.String({ pattern: '^\\d+(\\.\\d+)?$' }), Type.String({ pattern: '^\\d+(\\.\\d+)?$' })]),
    fee: Type.Union(FEE_TIERS.map((f) => Type.Literal(f))),
  },
  { additionalProperties: false },
);
export const PoolsConfigSchema = Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), Type.Array(PoolConfig));
export type PoolsConfig = Static<typeof PoolsConfigSchema>;

/** The pools of the embedded stack (EXCHANGE_POOLS overrides them); reserves are in whole tokens. */
export const DEFAULT_POOLS: PoolsConfig = {
  ETHEREUM: [
    { pair: ['ETH', 'USDT'], reserves: ['2000', '6000000'], fee: 500 },
    { pair: ['ETH', 'USDT'], reserves: ['500', '1500000'], fee: 3000 },
    { pair: ['ETH', 'USDC'], reserves: ['1000', '3000000'], fee: 3000 },
    { pair: ['USDC', 'USDT'], reserves: ['5000000', '5000000'], fee: 500 },
    { pair: ['WBTC', 'ETH'], reserves: ['100', '3000'], fee: 3000 },
  ],
  POLYGON: [
    { pair: ['POL', 'USDT'], reserves: ['10000000', '5000000'], fee: 3000 },
    { pair: ['POL', 'ETH'], reserves: ['3000000', '500'], fee: 10000 },
    { pair: ['ETH', 'USDT'], reserves: ['200', '600000'], fee: 500 },
  ],
  SOLANA: [
    { pair: ['SOL', 'USDT'], reserves: ['50000', '7500000'], fee: 3000 },
    { pair: ['SOL', 'USDC'], reserves: ['20000', '3000000'], fee: 500 },
  ],
};

export class QuoteError extends DomainError {
  constructor(
    type: 'unknown-network' | 'unknown-token' | 'same-token' | 'no-route' | 'insufficient-liquidity',
    message: string,
  ) {
    super(type, message);
  }
}

export interface QuoteRequest {
  source: string;
  target: string;
  networkId: string;
  direction: Direction;
  amount: string;
}
export interface QuotePolicy {
  slippageBps: number;
  priceImpactWarningPpm: number;
  dailyLimits: Record<string, string>;
}

const DISPLAY_DECIMALS = 6;
const PPM = 1_000_000n;
/** "0.09%": parts per million as a percentage with two decimals (truncated). */
const percent = (ppm: bigint) => {
  const hundredths = ppm / 100n;
  return `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}%`;
};
/** Display amounts keep at most 6 decimals (truncated), with thousands separators. */
const display = (minor: bigint, decimals: number, symbol: string) => {
  const cut = decimals > DISPLAY_DECIMALS ? 10n ** BigInt(decimals - DISPLAY_DECIMALS) : 1n;
  return formatMoney((minor / cut) * cut, decimals, symbol);
};
const plain = (minor: bigint, decimals: number) => formatDecimal(minor, decimals).replace(/,/g, '');

export class QuoteEngine {
  private readonly pools = new Map<string, Pool[]>();
  private readonly tokens = new Map<string, string[]>();

  constructor(
    config: PoolsConfig,
    private readonly policy: QuotePolicy,
  ) {
    for (const [networkId, pools] of Object.entries(config)) {
      this.pools.set(
        networkId,
        pools.map((p) => {
          for (const token of p.pair)
            if (TOKEN_DECIMALS[token] === undefined) throw new Error(`pool token ${token} has no known decimals`);
          return {
            tokenA: p.pair[0],
            tokenB: p.pair[1],
            fee: p.fee as FeeTier,
            reserveA: parseAmount(p.reserves[0], TOKEN_DECIMALS[p.pair[0]]!, p.pair[0]),
            reserveB: parseAmount(p.reserves[1], TOKEN_DECIMALS[p.pair[1]]!, p.pair[1]),
          };
        }),
      );
    }
  }

  /** EXCHANGE_POOLS (the built-in pools when unset), validated: a bad value stops the process at start. */
  static poolsFromJson(json: string | undefined): PoolsConfig {
    if (!json) return DEFAULT_POOLS;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error('EXCHANGE_POOLS is not valid JSON');
    }
    const validate = new Ajv({ allErrors: true }).compile(PoolsConfigSchema);
    if (!validate(parsed))
      throw new Error(
        `EXCHANGE_POOLS is invalid: ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`,
      );
    return parsed as PoolsConfig;
  }

  networkIds(): string[] {
    return [...this.pools.keys()];
  }

  /** The tokens a network's pools trade, sorted (worked out once per network: the pools are fixed at start). */
  tokensOf(networkId: string): string[] {
    let tokens = this.tokens.get(networkId);
    if (!tokens) {
      tokens = [...new Set((this.pools.get(networkId) ?? []).flatMap((p) => [p.tokenA, p.tokenB]))].sort();
      this.tokens.set(networkId, tokens);
    }
    return [...tokens];
  }

  /** A quote; the user's balance of the source token (read only once the request is valid) decides executability. */
  async quote(request: QuoteRequest, balanceOfSource: () => Promise<bigint>) {
    const pools = this.pools.get(request.networkId);
    if (!pools)
      throw new QuoteError(
        'unknown-network',
        `Network ${request.networkId} is not supported; supported: ${this.networkIds().join(', ')}`,
      );
    const tokens = this.tokensOf(request.networkId);
    for (const token of [request.source, request.target]) {
      if (!tokens.includes(token)) {
        throw new QuoteError(
          'unknown-token',
          `${token} is not traded on ${request.networkId}; tokens: ${tokens.join(', ')}`,
        );
      }
    }
    if (request.source === request.target) throw new QuoteError('same-token', 'source and target must differ');
    const fixedToken = request.direction === 'exactInput' ? request.source : request.target;
    const amount = parseAmount(request.amount, TOKEN_DECIMALS[fixedToken]!, fixedToken);
    if (!routesBetween(pools, request.source, request.target).length) {
      throw new QuoteError(
        'no-route',
        `No route from ${request.source} to ${request.target} on ${request.networkId} (direct or through one token)`,
      );
    }
    const best = bestTrade(pools, request.source, request.target, request.direction, amount);
    if (!best) throw new QuoteError('insufficient-liquidity', `The pools cannot trade that amount of ${fixedToken}`);
    const sourceDecimals = TOKEN_DECIMALS[request.source]!;
    const targetDecimals = TOKEN_DECIMALS[request.target]!;
    const impact = priceImpactPpm(best.route, best.amountIn);
    const minimumReceived =
      request.direction === 'exactInput'
        ? (best.amountOut * (10_000n - BigInt(this.policy.slippageBps))) / 10_000n
        : best.amountOut;
    // target per one source token, to 6 decimals
    const rate =
      (best.amountOut * 10n ** BigInt(sourceDecimals) * PPM) / (best.amountIn * 10n ** BigInt(targetDecimals));
    const limit = this.policy.dailyLimits[request.source];
    const overLimit = limit !== undefined && best.amountIn > parseAmount(limit, sourceDecimals, request.source);
    const reason = overLimit
      ? 'limit_exceeded'
      : best.amountIn > (await balanceOfSource())
        ? 'insufficient_balance'
        : null;
    return {
      source: request.source,
      target: request.target,
      direction: request.direction,
      sourceAmount: plain(best.amountIn, sourceDecimals),
      targetAmount: plain(best.amountOut, targetDecimals),
      sourceDisplayAmount: display(best.amountIn, sourceDecimals, request.source),
      targetDisplayAmount: display(best.amountOut, targetDecimals, request.target),
      exchangeRate: plain(rate, 6),
      priceImpact: percent(impact),
      priceImpactWarning: impact > BigInt(this.policy.priceImpactWarningPpm),
      route: [request.source, ...best.route.map((h) => h.tokenOut)],
      feeTier: best.route.length === 1 ? best.route[0]!.pool.fee : null,
      slippage: percent(BigInt(this.policy.slippageBps) * 100n),
      minimumReceived: plain(minimumReceived, targetDecimals),
      minimumReceivedDisplay: display(minimumReceived, targetDecimals, request.target),
      networkId: request.networkId,
      executable: reason === null,
      notExecutableReason: reason,
      intermediary: best.route.length > 1 ? best.route[0]!.tokenOut : null,
    };
  }
}
