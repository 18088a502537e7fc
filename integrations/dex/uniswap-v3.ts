/**
 * Quotes from Uniswap v3 on chain: QuoterV2 (v3-periphery 1.4.4, `quoteExactInput`/`quoteExactOutput` with the path
 * reversed for exact output) over the candidate routes — direct at each enabled fee tier, and two hops through each
 * configured intermediary — every call read at one block, the best route taken, each hop's mid price read from its
 * pool's slot0 for the price impact. The same adapter reads Uniswap's published deployments in production and the
 * local chains' deployment of the same artifacts (dev/uniswap.ts).
 *
 * Reads are cheap to repeat within a block: the block number is read at most once per `blockCacheMs`, pool addresses
 * once (an absent pool again after a minute), and a quote's answer is kept for the rest of its block.
 */
import { Contract, Interface, solidityPacked, type JsonRpcProvider, type InterfaceAbi } from 'ethers';
import { priceImpactPpm } from './uniswap-v3-math';

export interface DexToken {
  symbol: string;
  address: string;
  decimals: number;
}
export interface UniswapV3Settings {
  factory: string;
  quoterV2: string;
  swapRouter: string;
  feeTiers: number[];
  /** Symbols a two-hop route may pass through. */
  intermediaries: string[];
}
export type Direction = 'exactInput' | 'exactOutput';
export interface RouteHop {
  tokenIn: DexToken;
  tokenOut: DexToken;
  fee: number;
  pool: string;
}
export interface DexQuote {
  hops: RouteHop[];
  amountIn: bigint;
  amountOut: bigint;
  priceImpactPpm: bigint;
  /** The block every read of this quote was made at. */
  blockNumber: number;
  /** QuoterV2's estimate of the swap's gas. */
  gasEstimate: bigint;
}
export type DexQuoteResult =
  { kind: 'quote'; quote: DexQuote } | { kind: 'no-route' } | { kind: 'insufficient-liquidity' };

const QUOTER = new Interface([
  'function quoteExactInput(bytes path, uint256 amountIn) returns (uint256 amountOut, uint160[] sqrtPriceX96AfterList, uint32[] initializedTicksCrossedList, uint256 gasEstimate)',
  'function quoteExactOutput(bytes path, uint256 amountOut) returns (uint256 amountIn, uint160[] sqrtPriceX96AfterList, uint32[] initializedTicksCrossedList, uint256 gasEstimate)',
]);
const POOL = new Interface([
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function liquidity() view returns (uint128)',
]);
const FACTORY_ABI: InterfaceAbi = ['function getPool(address,address,uint24) view returns (address)'];
/** TickMath's bounds: a swap that ends on one ran out of liquidity before it was done. */
const MIN_SQRT_RATIO = 4295128739n;
const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;
const ABSENT_POOL_RECHECK_MS = 60_000;
const QUOTES_KEPT_PER_BLOCK = 2_000;

/**
 * Whether a failed eth_call is the contract reverting (the route cannot trade the amount) rather than the node failing
 * (a rate limit, a node behind the block asked, a timeout): ethers calls both CALL_EXCEPTION, but only a revert comes
 * with revert data or the node's "execution reverted" (JSON-RPC error 3).
 */
export function isRevert(error: unknown): boolean {
  const e = error as { code?: string; data?: unknown; info?: { error?: { code?: number; message?: string } } };
  if (e.code !== 'CALL_EXCEPTION') return false;
  if (typeof e.data === 'string') return true;
  const rpc = e.info?.error;
  return rpc?.code === 3 || /execution reverted/i.test(rpc?.message ?? '');
}

/** A node failure, as the API's error mapping knows it (503, retry): never read as "no route". */
function unavailable(error: unknown): Error {
  if (!(error as { code?: string }).code || (error as { code?: string }).code === 'CALL_EXCEPTION')
    return Object.assign(new Error(`the chain node failed a quote's read: ${(error as Error).message}`), {
      code: 'SERVER_ERROR',
      cause: error,
    });
  return error as Error;
}

