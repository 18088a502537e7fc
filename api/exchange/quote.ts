import { formatDecimal, formatMoney, parseAmount } from '../../platform/money';
import { DomainError } from '../../platform/domain-error';
import type { DataEncryption } from '../../platform/data-encryption';

export type Direction = 'exactInput' | 'exactOutput';

export class QuoteError extends DomainError {
  constructor(
    type:
      | 'unknown-network'
      | 'unknown-token'
      | 'same-token'
      | 'no-route'
      | 'insufficient-liquidity'
      | 'exact-output-unsupported',
    message: string,
  ) {
    super(type, message);
  }
}

/** One hop of a venue's route: the pool (or AMM) it trades in and its fee tier (null where the venue names none). */
export interface VenueHop {
  tokenIn: string;
  tokenOut: string;
  feeTier: number | null;
  pool: string;
}
export interface VenueQuote {
  /** The tokens the trade passes through, when its hops are not a chain (a split route); by default from the hops. */
  route?: string[];
  hops: VenueHop[];
  amountIn: bigint;
  amountOut: bigint;
  priceImpactPpm: bigint;
  /** The block (EVM) or slot (Solana) the venue read the quote at. */
  blockNumber: number;
}
export type VenueResult =
  { kind: 'quote'; quote: VenueQuote } | { kind: 'no-route' } | { kind: 'insufficient-liquidity' };

/** Where a network's quotes come from: Uniswap v3 on an EVM network, Jupiter on Solana. */
export interface Venue {
  /** Who answers its quotes (Uniswap v3, Jupiter). */
  name: string;
  /** Whether it prices an exact output. */
  exactOutput: boolean;
  /** The symbols a swap may sell or buy, sorted. */
  tradable(): string[];
  decimals(symbol: string): number;
  quote(source: string, target: string, direction: Direction, amount: bigint): Promise<VenueResult>;
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
  /** How long a quote may be acted on. */
  ttlSeconds: number;
}

/**
 * What a quote commits to, sealed into its quoteId (AES-GCM with the data key, bound to the user): a swap prepared
 * from it trades exactly this or is refused, and no table of quotes is kept.
 */
export interface QuoteTerms {
  v: 1;
  networkId: string;
  source: string;
  target: string;
  direction: Direction;
  amountIn: string;
  amountOut: string;
  /** exactInput: the least the swap may give; exactOutput: the output itself. */
  minimumReceived: string;
  /** exactOutput: the most the swap may take; exactInput: the input itself. */
  maximumSent: string;
  hops: VenueHop[];
  blockNumber: number;
  expiresAt: number;
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
const QUOTE_ID_PREFIX = 'q1.';
const quoteAad = (userId: string) => `swap-quote|${userId}`;

export class QuoteEngine {
  constructor(
    private readonly venues: Map<string, Venue>,
    private readonly policy: QuotePolicy,
    private readonly encryption: DataEncryption,
    /** The person's daily swap limit in won: what today's swaps spent, and a token amount's value. */
    private readonly limits: {
      dailyKrw: bigint;
      usedToday(userId: string): Promise<bigint>;
      valueKrw(symbol: string, amount: bigint, decimals: number): Promise<bigint>;
    },
    private readonly now: () => number = Date.now,
  ) {}

  networkIds(): string[] {
    return [...this.venues.keys()];
  }

  tokensOf(networkId: string): string[] {
    return this.venues.get(networkId)?.tradable() ?? [];
  }

  /** The terms sealed in a quoteId the user was given, or undefined for anything else (another's, altered, garbage). */
  openQuote(quoteId: string, userId: string): QuoteTerms | undefined {
    if (!quoteId.startsWith(QUOTE_ID_PREFIX)) return undefined;
    try {
      const sealed = Buffer.from(quoteId.slice(QUOTE_ID_PREFIX.length), 'base64url');
      return JSON.parse(this.encryption.open(sealed, quoteAad(userId)).toString('utf8')) as QuoteTerms;
    } catch {
      return undefined;
    }
  }

