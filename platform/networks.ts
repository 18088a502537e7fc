import { Type, type Static } from '@sinclair/typebox';
import Ajv from 'ajv';

/**
 * The one network registry: maps the ids used on the wire (networkId in paths, the transfer enum) to chain id,
 * RPC URL and contract addresses. Configured by NETWORKS (JSON); the embedded stack writes it for its local chains.
 */
const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
export const EvmNetworkSchema = Type.Object({
  kind: Type.Literal('evm'),
  chainId: Type.Integer({ minimum: 1 }),
  rpcUrl: Type.String({ pattern: '^https?://' }),
  entryPoint: Address,
  accountFactory: Address,
  didRegistry: Address,
  nativeSymbol: Type.Optional(Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$', description: 'the chain\'s coin, e.g. ETH, POL (default ETH)' })),
  tokens: Type.Optional(Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' }), Type.Object({ address: Address, decimals: Type.Integer({ minimum: 0, maximum: 36 }) }))),
});
export const NetworksSchema = Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }), EvmNetworkSchema);
export type EvmNetwork = Static<typeof EvmNetworkSchema> & { networkId: string };

const validate = new Ajv({ allErrors: true }).compile(NetworksSchema);

export class NetworkRegistry {
  private constructor(private readonly networks: Map<string, EvmNetwork>) {}

  static fromJson(json: string): NetworkRegistry {
    let parsed: unknown;
    try { parsed = JSON.parse(json); } catch { throw new Error('NETWORKS is not valid JSON'); }
    if (!validate(parsed)) {
      throw new Error(`NETWORKS is invalid: ${(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`);
    }
    const entries = Object.entries(parsed as Static<typeof NetworksSchema>);
    return new NetworkRegistry(new Map(entries.map(([networkId, network]) => [networkId, { ...network, networkId }])));
  }

  get(networkId: string): EvmNetwork | undefined {
    return this.networks.get(networkId);
  }

  ids(): string[] {
    return [...this.networks.keys()];
  }
}
