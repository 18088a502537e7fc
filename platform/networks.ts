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

/** EVM blocks (the including one counted) before a transfer is finalized, when a network does not say. */
export const DEFAULT_CONFIRMATIONS = 12;
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
});
const Base58Key = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' });
export const SolanaNetworkSchema = Type.Object({
  kind: Type.Literal('solana'),
  rpcUrl: Type.String({ pattern: '^https?://' }),
  tokens: Type.Optional(
    Type.Record(
      Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' }),
      Type.Object({ mint: Base58Key, decimals: Type.Integer({ minimum: 0, maximum: 18 }), dti: Type.Optional(Dti) }),
    ),
  ),
  faucetUrl: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'development clusters only: funds each new wallet' }),
  ),
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
