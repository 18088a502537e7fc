/**
 * Uniswap v3 on the local chains, from Uniswap's own published artifacts (none recompiled): UniswapV3Factory and
 * its pools (@uniswap/v3-core 1.0.1, BUSL-1.1: deployed here on local development chains only), SwapRouter, QuoterV2
 * and NonfungiblePositionManager (@uniswap/v3-periphery 1.4.4, GPL-2.0-or-later), WETH9 (canonical-weth 1.4.0) as
 * each chain's wrapped coin; plus the test tokens the pairs need (USDC 6 decimals, WBTC 8). Everything lands through
 * the deterministic deployer, so a restart finds it where it was.
 *
 * `seedPools` gives each local pair full-range liquidity at the sandbox market's prices when the stack starts (a pool
 * already there is traded back to that price once); nothing re-prices them afterwards, as nothing does on a real chain.
 */
import {
  Contract,
  JsonRpcProvider,
  MaxUint256,
  NonceManager,
  Wallet,
  toBeHex,
  type ContractRunner,
  type InterfaceAbi,
} from 'ethers';
import FactoryArtifact from '@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json';
import PoolArtifact from '@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json';
import SwapRouterArtifact from '@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json';
import QuoterV2Artifact from '@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json';
import PositionManagerArtifact from '@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json';
import Weth9Artifact from 'canonical-weth/build/contracts/WETH9.json';
import { loadArtifact } from '../contracts/build';
import { ANVIL_DEPLOYER_KEY, ensureDeployed, mined, type LocalNetworkId } from './chains';
import { sqrtPriceX96Of } from '../integrations/dex/uniswap-v3-math';

export interface UniswapV3Deployment {
  factory: string;
  swapRouter: string;
  quoterV2: string;
  positionManager: string;
  /** WETH9: the wrapped coin of the chain (WETH on ETHEREUM, standing for WPOL on POLYGON). */
  wrappedNative: string;
  /** The test tokens the pools trade besides the coin and USDT. */
  usdc: string;
  wbtc: string;
}

/** The init code hash v3-periphery's PoolAddress library computes pool addresses with: it must match the pool we deploy. */
export const POOL_INIT_CODE_HASH = '0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54';

export async function ensureUniswapV3(rpcUrl: string): Promise<UniswapV3Deployment> {
  const wrappedNative = await ensureDeployed(rpcUrl, Weth9Artifact, [], 'weth9');
  const factory = await ensureDeployed(rpcUrl, FactoryArtifact, [], 'uniswap-v3-factory-1.0.1');
  const swapRouter = await ensureDeployed(
    rpcUrl,
    SwapRouterArtifact,
    [factory, wrappedNative],
    'uniswap-v3-swap-router',
  );
  const quoterV2 = await ensureDeployed(rpcUrl, QuoterV2Artifact, [factory, wrappedNative], 'uniswap-v3-quoter-v2');
  // The token descriptor only draws the positions' NFT images (tokenURI): none is needed here.
  const positionManager = await ensureDeployed(
    rpcUrl,
    PositionManagerArtifact,
    [factory, wrappedNative, '0x0000000000000000000000000000000000000000'],
    'uniswap-v3-position-manager',
  );
  const minter = new Wallet(ANVIL_DEPLOYER_KEY).address;
  const token = loadArtifact('TestToken');
  const usdc = await ensureDeployed(rpcUrl, token, ['USD Coin (local)', 'USDC', 6, minter], 'test-usdc-v1');
  const wbtc = await ensureDeployed(rpcUrl, token, ['Wrapped BTC (local)', 'WBTC', 8, minter], 'test-wbtc-v1');
  return { factory, swapRouter, quoterV2, positionManager, wrappedNative, usdc, wbtc };
}

/** A local pool: its pair (symbols), fee tier, and how deep it is: what each side holds, in KRW, when seeded. */
export interface LocalPool {
  pair: [string, string];
  fee: 500 | 3000 | 10000;
  depthKrw: number;
}

/** The pairs of the local chains ("ETH"/"POL" is the wrapped coin). Fee tier 100 needs the factory's owner: none here. */
export const LOCAL_POOLS: Record<LocalNetworkId, LocalPool[]> = {
  ETHEREUM: [
    { pair: ['ETH', 'USDT'], fee: 500, depthKrw: 4_000_000_000 },
    { pair: ['ETH', 'USDT'], fee: 3000, depthKrw: 1_000_000_000 },
    { pair: ['ETH', 'USDC'], fee: 3000, depthKrw: 2_000_000_000 },
    { pair: ['USDC', 'USDT'], fee: 500, depthKrw: 2_000_000_000 },
    { pair: ['WBTC', 'ETH'], fee: 3000, depthKrw: 1_000_000_000 },
  ],
  POLYGON: [
    { pair: ['POL', 'USDT'], fee: 3000, depthKrw: 1_000_000_000 },
    { pair: ['POL', 'USDC'], fee: 500, depthKrw: 500_000_000 },
    { pair: ['USDC', 'USDT'], fee: 500, depthKrw: 1_000_000_000 },
  ],
};

