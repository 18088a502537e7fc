import { Type, type Static } from '@sinclair/typebox';
import Ajv from 'ajv';

/**
 * The one network registry: maps the ids used on the wire (networkId in paths, the transfer enum) to chain id,
 * RPC URL, contract addresses and tokens (EVM), or RPC URL and token mints (Solana). Configured by NETWORKS (JSON); the embedded stack writes it for its local chains.
 */
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const Dti = Type.String({
  pattern: '^[0-9A-Z]{9}$',
  description:
    "the token's Digital Token Identifier (ISO 24165, DTI Foundation registry): how Travel Rule messages name it",
});

const Symbol_ = Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' });
/**
 * Where quotes and swaps go on an EVM network: Uniswap v3's deployment there (Uniswap's published addresses on
 * Ethereum and Polygon; the local chains' own deployment of the same artifacts).
 */
export const UniswapV3Schema = Type.Object(
  {
    kind: Type.Literal('uniswap-v3'),
    factory: Address,
    quoterV2: Address,
    swapRouter: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: 'SwapRouter (v1): the one contract swaps call',
    }),
    wrappedNative: Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: "the wrapped coin (WETH9, WPOL): what routes trade for the network's coin",
    }),
    feeTiers: Type.Array(Type.Union([Type.Literal(100), Type.Literal(500), Type.Literal(3000), Type.Literal(10000)]), {
      minItems: 1,
      uniqueItems: true,
      description:
        'the fee tiers a route may use, in hundredths of a basis point (100 only where the factory enabled it)',
    }),
    intermediaries: Type.Array(Symbol_, {
      maxItems: 4,
      uniqueItems: true,
      description:
        'tradable tokens a two-hop route may pass through (at most 4: each adds up to 16 routes a quote weighs)',
    }),
    tradable: Type.Array(Symbol_, {
      minItems: 2,
      uniqueItems: true,
      description: "the symbols a swap may sell or buy: the network's coin and tokens of `tokens`",
    }),
  },
  { additionalProperties: false },
);

/** EVM blocks (the including one counted) before a transfer is finalized, when a network does not say. */
/** NETWORKS.<id>.transferSendLocal, EVM and Solana alike (transferWorkflowVersionOn). */
const TransferSendLocal = Type.Optional(
  Type.Boolean({
    description:
      "whether a transfer's send runs as a local activity in the worker that runs its workflow (transfer workflow version 5: one workflow task and no activity task per transfer, about a third less of the Temporal server's and the worker's CPU) instead of an activity on the chains' task queue (version 4). The send holds one of the worker's workflow task slots until the chain includes it, so only for chains that include within a few seconds (layer 2s, the local chains); default false",
  }),
);
export const DEFAULT_CONFIRMATIONS = 12;
/**
 * The transfer workflow's version a new transfer on `network` starts with: `highest` (TRANSFER_WORKFLOW_VERSION), but
 * not past version 4 (the send as an activity on the chains' queue) unless the network says its sends run locally.
 */
export const transferWorkflowVersionOn = (network: Network | undefined, highest: number): number =>
  network?.transferSendLocal ? highest : Math.min(highest, 4);