  /** A quote; the user's balance of the source token (read only once the request is valid) decides executability. */
  async quote(request: QuoteRequest, userId: string, balanceOfSource: () => Promise<bigint>) {
    const venue = this.venues.get(request.networkId);
    if (!venue)
      throw new QuoteError(
        'unknown-network',
        `Network ${request.networkId} has no exchange; networks with one: ${this.networkIds().join(', ')}`,
      );
    const tokens = venue.tradable();
    for (const token of [request.source, request.target]) {
      if (!tokens.includes(token)) {
        throw new QuoteError(
          'unknown-token',
          `${token} is not traded on ${request.networkId}; tokens: ${tokens.join(', ')}`,
        );
      }
    }
    if (request.source === request.target) throw new QuoteError('same-token', 'source and target must differ');
    if (request.direction === 'exactOutput' && !venue.exactOutput)
      throw new QuoteError(
        'exact-output-unsupported',
        `${request.networkId}'s exchange (${venue.name}) quotes an exact input only: ask for exactInput`,
      );
    const fixedToken = request.direction === 'exactInput' ? request.source : request.target;
    const amount = parseAmount(request.amount, venue.decimals(fixedToken), fixedToken);
    const answer = await venue.quote(request.source, request.target, request.direction, amount);
    if (answer.kind === 'no-route')
      throw new QuoteError(
        'no-route',
        `No route from ${request.source} to ${request.target} on ${request.networkId} (direct or through one token)`,
      );
    if (answer.kind === 'insufficient-liquidity')
      throw new QuoteError('insufficient-liquidity', `The pools cannot trade that amount of ${fixedToken}`);
    const best = answer.quote;
    const sourceDecimals = venue.decimals(request.source);
    const targetDecimals = venue.decimals(request.target);
    const slippage = BigInt(this.policy.slippageBps);
    const minimumReceived =
      request.direction === 'exactInput' ? (best.amountOut * (10_000n - slippage)) / 10_000n : best.amountOut;
    // exactOutput: the input may rise by the slippage (rounded up: never below what the quote needs).
    const maximumSent =
      request.direction === 'exactOutput' ? (best.amountIn * (10_000n + slippage) + 9_999n) / 10_000n : best.amountIn;
    // target per one source token, to 6 decimals
    const rate =
      (best.amountOut * 10n ** BigInt(sourceDecimals) * PPM) / (best.amountIn * 10n ** BigInt(targetDecimals));
    // What a swap of this quote may spend, in won, with today's swaps: over the daily limit it is not executable.
    const spends = request.direction === 'exactOutput' ? maximumSent : best.amountIn;
    const [valueKrw, usedKrw] = await Promise.all([
      this.limits.valueKrw(request.source, spends, sourceDecimals),
      this.limits.usedToday(userId),
    ]);
    const overLimit = usedKrw + valueKrw > this.limits.dailyKrw;
    const reason = overLimit ? 'limit_exceeded' : spends > (await balanceOfSource()) ? 'insufficient_balance' : null;
    const expiresAt = this.now() + this.policy.ttlSeconds * 1000;
    const terms: QuoteTerms = {
      v: 1,
      networkId: request.networkId,
      source: request.source,
      target: request.target,
      direction: request.direction,
      amountIn: best.amountIn.toString(),
      amountOut: best.amountOut.toString(),
      minimumReceived: minimumReceived.toString(),
      maximumSent: maximumSent.toString(),
      hops: best.hops,
      blockNumber: best.blockNumber,
      expiresAt,
    };
    const quoteId =
      QUOTE_ID_PREFIX +
      this.encryption.seal(Buffer.from(JSON.stringify(terms), 'utf8'), quoteAad(userId)).toString('base64url');
    return {
      source: request.source,
      target: request.target,
      direction: request.direction,
      sourceAmount: plain(best.amountIn, sourceDecimals),
      targetAmount: plain(best.amountOut, targetDecimals),
      sourceDisplayAmount: display(best.amountIn, sourceDecimals, request.source),
      targetDisplayAmount: display(best.amountOut, targetDecimals, request.target),
      exchangeRate: plain(rate, 6),
      priceImpact: percent(best.priceImpactPpm),
      priceImpactWarning: best.priceImpactPpm > BigInt(this.policy.priceImpactWarningPpm),
      route: best.route ?? [request.source, ...best.hops.map((h) => h.tokenOut)],
      feeTier: best.hops.length === 1 ? best.hops[0]!.feeTier : null,
      slippage: percent(slippage * 100n),
      minimumReceived: plain(minimumReceived, targetDecimals),
      minimumReceivedDisplay: display(minimumReceived, targetDecimals, request.target),
      networkId: request.networkId,
      executable: reason === null,
      notExecutableReason: reason,
      intermediary: !best.route && best.hops.length > 1 ? best.hops[0]!.tokenOut : null,
      quoteId,
      expiresAt: new Date(expiresAt).toISOString(),
      blockNumber: best.blockNumber,
      maximumSent: request.direction === 'exactOutput' ? plain(maximumSent, sourceDecimals) : null,
      hops: best.hops.map((h) => ({ tokenIn: h.tokenIn, tokenOut: h.tokenOut, feeTier: h.feeTier, pool: h.pool })),
    };
  }
}
