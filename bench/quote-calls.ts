/**
 * The chain reads one ETHEREUM quote of ETH -> USDT makes when nothing is cached: QuoterV2's quoteExactInput for every
 * candidate route the service weighs (each direct pool at fee tiers 500/3000/10000, each two-hop path through USDC,
 * the local intermediaries), and slot0 of every pool on them. The quote row's baseline (bare-koa's /jwt-quote) makes
 * exactly these calls on every request.
 */
import { Contract, Interface, JsonRpcProvider, type InterfaceAbi } from 'ethers';
import { encodePath, type RouteHop } from '../integrations/dex/uniswap-v3';
import type { UniswapV3Deployment } from '../dev/uniswap';

export interface QuoteCalls {
  rpcUrl: string;
  calls: Array<{ to: string; data: string }>;
}

const QUOTER = new Interface([
  'function quoteExactInput(bytes path, uint256 amountIn) returns (uint256, uint160[], uint32[], uint256)',
]);
const SLOT0 = new Interface(['function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)']);
const FEES = [500, 3000, 10000];

export async function quoterCalls(
  chain: { rpcUrl: string; usdt: string; uniswap: UniswapV3Deployment },
  amountIn: bigint,
): Promise<QuoteCalls> {
  const provider = new JsonRpcProvider(chain.rpcUrl, undefined, { staticNetwork: true });
  try {
    const factory = new Contract(
      chain.uniswap.factory,
      ['function getPool(address,address,uint24) view returns (address)'] as InterfaceAbi,
      provider,
    );
    const token = (symbol: string, address: string, decimals: number) => ({ symbol, address, decimals });
    const eth = token('ETH', chain.uniswap.wrappedNative, 18);
    const usdt = token('USDT', chain.usdt, 6);
    const usdc = token('USDC', chain.uniswap.usdc, 6);
    const hops = async (a: typeof eth, b: typeof eth): Promise<RouteHop[]> => {
      const found: RouteHop[] = [];
      for (const fee of FEES) {
        const pool = (await factory.getFunction('getPool')(a.address, b.address, fee)) as string;
        if (BigInt(pool) !== 0n) found.push({ tokenIn: a, tokenOut: b, fee, pool });
      }
      return found;
    };
    const routes: RouteHop[][] = (await hops(eth, usdt)).map((h) => [h]);
    for (const first of await hops(eth, usdc))
      for (const second of await hops(usdc, usdt)) routes.push([first, second]);
    const pools = [...new Set(routes.flat().map((h) => h.pool))];
    return {
      rpcUrl: chain.rpcUrl,
      calls: [
        ...routes.map((route) => ({
          to: chain.uniswap.quoterV2,
          data: QUOTER.encodeFunctionData('quoteExactInput', [encodePath(route, 'exactInput'), amountIn]),
        })),
        ...pools.map((pool) => ({ to: pool, data: SLOT0.encodeFunctionData('slot0') })),
      ],
    };
  } finally {
    provider.destroy();
  }
}