/** The path QuoterV2 and SwapRouter read: token, fee, token, ... (reversed for exact output). */
export function encodePath(hops: RouteHop[], direction: Direction): string {
  const tokens = [hops[0]!.tokenIn.address, ...hops.map((h) => h.tokenOut.address)];
  const fees = hops.map((h) => h.fee);
  if (direction === 'exactOutput') {
    tokens.reverse();
    fees.reverse();
  }
  const types: string[] = ['address'];
  const values: Array<string | number> = [tokens[0]!];
  fees.forEach((fee, i) => {
    types.push('uint24', 'address');
    values.push(fee, tokens[i + 1]!);
  });
  return solidityPacked(types, values);
}

export class UniswapV3Quoter {
  private readonly factory: Contract;
  private readonly pools = new Map<string, { address: string | null; checkedAt: number }>();
  private block: { number: number; readAt: number; pending?: Promise<number> } = { number: 0, readAt: 0 };
  private quotes = new Map<string, Promise<DexQuoteResult>>();
  private quotesBlock = -1;

  constructor(
    private readonly provider: JsonRpcProvider,
    private readonly settings: UniswapV3Settings,
    private readonly tokens: Record<string, DexToken>,
    private readonly options: { blockCacheMs: number; now?: () => number } = { blockCacheMs: 1_000 },
  ) {
    this.factory = new Contract(settings.factory, FACTORY_ABI, provider);
  }

  tokenSymbols(): string[] {
    return Object.keys(this.tokens).sort();
  }

  token(symbol: string): DexToken | undefined {
    return this.tokens[symbol];
  }

  /** The newest block, read at most once per blockCacheMs (concurrent callers share the read). */
  async blockNumber(): Promise<number> {
    const now = (this.options.now ?? Date.now)();
    if (now - this.block.readAt < this.options.blockCacheMs) return this.block.number;
    if (!this.block.pending) {
      this.block.pending = this.provider.getBlockNumber().then(
        (number) => {
          this.block = { number, readAt: (this.options.now ?? Date.now)() };
          return number;
        },
        (error: unknown) => {
          this.block.pending = undefined;
          throw error;
        },
      );
    }
    return this.block.pending;
  }

  /** The best route from `source` to `target` for `amount` (of source for exactInput, of target for exactOutput). */
  async quote(source: string, target: string, direction: Direction, amount: bigint): Promise<DexQuoteResult> {
    const blockNumber = await this.blockNumber();
    if (blockNumber !== this.quotesBlock) {
      this.quotes = new Map();
      this.quotesBlock = blockNumber;
    }
    const key = `${source}>${target}:${direction}:${amount}`;
    let answer = this.quotes.get(key);
    if (!answer) {
      answer = this.quoteAt(blockNumber, source, target, direction, amount);
      if (this.quotes.size >= QUOTES_KEPT_PER_BLOCK) this.quotes.clear();
      this.quotes.set(key, answer);
      answer.catch(() => this.quotes.delete(key)); // a failed read is tried again by the next caller
    }
    return answer;
  }

  private async quoteAt(
    blockNumber: number,
    source: string,
    target: string,
    direction: Direction,
    amount: bigint,
  ): Promise<DexQuoteResult> {
    const routes = await this.candidateRoutes(this.tokens[source]!, this.tokens[target]!);
    if (!routes.length) return { kind: 'no-route' };
    const blockTag = blockNumber;
    const answers = await Promise.all(routes.map((route) => this.quoteRoute(route, direction, amount, blockTag)));
    let best: { route: RouteHop[]; amountIn: bigint; amountOut: bigint; gasEstimate: bigint } | undefined;
    routes.forEach((route, i) => {
      const answer = answers[i];
      if (!answer) return;
      const better =
        !best ||
        (direction === 'exactInput'
          ? answer.amountOut > best.amountOut ||
            (answer.amountOut === best.amountOut && route.length < best.route.length)
          : answer.amountIn < best.amountIn || (answer.amountIn === best.amountIn && route.length < best.route.length));
      if (better) best = { route, ...answer };
    });
    if (!best) return { kind: 'insufficient-liquidity' };
    const chosen = best;
    // Each hop's mid price, at the same block, for the chosen route only.
    const sqrtPrices = new Map(
      await Promise.all(
        chosen.route.map(async (hop) => {
          try {
            const data = await this.provider.call({ to: hop.pool, data: POOL.encodeFunctionData('slot0'), blockTag });
            return [hop.pool, POOL.decodeFunctionResult('slot0', data)[0] as bigint] as const;
          } catch (error) {
            throw unavailable(error);
          }
        }),
      ),
    );
    const impact = priceImpactPpm(
      chosen.route.map((hop) => ({
        sqrtPriceX96: sqrtPrices.get(hop.pool)!,
        tokenInIsToken0: BigInt(hop.tokenIn.address) < BigInt(hop.tokenOut.address),
        fee: hop.fee,
      })),
      chosen.amountIn,
      chosen.amountOut,
    );
    return {
      kind: 'quote',
      quote: {
        hops: chosen.route,
        amountIn: chosen.amountIn,
        amountOut: chosen.amountOut,
        priceImpactPpm: impact,
        blockNumber,
        gasEstimate: chosen.gasEstimate,
      },
    };
  }

