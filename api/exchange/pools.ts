/**
 * Constant-product pools (x·y = k) with Uniswap fee tiers, in integer base units (bigint), and route search over
 * them. Fee tiers are in hundredths of a basis point: 500 = 0.05 %, 3000 = 0.3 %, 10000 = 1 %.
 *
 *   exactInput, one hop:  out = floor(in·(1e6 − fee)·R_out / (R_in·1e6 + in·(1e6 − fee)))
 *   exactOutput, one hop: in  = floor(R_in·out·1e6 / ((R_out − out)·(1e6 − fee))) + 1
 * (the Uniswap v2 formulas with the fee as a parameter; rounding always favours the pool). A route chains hops:
 * forward for exactInput, backward for exactOutput.
 */
export const FEE_TIERS = [500, 3000, 10000] as const;
export type FeeTier = (typeof FEE_TIERS)[number];
const FEE_DENOMINATOR = 1_000_000n;

export interface Pool {
  tokenA: string;
  tokenB: string;
  reserveA: bigint;
  reserveB: bigint;
  fee: FeeTier;
}
export interface Hop {
  pool: Pool;
  tokenIn: string;
  tokenOut: string;
  reserveIn: bigint;
  reserveOut: bigint;
}
export type Direction = 'exactInput' | 'exactOutput';

export class InsufficientLiquidity extends Error {
  constructor() {
    super('the pools cannot provide that amount');
    this.name = 'InsufficientLiquidity';
  }
}

export const hopOf = (pool: Pool, tokenIn: string): Hop =>
  pool.tokenA === tokenIn
    ? { pool, tokenIn, tokenOut: pool.tokenB, reserveIn: pool.reserveA, reserveOut: pool.reserveB }
    : { pool, tokenIn, tokenOut: pool.tokenA, reserveIn: pool.reserveB, reserveOut: pool.reserveA };

export function amountOut(hop: Hop, amountIn: bigint, fee: bigint = BigInt(hop.pool.fee)): bigint {
  const inWithFee = amountIn * (FEE_DENOMINATOR - fee);
  return (inWithFee * hop.reserveOut) / (hop.reserveIn * FEE_DENOMINATOR + inWithFee);
}

export function amountIn(hop: Hop, amountOutWanted: bigint): bigint {
  if (amountOutWanted >= hop.reserveOut) throw new InsufficientLiquidity();
  const fee = BigInt(hop.pool.fee);
  return (
    (hop.reserveIn * amountOutWanted * FEE_DENOMINATOR) /
      ((hop.reserveOut - amountOutWanted) * (FEE_DENOMINATOR - fee)) +
    1n
  );
}

/** Both amounts of a trade along a route, given the fixed side. */
export function trade(route: Hop[], direction: Direction, amount: bigint): { amountIn: bigint; amountOut: bigint } {
  if (direction === 'exactInput') {
    let out = amount;
    for (const hop of route) out = amountOut(hop, out);
    if (out <= 0n) throw new InsufficientLiquidity();
    return { amountIn: amount, amountOut: out };
  }
  let needed = amount;
  for (const hop of [...route].reverse()) needed = amountIn(hop, needed);
  return { amountIn: needed, amountOut: amount };
}

/**
 * Price impact of a trade, pool fees excluded: 1 − (what the trade yields without fees) ÷ (what it would yield at the
 * pools' mid prices before the trade). Answered in parts per million.
 */
export function priceImpactPpm(route: Hop[], amountInTotal: bigint): bigint {
  let noFee = amountInTotal;
  let numerator = amountInTotal;
  let denominator = 1n;
  for (const hop of route) {
    noFee = amountOut(hop, noFee, 0n);
    numerator *= hop.reserveOut;
    denominator *= hop.reserveIn;
  }
  const atMid = numerator / denominator;
  if (atMid === 0n) return 0n;
  return ((atMid - noFee) * 1_000_000n) / atMid;
}

/** Every route from `source` to `target`: direct pools, and two hops through one intermediary token. */
export function routesBetween(pools: Pool[], source: string, target: string): Hop[][] {
  const touching = (token: string) => pools.filter((p) => p.tokenA === token || p.tokenB === token);
  const routes: Hop[][] = [];
  for (const pool of touching(source)) {
    const first = hopOf(pool, source);
    if (first.tokenOut === target) {
      routes.push([first]);
      continue;
    }
    for (const next of touching(first.tokenOut)) {
      if (next === pool) continue;
      const second = hopOf(next, first.tokenOut);
      if (second.tokenOut === target) routes.push([first, second]);
    }
  }
  return routes;
}

/** The best route: most output for exactInput, least input for exactOutput; direct routes win ties. */
export function bestTrade(
  pools: Pool[],
  source: string,
  target: string,
  direction: Direction,
  amount: bigint,
): { route: Hop[]; amountIn: bigint; amountOut: bigint } | undefined {
  let best: { route: Hop[]; amountIn: bigint; amountOut: bigint } | undefined;
  for (const route of routesBetween(pools, source, target)) {
    let result: { amountIn: bigint; amountOut: bigint };
    try {
      result = trade(route, direction, amount);
    } catch (error) {
      if (error instanceof InsufficientLiquidity) continue;
      throw error;
    }
    const better =
      !best ||
      (direction === 'exactInput'
        ? result.amountOut > best.amountOut || (result.amountOut === best.amountOut && route.length < best.route.length)
        : result.amountIn < best.amountIn || (result.amountIn === best.amountIn && route.length < best.route.length));
    if (better) best = { route, ...result };
  }
  return best;
}
