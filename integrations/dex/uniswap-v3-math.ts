/**
 * The Uniswap v3 arithmetic the service does itself: a pool's sqrt price (Q64.96) from a price, a hop's mid price from
 * slot0, and price impact against mid prices. Prices are of raw units: token1's base units per one base unit of token0.
 */
const Q192 = 1n << 192n;
const PPM = 1_000_000n;

/** floor(√n) for a non-negative bigint (Newton's method). */
export function isqrt(n: bigint): bigint {
  if (n < 0n) throw new RangeError('square root of a negative number');
  if (n < 2n) return n;
  // Newton's method from a start above the root (2^ceil(bits/2)) decreases to floor(√n) and stops there.
  let x = 1n << BigInt(Math.ceil(n.toString(2).length / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** sqrtPriceX96 of the price numerator/denominator (token1 base units per token0 base unit). */
export const sqrtPriceX96Of = (numerator: bigint, denominator: bigint): bigint =>
  isqrt((numerator * Q192) / denominator);

/** A hop's mid price as a fraction (what one base unit of tokenIn is worth in tokenOut), from the pool's sqrt price. */
export function midPrice(sqrtPriceX96: bigint, tokenInIsToken0: boolean): { numerator: bigint; denominator: bigint } {
  const squared = sqrtPriceX96 * sqrtPriceX96;
  return tokenInIsToken0 ? { numerator: squared, denominator: Q192 } : { numerator: Q192, denominator: squared };
}

/**
 * Price impact in parts per million, pool fees excluded: how much less the trade gives than its input would buy at the
 * hops' mid prices after their fees (for exact output too, as Uniswap's SDK measures it: the output short of what the
 * input paid would buy at mid).
 */
export function priceImpactPpm(
  hops: Array<{ sqrtPriceX96: bigint; tokenInIsToken0: boolean; fee: number }>,
  amountIn: bigint,
  amountOut: bigint,
): bigint {
  if (amountIn === 0n) return 0n;
  // The output amountIn would buy at mid prices, fees paid: numerator/denominator.
  let numerator = amountIn;
  let denominator = 1n;
  for (const hop of hops) {
    const mid = midPrice(hop.sqrtPriceX96, hop.tokenInIsToken0);
    numerator *= mid.numerator * (PPM - BigInt(hop.fee));
    denominator *= mid.denominator * PPM;
  }
  if (numerator === 0n) return 0n;
  // 1 − amountOut / (numerator/denominator), never below zero (rounding can make a tiny trade look better than mid).
  const shortfall = numerator - amountOut * denominator;
  return shortfall <= 0n ? 0n : (shortfall * PPM) / numerator;
}