  /** QuoterV2's answer for one route, or undefined when the route cannot trade the amount (the quoter reverts). */
  private async quoteRoute(
    route: RouteHop[],
    direction: Direction,
    amount: bigint,
    blockTag: number,
  ): Promise<{ amountIn: bigint; amountOut: bigint; gasEstimate: bigint } | undefined> {
    const fn = direction === 'exactInput' ? 'quoteExactInput' : 'quoteExactOutput';
    let data: string;
    try {
      data = await this.provider.call({
        to: this.settings.quoterV2,
        data: QUOTER.encodeFunctionData(fn, [encodePath(route, direction), amount]),
        blockTag,
      });
    } catch (error) {
      if (isRevert(error)) return undefined;
      throw unavailable(error);
    }
    const [answer, sqrtPricesAfter, , gasEstimate] = QUOTER.decodeFunctionResult(fn, data) as unknown as [
      bigint,
      bigint[],
      bigint[],
      bigint,
    ];
    // A hop that ended on a price bound ran out of liquidity: it did not trade all of the amount.
    if (sqrtPricesAfter.some((p) => p <= MIN_SQRT_RATIO + 1n || p >= MAX_SQRT_RATIO - 1n)) return undefined;
    if (answer === 0n) return undefined;
    return direction === 'exactInput'
      ? { amountIn: amount, amountOut: answer, gasEstimate }
      : { amountIn: answer, amountOut: amount, gasEstimate };
  }

  /** Direct pools at each fee tier, then two hops through each intermediary; only pools that exist. */
  private async candidateRoutes(source: DexToken, target: DexToken): Promise<RouteHop[][]> {
    const hopsBetween = async (a: DexToken, b: DexToken): Promise<RouteHop[]> => {
      const found = await Promise.all(
        this.settings.feeTiers.map(async (fee) => {
          const pool = await this.poolOf(a, b, fee);
          return pool ? { tokenIn: a, tokenOut: b, fee, pool } : undefined;
        }),
      );
      return found.filter((h): h is RouteHop => h !== undefined);
    };
    const routes: RouteHop[][] = (await hopsBetween(source, target)).map((hop) => [hop]);
    for (const symbol of this.settings.intermediaries) {
      const middle = this.tokens[symbol];
      if (!middle || middle.address === source.address || middle.address === target.address) continue;
      const [firsts, seconds] = await Promise.all([hopsBetween(source, middle), hopsBetween(middle, target)]);
      for (const first of firsts) for (const second of seconds) routes.push([first, second]);
    }
    return routes;
  }

  private async poolOf(a: DexToken, b: DexToken, fee: number): Promise<string | null> {
    const [t0, t1] = BigInt(a.address) < BigInt(b.address) ? [a.address, b.address] : [b.address, a.address];
    const key = `${t0}:${t1}:${fee}`;
    const known = this.pools.get(key);
    const now = (this.options.now ?? Date.now)();
    if (known && (known.address || now - known.checkedAt < ABSENT_POOL_RECHECK_MS)) return known.address;
    const address = (await this.factory.getFunction('getPool')(t0, t1, fee)) as string;
    const found = BigInt(address) === 0n ? null : address;
    this.pools.set(key, { address: found, checkedAt: now });
    return found;
  }
}