export const confirmationsOf = (network: EvmNetwork): number => network.confirmations ?? DEFAULT_CONFIRMATIONS;
export const EvmNetworkSchema = Type.Object({
  kind: Type.Literal('evm'),
  chainId: Type.Integer({ minimum: 1 }),
  rpcUrl: Type.String({ pattern: '^https?://' }),
  entryPoint: Address,
  bundlerUrl: Type.String({
    pattern: '^https?://',
    description:
      "the ERC-4337 bundler's JSON-RPC endpoint (ERC-7769) for this chain and EntryPoint: a provider's (Pimlico, Alchemy, Candide) or a self-hosted one",
  }),
  accountFactory: Address,
  paymaster: Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'our WalletPaymaster: pays for the user operations the service sponsors',
  }),
  didRegistry: Address,
  recoverableImplementation: Type.Optional(
    Type.String({
      pattern: '^0x[0-9a-fA-F]{40}$',
      description:
        'WalletAccountRecoverable: what accounts upgrade to for owner recovery (none: no recovery on this network)',
    }),
  ),
  nativeSymbol: Type.Optional(
    Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$', description: "the chain's coin, e.g. ETH, POL (default ETH)" }),
  ),
  coinDti: Type.Optional(
    Type.String({
      pattern: '^[0-9A-Z]{9}$',
      description:
        "the DTI of this chain's coin, how Travel Rule messages name it (Ethereum mainnet's Ether and Polygon's coin are known; a layer 2's Ether is not mainnet Ether); without one a transfer of the coin under the Travel Rule is refused",
    }),
  ),
  inclusionWatchMs: Type.Optional(
    Type.Integer({
      minimum: 10,
      maximum: 60_000,
      description:
        "how often each worker process reads the chain's head (one eth_blockNumber call) while a user operation waits to be included (default 250): about a tenth of the chain's block time; a local chain that mines at once, 50",
    }),
  ),
  transferSendLocal: TransferSendLocal,
  confirmations: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: `blocks, the including one counted, after which a transfer is finalized (default ${DEFAULT_CONFIRMATIONS})`,
    }),
  ),
  tokens: Type.Optional(
    Type.Record(
      Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' }),
      Type.Object({ address: Address, decimals: Type.Integer({ minimum: 0, maximum: 36 }), dti: Type.Optional(Dti) }),
    ),
  ),
  dex: Type.Optional(UniswapV3Schema),
});
const Base58Key = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' });
/** Where SOLANA quotes and swaps go: Jupiter's Swap API (JUPITER_API_URL, JUPITER_API_KEY). */
export const JupiterSchema = Type.Object(
  {
    kind: Type.Literal('jupiter'),
    tradable: Type.Array(Symbol_, {
      minItems: 2,
      uniqueItems: true,
      description: 'the symbols a swap may sell or buy: SOL and tokens of `tokens`',
    }),
    programs: Type.Array(Base58Key, {
      uniqueItems: true,
      description:
        'the programs a swap transaction Jupiter builds may call: one calling any other is refused before it is signed',
    }),
    aggregatorProgram: Type.Optional({
      ...Base58Key,
      description:
        "Jupiter's aggregator program (v6: JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4), one of `programs`: its instructions must be an ExactIn route whose slippage threshold, encoded in the instruction, keeps the quote's minimum",
    }),
  },
  { additionalProperties: false },
);
export const SolanaNetworkSchema = Type.Object({
  kind: Type.Literal('solana'),
  rpcUrl: Type.String({ pattern: '^https?://' }),
  tokens: Type.Optional(
    Type.Record(
      Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' }),
      Type.Object({ mint: Base58Key, decimals: Type.Integer({ minimum: 0, maximum: 18 }), dti: Type.Optional(Dti) }),
    ),
  ),
  transferSendLocal: TransferSendLocal,
  faucetUrl: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'development clusters only: funds each new wallet' }),
  ),
  dex: Type.Optional(JupiterSchema),
});
export const NetworksSchema = Type.Record(
  Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }),
  Type.Union([EvmNetworkSchema, SolanaNetworkSchema]),
);
export type EvmNetwork = Static<typeof EvmNetworkSchema> & { networkId: string };
export type SolanaNetwork = Static<typeof SolanaNetworkSchema> & { networkId: string };
export type Network = EvmNetwork | SolanaNetwork;
/** The coin every network pays its fees in. */
export const coinOf = (network: Network): { symbol: string; decimals: number } =>
  network.kind === 'solana' ? { symbol: 'SOL', decimals: 9 } : { symbol: network.nativeSymbol ?? 'ETH', decimals: 18 };

const validate = new Ajv({ allErrors: true }).compile(NetworksSchema);

export class NetworkRegistry {
  private constructor(private readonly networks: Map<string, Network>) {}

  static fromJson(json: string): NetworkRegistry {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new Error('NETWORKS is not valid JSON');
    }
    if (!validate(parsed)) {
      throw new Error(
        `NETWORKS is invalid: ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`,
      );
    }
    const entries = Object.entries(parsed as Static<typeof NetworksSchema>);
    for (const [networkId, network] of entries) {
      if (!network.dex) continue;
      const known = [
        network.kind === 'solana' ? 'SOL' : (network.nativeSymbol ?? 'ETH'),
        ...Object.keys(network.tokens ?? {}),
      ];
      for (const symbol of network.dex.tradable)
        if (!known.includes(symbol))
          throw new Error(
            `NETWORKS is invalid: ${networkId}.dex names ${symbol}, neither its coin nor one of its tokens (${known.join(', ')})`,
          );
      const addresses =
        network.kind === 'evm'
          ? [network.dex.wrappedNative, ...Object.values(network.tokens ?? {}).map((t) => t.address)]
          : Object.values(network.tokens ?? {}).map((t) => t.mint);
      if (new Set(addresses.map((a) => a.toLowerCase())).size !== addresses.length)
        throw new Error(
          `NETWORKS is invalid: ${networkId} names one contract twice among its tokens${network.kind === 'evm' ? ' and dex.wrappedNative' : ''}`,
        );
      if (
        network.dex.kind === 'jupiter' &&
        network.dex.aggregatorProgram &&
        !network.dex.programs.includes(network.dex.aggregatorProgram)
      )
        throw new Error(`NETWORKS is invalid: ${networkId}.dex.aggregatorProgram is not one of its programs`);
      if (network.dex.kind === 'uniswap-v3')
        for (const symbol of network.dex.intermediaries)
          if (!network.dex.tradable.includes(symbol))
            throw new Error(
              `NETWORKS is invalid: ${networkId}.dex.intermediaries names ${symbol}, not in its tradable`,
            );
    }
    return new NetworkRegistry(new Map(entries.map(([networkId, network]) => [networkId, { ...network, networkId }])));
  }

  /** An EVM network (smart accounts, DIDs, quotes); undefined for unknown ids and for other kinds. */
  get(networkId: string): EvmNetwork | undefined {
    const network = this.networks.get(networkId);
    return network?.kind === 'evm' ? network : undefined;
  }

  solana(networkId: string): SolanaNetwork | undefined {
    const network = this.networks.get(networkId);
    return network?.kind === 'solana' ? network : undefined;
  }

  any(networkId: string): Network | undefined {
    return this.networks.get(networkId);
  }

  ids(): string[] {
    return [...this.networks.keys()];
  }

  evmIds(): string[] {
    return [...this.networks.values()].filter((n) => n.kind === 'evm').map((n) => n.networkId);
  }
}