/** The tokens of a local network's pools by symbol: the coin's symbol names the wrapped coin. */
export function localDexTokens(
  networkId: LocalNetworkId,
  deployment: UniswapV3Deployment,
  usdt: string,
): Record<string, { address: string; decimals: number }> {
  return {
    [networkId === 'POLYGON' ? 'POL' : 'ETH']: { address: deployment.wrappedNative, decimals: 18 },
    USDT: { address: usdt, decimals: 6 },
    USDC: { address: deployment.usdc, decimals: 6 },
    ...(networkId === 'ETHEREUM' ? { WBTC: { address: deployment.wbtc, decimals: 8 } } : {}),
  };
}

/** Market prices the pools are seeded at: KRW per whole token, by symbol (ETH, POL, USDT, USDC, BTC for WBTC). */
export type KrwPrices = (symbol: string) => number;

const MIN_TICK_BY_FEE: Record<number, number> = { 500: -887270, 3000: -887220, 10000: -887200 };
/** How far (parts per million of the price) a pool may be from the market before the start trades it back. */
const RESEED_TOLERANCE_PPM = 5_000n;
/**
 * A gas limit set rather than estimated, for the pools' own trades (the seeding here, the tests that move a pool):
 * anvil can answer an estimate from the state before the last transaction for a moment, and a mint or swap estimated
 * there runs out of gas (found in the test chains' snapshots, and in CI on 2026-12-05: a test's swap reverted).
 */
export const POOL_TRADE_GAS = 8_000_000n;

/**
 * Full-range liquidity in every pool of the network at the market's prices: a pool not yet created is created at the
 * price and given `depthKrw` of each side; one already there whose price drifted (trades on an earlier run) is traded
 * back to the market's price by the deployer. Development chains only: the deployer key mints the test tokens and
 * anvil gives it the coin it wraps.
 */
