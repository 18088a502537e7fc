import { Interface } from 'ethers';
import type { Orm } from '../../db/orm';
import type { SmartAccount } from '../../db/entities';
import { HotStatement } from '../../db/sql';
import type { SessionCache } from './session-cache';
import { coinOf, type NetworkRegistry } from '../../platform/networks';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import type { SolanaChains } from '../../integrations/solana';
import { freshCall } from '../../integrations/evm/entry-point';

/** Parsed once: ethers parses a human-readable ABI on every `new Contract` given one. */
const ERC20 = new Interface(['function balanceOf(address) view returns (uint256)']);

const SMART_ACCOUNT = new HotStatement<{ address: string; status: SmartAccount['status'] }>(
  'holder-smart-account',
  'select address, status from smart_accounts where user_id = ? and network_id = ?',
);
const SOLANA_WALLET = new HotStatement<{ address: string }>(
  'holder-solana-wallet',
  'select address from solana_wallets where user_id = ?',
);

export interface Holder {
  networkId: string;
  kind: 'smart-account' | 'solana-wallet';
  address: string;
  deployed: boolean;
}
export interface Holding {
  token: string;
  decimals: number;
  baseUnits: bigint;
}

/** What a user holds on a network, read from the chain: their smart account (EVM) or their Solana wallet. */
export class Holdings {
  constructor(
    private readonly deps: {
      orm: Orm;
      networks: NetworkRegistry;
      providers: ChainProviders;
      solanaChains: SolanaChains;
      /** Keeps the holder rows per user while the database tells of no change (the api's; none in the worker). */
      cache?: SessionCache;
    },
  ) {}

  /**
   * The user's account on a network, read on every quote and balance request: kept in the process's cache while no
   * change of the user's accounts is told (smart_accounts and solana_wallets notify, migration
   * 20261126090000AccountNotifications), read with prepared SQL (db/sql.ts) otherwise.
   */
  async holderOf(userId: string, networkId: string): Promise<Holder | undefined> {
    const cache = this.deps.cache;
    return cache
      ? cache.through(userId, `holder:${networkId}`, () => this.readHolder(userId, networkId))
      : this.readHolder(userId, networkId);
  }

  private async readHolder(userId: string, networkId: string): Promise<Holder | undefined> {
    const network = this.deps.networks.any(networkId);
    if (!network) return undefined;
    if (network.kind === 'solana') {
      const address = (await SOLANA_WALLET.row(this.deps.orm.em, [userId]))?.address;
      return address ? { networkId, kind: 'solana-wallet', address, deployed: true } : undefined;
    }
    const account = await SMART_ACCOUNT.row(this.deps.orm.em, [userId, networkId]);
    return account
      ? { networkId, kind: 'smart-account', address: account.address, deployed: account.status === 'deployed' }
      : undefined;
  }

  /** The network's coin and tokens this service knows. */
  tokensOf(networkId: string): Array<{ token: string; decimals: number }> {
    const network = this.deps.networks.any(networkId);
    if (!network) return [];
    const coin = coinOf(network);
    return [
      { token: coin.symbol, decimals: coin.decimals },
      ...Object.entries(network.tokens ?? {}).map(([token, t]) => ({ token, decimals: t.decimals })),
    ];
  }

  /** The balance of one token at an address (0 for tokens the network does not list). */
  async balanceAt(networkId: string, address: string, symbol: string): Promise<bigint> {
    const network = this.deps.networks.any(networkId);
    if (!network) return 0n;
    if (network.kind === 'solana') {
      const chain = this.deps.solanaChains.for(network);
      return symbol === 'SOL' ? chain.balance(address) : chain.tokenBalance(address, symbol);
    }
    const provider = this.deps.providers.for(network);
    // From the node itself, never ethers' 250 ms shared answer: a transfer's balance check reads what is in flight
    // first, then the chain, and a balance older than that read could miss one that landed in between (counted in
    // neither: an overdraft let through).
    if (symbol === coinOf(network).symbol)
      return BigInt((await provider.send('eth_getBalance', [address, 'latest'])) as string);
    const token = network.tokens?.[symbol];
    if (!token) return 0n;
    return (await freshCall(provider, token.address, ERC20, 'balanceOf', [address])) as bigint;
  }

  /** The user's balance of a token on a network (0 without an account or wallet there). */
  async balanceOf(userId: string, networkId: string, symbol: string): Promise<bigint> {
    const holder = await this.holderOf(userId, networkId);
    return holder ? this.balanceAt(networkId, holder.address, symbol) : 0n;
  }

  async all(networkId: string, address: string): Promise<Holding[]> {
    return Promise.all(
      this.tokensOf(networkId).map(async ({ token, decimals }) => ({
        token,
        decimals,
        baseUnits: await this.balanceAt(networkId, address, token),
      })),
    );
  }
}
