import { UniswapV3Quoter, type DexToken } from '../../integrations/dex/uniswap-v3';
import { JupiterSwapApi, WSOL_MINT } from '../../integrations/dex/jupiter';
import { ProviderAnswerInvalid } from '../../integrations/provider-http';
import type { SolanaChains } from '../../integrations/solana';
import { SOL_DECIMALS } from '../../integrations/solana';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import { coinOf, type EvmNetwork, type NetworkRegistry, type SolanaNetwork } from '../../platform/networks';
import type { Direction, Venue, VenueResult } from './quote';

/** Uniswap v3 on an EVM network (NETWORKS.<id>.dex): the network's coin trades as its wrapped coin. */
export function uniswapVenue(network: EvmNetwork, providers: ChainProviders, blockCacheMs: number): Venue {
  const dex = network.dex!;
  const coin = coinOf(network);
  const tokens: Record<string, DexToken> = {};
  for (const symbol of dex.tradable) {
    const token = network.tokens?.[symbol];
    tokens[symbol] =
      symbol === coin.symbol
        ? { symbol, address: dex.wrappedNative, decimals: coin.decimals }
        : { symbol, address: token!.address, decimals: token!.decimals };
  }
  const quoter = new UniswapV3Quoter(
    providers.for(network),
    {
      factory: dex.factory,
      quoterV2: dex.quoterV2,
      swapRouter: dex.swapRouter,
      feeTiers: dex.feeTiers,
      intermediaries: dex.intermediaries,
    },
    tokens,
    { blockCacheMs },
  );
  const tradable = Object.keys(tokens).sort();
  return {
    name: 'Uniswap v3',
    exactOutput: true,
    tradable: () => tradable,
    decimals: (symbol) => tokens[symbol]!.decimals,
    async quote(source: string, target: string, direction: Direction, amount: bigint): Promise<VenueResult> {
      const answer = await quoter.quote(source, target, direction, amount);
      if (answer.kind !== 'quote') return answer;
      const { quote } = answer;
      return {
        kind: 'quote',
        quote: {
          hops: quote.hops.map((h) => ({
            tokenIn: h.tokenIn.symbol,
            tokenOut: h.tokenOut.symbol,
            feeTier: h.fee,
            pool: h.pool,
          })),
          amountIn: quote.amountIn,
          amountOut: quote.amountOut,
          priceImpactPpm: quote.priceImpactPpm,
          blockNumber: quote.blockNumber,
        },
      };
    },
  };
}

/**
 * Jupiter's Swap API on SOLANA (NETWORKS.SOLANA.dex): ExactIn orders without a taker are quotes. Jupiter's answer names
 * no slot, so the quote's block is the cluster's slot read just before asking.
 */
export function jupiterVenue(
  network: SolanaNetwork,
  api: JupiterSwapApi,
  chains: SolanaChains,
  slippageBps: number,
  cacheMs = 0,
): Venue {
  /** Answers of the last `cacheMs` (QUOTE_BLOCK_CACHE_MS) by pair and amount: one Jupiter call per burst of the same quote. */
  const recent = new Map<string, { until: number; answer: Promise<VenueResult> }>();
  const dex = network.dex!;
  const tokens: Record<string, { mint: string; decimals: number }> = {};
  for (const symbol of dex.tradable)
    tokens[symbol] = symbol === 'SOL' ? { mint: WSOL_MINT, decimals: SOL_DECIMALS } : { ...network.tokens![symbol]! };
  const symbolOf = new Map(Object.entries(tokens).map(([symbol, t]) => [t.mint, symbol]));
  const tradable = Object.keys(tokens).sort();
  return {
    name: 'Jupiter',
    exactOutput: false,
    tradable: () => tradable,
    decimals: (symbol) => tokens[symbol]!.decimals,
    quote(source: string, target: string, _direction: Direction, amount: bigint): Promise<VenueResult> {
      const key = `${source}|${target}|${amount}`;
      // eslint-disable-next-line no-restricted-syntax -- real time: how long an answer of Jupiter's is reused
      const now = Date.now();
      const kept = recent.get(key);
      if (kept && kept.until > now) return kept.answer;
      for (const [k, v] of recent) if (v.until <= now) recent.delete(k);
      const answer = ask(source, target, amount);
      if (cacheMs > 0) {
        recent.set(key, { until: now + cacheMs, answer });
        // A failure is not kept: the next caller asks again.
        answer.catch(() => recent.delete(key));
      }
      return answer;
    },
  };

  async function ask(source: string, target: string, amount: bigint): Promise<VenueResult> {
    const slot = await (await chains.for(network).rpc()).getSlot({ commitment: 'confirmed' }).send();
    const answer = await api.order({
      inputMint: tokens[source]!.mint,
      outputMint: tokens[target]!.mint,
      amount,
      slippageBps,
    });
    // Jupiter's 400 for a pair and amount we checked is its "no quote" ("Failed to get quotes").
    if (answer.kind === 'refused') return { kind: 'no-route' };
    const { order } = answer;
    if (BigInt(order.outAmount) === 0n) return { kind: 'insufficient-liquidity' };
    // priceImpact is in percentage points, negative for a loss (the deprecated priceImpactPct a ratio); a gain is 0.
    const impact = order.priceImpact ?? Number(order.priceImpactPct ?? 0) * 100;
    if (!Number.isFinite(impact))
      throw new ProviderAnswerInvalid('Jupiter /order: priceImpact is not a number', JSON.stringify(order));
    // A split route (steps of less than 100 %) is not a chain of hops: its steps are listed, its route is direct.
    const split = order.routePlan.some((step) => step.percent < 100);
    return {
      kind: 'quote',
      quote: {
        ...(split ? { route: [source, target] } : {}),
        hops: order.routePlan.map((step) => ({
          tokenIn: symbolOf.get(step.swapInfo.inputMint) ?? step.swapInfo.inputMint,
          tokenOut: symbolOf.get(step.swapInfo.outputMint) ?? step.swapInfo.outputMint,
          feeTier: null,
          pool: `${step.swapInfo.label} ${step.swapInfo.ammKey}`,
        })),
        amountIn: BigInt(order.inAmount),
        amountOut: BigInt(order.outAmount),
        priceImpactPpm: BigInt(Math.round(Math.max(0, -impact) * 10_000)),
        blockNumber: Number(slot),
      },
    };
  }
}

/** A venue for every network that names one (SOLANA's only with a Jupiter key). */
export function venuesOf(deps: {
  networks: NetworkRegistry;
  providers: ChainProviders;
  solanaChains: SolanaChains;
  blockCacheMs: number;
  slippageBps: number;
  jupiter?: JupiterSwapApi;
}): Map<string, Venue> {
  const venues = new Map<string, Venue>();
  for (const networkId of deps.networks.ids()) {
    const evm = deps.networks.get(networkId);
    if (evm?.dex) venues.set(networkId, uniswapVenue(evm, deps.providers, deps.blockCacheMs));
    const solana = deps.networks.solana(networkId);
    if (solana?.dex && deps.jupiter)
      venues.set(networkId, jupiterVenue(solana, deps.jupiter, deps.solanaChains, deps.slippageBps, deps.blockCacheMs));
  }
  return venues;
}
