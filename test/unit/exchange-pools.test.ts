import {
  amountIn,
  amountOut,
  bestTrade,
  hopOf,
  InsufficientLiquidity,
  priceImpactPpm,
  routesBetween,
  trade,
  type Pool,
} from '../../api/exchange/pools';

const E18 = 10n ** 18n;
const E6 = 10n ** 6n;
const E8 = 10n ** 8n;
// Reserves: 1,000 ETH / 3,000,000 USDT (mid price 3,000) and 50 WBTC / 1,500 ETH (mid price 30 ETH).
const ethUsdt: Pool = { tokenA: 'ETH', tokenB: 'USDT', reserveA: 1000n * E18, reserveB: 3_000_000n * E6, fee: 3000 };
const ethUsdtLowFee: Pool = { ...ethUsdt, fee: 500 };
const wbtcEth: Pool = { tokenA: 'WBTC', tokenB: 'ETH', reserveA: 50n * E8, reserveB: 1500n * E18, fee: 3000 };

/** Expected values were computed by hand with exact integer arithmetic (Python ints) from the formulas in pools.ts. */
describe('constant-product pool math (known answers)', () => {
  it('exactInput: 1 ETH into the 0.3 % pool yields 2,988.020943 USDT', () => {
    expect(amountOut(hopOf(ethUsdt, 'ETH'), 1n * E18)).toBe(2_988_020_943n);
  });

  it('exactOutput: 3,000 USDT costs 1.004013040121365097 ETH at 0.3 % and 1.001501751876939471 ETH at 0.05 %', () => {
    expect(amountIn(hopOf(ethUsdt, 'ETH'), 3000n * E6)).toBe(1_004_013_040_121_365_097n);
    expect(amountIn(hopOf(ethUsdtLowFee, 'ETH'), 3000n * E6)).toBe(1_001_501_751_876_939_471n);
  });

  it('two hops through ETH: 1 WBTC yields 29.325254426730984175 ETH, then 85,220.228424 USDT', () => {
    const route = [hopOf(wbtcEth, 'WBTC'), hopOf(ethUsdt, 'ETH')];
    expect(amountOut(route[0]!, 1n * E8)).toBe(29_325_254_426_730_984_175n);
    expect(trade(route, 'exactInput', 1n * E8)).toEqual({ amountIn: 1n * E8, amountOut: 85_220_228_424n });
    // Backwards for exactOutput: 1,000 USDT needs 0.33444782496873749 ETH, which needs 0.0111843 WBTC.
    expect(trade(route, 'exactOutput', 1000n * E6)).toEqual({ amountIn: 1_118_430n, amountOut: 1000n * E6 });
  });

  it('price impact without fees: 1/1001 of the pool is 999 ppm; 100 ETH is 90,909 ppm', () => {
    expect(priceImpactPpm([hopOf(ethUsdt, 'ETH')], 1n * E18)).toBe(999n);
    expect(priceImpactPpm([hopOf(ethUsdt, 'ETH')], 100n * E18)).toBe(90_909n);
  });

  it('refuses an output the pool cannot provide', () => {
    expect(() => amountIn(hopOf(ethUsdt, 'ETH'), 3_000_000n * E6)).toThrow(InsufficientLiquidity);
  });
});

describe('routes', () => {
  const pools = [ethUsdt, ethUsdtLowFee, wbtcEth];

  it('finds direct pools and two-hop routes through an intermediary', () => {
    expect(routesBetween(pools, 'ETH', 'USDT').map((r) => r.map((h) => h.pool.fee))).toEqual([[3000], [500]]);
    expect(routesBetween(pools, 'WBTC', 'USDT').map((r) => r.map((h) => h.tokenOut))).toEqual([
      ['ETH', 'USDT'],
      ['ETH', 'USDT'],
    ]);
    expect(routesBetween(pools, 'WBTC', 'DOGE')).toEqual([]);
  });

  it('picks the fee tier that gives the most output, or costs the least input', () => {
    expect(bestTrade(pools, 'ETH', 'USDT', 'exactInput', 1n * E18)!.route[0]!.pool.fee).toBe(500);
    expect(bestTrade(pools, 'ETH', 'USDT', 'exactOutput', 3000n * E6)!.amountIn).toBe(1_001_501_751_876_939_471n);
    const viaEth = bestTrade(pools, 'WBTC', 'USDT', 'exactInput', 1n * E8)!;
    expect(viaEth.route.map((h) => h.pool.fee)).toEqual([3000, 500]);
  });
});
