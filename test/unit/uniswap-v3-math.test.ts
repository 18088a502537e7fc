import { isqrt, priceImpactPpm, sqrtPriceX96Of } from '../../integrations/dex/uniswap-v3-math';
import { POOL_INIT_CODE_HASH } from '../../dev/uniswap';
import PoolArtifact from '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json';
import { keccak256 } from 'ethers';
import { readFileSync } from 'node:fs';

describe('Uniswap v3 arithmetic', () => {
  it('takes exact integer square roots, small and past what a float holds', () => {
    for (let n = 0n; n < 2_000n; n += 1n) {
      const r = isqrt(n);
      expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
    }
    for (const n of [2n ** 192n, (2n ** 192n * 2994n * 10n ** 6n) / 10n ** 18n + 12345n, 10n ** 77n - 1n]) {
      const r = isqrt(n);
      expect(r * r <= n && (r + 1n) * (r + 1n) > n).toBe(true);
    }
    expect(() => isqrt(-1n)).toThrow(RangeError);
  });

  it('prices a pool as Uniswap does: 1:1 is 2^96, and 2994 USDT (6 decimals) per WETH (18) as its sqrt', () => {
    expect(sqrtPriceX96Of(1n, 1n)).toBe(2n ** 96n);
    const sqrtPrice = sqrtPriceX96Of(2994n * 10n ** 6n, 10n ** 18n);
    // (sqrtPrice / 2^96)^2 is the price in raw units: 2994e6 / 1e18.
    expect((sqrtPrice * sqrtPrice * 10n ** 18n) >> 192n).toBe(2993_999_999n); // floor of the root, squared: one unit below
  });

  it('measures price impact against the mid price after fees, never below zero', () => {
    const mid = sqrtPriceX96Of(2994n * 10n ** 6n, 10n ** 18n);
    const hop = { sqrtPriceX96: mid, tokenInIsToken0: true, fee: 500 };
    const atMid = (10n ** 18n * 2994n * 10n ** 6n * 9995n) / 10n ** 22n; // 1 WETH at mid, 0.05 % fee
    expect(priceImpactPpm([hop], 10n ** 18n, atMid)).toBeLessThanOrEqual(1n);
    // 1 % short of mid (give or take the 1 ppm the floored square root costs)
    expect(Number(priceImpactPpm([hop], 10n ** 18n, (atMid * 99n) / 100n))).toBeCloseTo(10_000, -1);
    expect(priceImpactPpm([hop], 10n ** 18n, atMid * 2n)).toBe(0n);
    // The same pool crossed the other way: USDT in (token1), WETH out.
    const back = { sqrtPriceX96: mid, tokenInIsToken0: false, fee: 500 };
    expect(Number(priceImpactPpm([back], 2994n * 10n ** 6n, (10n ** 18n * 9995n * 98n) / 1_000_000n))).toBeCloseTo(
      20_000,
      -1,
    );
  });

  it("deploys the pool whose init code hash v3-periphery's PoolAddress computes addresses with", () => {
    expect(keccak256(PoolArtifact.bytecode)).toBe(POOL_INIT_CODE_HASH);
    const library = readFileSync(require.resolve('@uniswap/v3-periphery/contracts/libraries/PoolAddress.sol'), 'utf8');
    expect(library).toContain(`POOL_INIT_CODE_HASH = ${POOL_INIT_CODE_HASH}`);
  });
});