export async function seedPools(
  rpcUrl: string,
  networkId: LocalNetworkId,
  deployment: UniswapV3Deployment,
  usdt: string,
  priceKrw: KrwPrices,
  log?: (line: string) => void,
): Promise<void> {
  // anvil mines each transaction at once: receipts are asked for often, not every 4 s (ethers' default).
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  try {
    const wallet = new Wallet(ANVIL_DEPLOYER_KEY, provider);
    const signer = new NonceManager(wallet);
    // anvil's development account holds 10,000 of the coin: enough for nothing deep on POLYGON, where POL is cheap.
    await provider.send('anvil_setBalance', [wallet.address, toBeHex(10n ** 30n)]);
    const tokens = localDexTokens(networkId, deployment, usdt);
    const factory = new Contract(deployment.factory, FactoryArtifact.abi as InterfaceAbi, signer);
    const manager = new Contract(deployment.positionManager, PositionManagerArtifact.abi as InterfaceAbi, signer);
    const router = new Contract(deployment.swapRouter, SwapRouterArtifact.abi as InterfaceAbi, signer);
    const erc20 = (address: string, runner: ContractRunner) =>
      new Contract(
        address,
        [
          'function allowance(address,address) view returns (uint256)',
          // Tether returns nothing from approve (and WETH9 a bool): the answer is never read.
          'function approve(address,uint256)',
          'function mint(address,uint256)',
          'function deposit() payable',
        ],
        runner,
      );
    const fund = async (symbol: string, amount: bigint) => {
      const token = erc20(tokens[symbol]!.address, signer);
      if (tokens[symbol]!.address === deployment.wrappedNative)
        await mined(await token.getFunction('deposit')({ value: amount }), `${symbol} wrapped`);
      else await mined(await token.getFunction('mint')(wallet.address, amount), `${symbol} minted`);
      for (const spender of [deployment.positionManager, deployment.swapRouter]) {
        if (((await token.getFunction('allowance')(wallet.address, spender)) as bigint) === 0n)
          await mined(await token.getFunction('approve')(spender, MaxUint256), `${symbol} approved`);
      }
    };
    const krw = (symbol: string) => priceKrw(symbol === 'WBTC' ? 'BTC' : symbol);
    for (const pool of LOCAL_POOLS[networkId]) {
      const [a, b] = pool.pair.map((symbol) => ({ symbol, ...tokens[symbol]! }));
      const [token0, token1] = BigInt(a!.address) < BigInt(b!.address) ? [a!, b!] : [b!, a!];
      // KRW prices with 6 decimals of precision, so the stablecoins' and POL's small prices keep their digits.
      const price0 = BigInt(Math.round(krw(token0.symbol) * 1e6));
      const price1 = BigInt(Math.round(krw(token1.symbol) * 1e6));
      const target = sqrtPriceX96Of(price0 * 10n ** BigInt(token1.decimals), price1 * 10n ** BigInt(token0.decimals));
      const depth = BigInt(pool.depthKrw) * 10n ** 6n;
      const amount0 = (depth * 10n ** BigInt(token0.decimals)) / price0;
      const amount1 = (depth * 10n ** BigInt(token1.decimals)) / price1;
      let address = (await factory.getFunction('getPool')(token0.address, token1.address, pool.fee)) as string;
      if (BigInt(address) === 0n) {
        await mined(
          await manager.getFunction('createAndInitializePoolIfNecessary')(
            token0.address,
            token1.address,
            pool.fee,
            target,
            { gasLimit: POOL_TRADE_GAS },
          ),
          `pool ${token0.symbol}/${token1.symbol} created`,
        );
        address = (await factory.getFunction('getPool')(token0.address, token1.address, pool.fee)) as string;
      }
      const poolContract = new Contract(address, PoolArtifact.abi as InterfaceAbi, provider);
      const label = `${token0.symbol}/${token1.symbol} ${pool.fee / 10_000}%`;
      if (((await poolContract.getFunction('liquidity')()) as bigint) === 0n) {
        await fund(token0.symbol, amount0);
        await fund(token1.symbol, amount1);
        const minTick = MIN_TICK_BY_FEE[pool.fee]!;
        await mined(
          await manager.getFunction('mint')(
            {
              token0: token0.address,
              token1: token1.address,
              fee: pool.fee,
              tickLower: minTick,
              tickUpper: -minTick,
              amount0Desired: amount0,
              amount1Desired: amount1,
              amount0Min: 0n,
              amount1Min: 0n,
              recipient: wallet.address,
              deadline: MaxUint256,
            },
            { gasLimit: POOL_TRADE_GAS },
          ),
          `pool ${label} seeded`,
        );
        log?.(`seeded ${label} at the market's price`);
        continue;
      }
      const [current] = (await poolContract.getFunction('slot0')()) as [bigint];
      const drift = current > target ? current - target : target - current;
      // sqrt prices: a drift of d ppm in the price is about d/2 ppm in its square root.
      if (drift * 2_000_000n <= target * RESEED_TOLERANCE_PPM) continue;
      // The price (token1 per token0) goes up when token1 is sold into the pool, down when token0 is.
      const [tokenIn, tokenOut] = current < target ? [token1, token0] : [token0, token1];
      const budget = (tokenIn === token0 ? amount0 : amount1) * 4n;
      await fund(tokenIn.symbol, budget);
      await mined(
        await router.getFunction('exactInputSingle')(
          {
            tokenIn: tokenIn.address,
            tokenOut: tokenOut.address,
            fee: pool.fee,
            recipient: wallet.address,
            deadline: MaxUint256,
            amountIn: budget,
            amountOutMinimum: 0n,
            // The swap stops at the market's price: the router takes only what it needed.
            sqrtPriceLimitX96: target,
          },
          { gasLimit: POOL_TRADE_GAS },
        ),
        `pool ${label} traded back`,
      );
      log?.(`traded ${label} back to the market's price`);
    }
  } finally {
    provider.destroy();
  }
}

/**
 * What NETWORKS says of a local EVM network's exchange: its tokens (USDT, USDC, WBTC on ETHEREUM) and `dex`, the
 * local Uniswap v3 deployment. `usdtDti`: the DTI the local USDT carries (it stands for Tether's on ETHEREUM).
 */
export function localDexNetwork(
  networkId: LocalNetworkId,
  deployment: UniswapV3Deployment,
  usdt: string,
  usdtDti?: string,
): {
  tokens: Record<string, { address: string; decimals: number; dti?: string }>;
  dex: {
    kind: 'uniswap-v3';
    factory: string;
    quoterV2: string;
    swapRouter: string;
    wrappedNative: string;
    feeTiers: Array<500 | 3000 | 10000>;
    intermediaries: string[];
    tradable: string[];
  };
} {
  const coin = networkId === 'POLYGON' ? 'POL' : 'ETH';
  const dexTokens = localDexTokens(networkId, deployment, usdt);
  const tokens = Object.fromEntries(
    Object.entries(dexTokens)
      .filter(([symbol]) => symbol !== coin)
      .map(([symbol, t]) => [symbol, symbol === 'USDT' && usdtDti ? { ...t, dti: usdtDti } : t]),
  );
  return {
    tokens,
    dex: {
      kind: 'uniswap-v3',
      factory: deployment.factory,
      quoterV2: deployment.quoterV2,
      swapRouter: deployment.swapRouter,
      wrappedNative: deployment.wrappedNative,
      feeTiers: [500, 3000, 10000],
      intermediaries: networkId === 'POLYGON' ? ['USDC', 'USDT'] : ['ETH', 'USDC', 'USDT'],
      tradable: Object.keys(dexTokens).sort(),
    },
  };
}
