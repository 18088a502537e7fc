import type { NetworkRegistry } from '../../platform/networks';
import type { CustodyKeys } from '../common/custody';
import { formatMoney } from '../../platform/money';
import type { Holdings } from '../common/holdings';
import { WalletView } from './network-wallet-schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { NetworkParams } from './schemas';

export interface NetworkWalletRouteDeps {
  networks: NetworkRegistry;
  holdings: Holdings;
  custody: CustodyKeys;
}

const TAGS = ['Wallet'];

/** The user's holder on each network (smart account or Solana wallet) with its on-chain balances; opening a Solana wallet. */
export function networkWalletRoutes({ networks, holdings, custody }: NetworkWalletRouteDeps): RouteSpec[] {
  const unknown = (networkId: string) => problems.unknownNetwork(networkId, networks.ids());
  const view = async (holder: NonNullable<Awaited<ReturnType<Holdings['holderOf']>>>) => ({
    ...holder,
    balances: (await holdings.all(holder.networkId, holder.address)).map((h) => ({
      token: h.token,
      amount: formatMoney(h.baseUnits, h.decimals, h.token),
      baseUnits: h.baseUnits.toString(),
      decimals: h.decimals,
    })),
  });

  return [
    defineRoute({
      method: 'get',
      path: '/v1/wallet/networks/:networkId/wallet',
      operationId: 'getNetworkWallet',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Your address on a network and its balances, read from the chain',
      description:
        'On an EVM network the address is the smart account, known from the first deploy prepare there: ' +
        '`deployed` is false until the deployment lands, and funds can be received before then. Balances are of ' +
        'the network coin and the tokens configured for it, read from the chain on every call. With no account ' +
        'or wallet there yet the answer is 404, whose detail says how to get one (deploy on EVM, POST to this ' +
        'path on SOLANA).',
      params: NetworkParams,
      responses: {
        200: { description: 'Address and balances', schema: WalletView },
        404: { description: 'Unknown network, or no account or wallet there yet' },
      },
      handler: async ({ params, user }) => {
        if (!networks.any(params.networkId)) throw unknown(params.networkId);
        const holder = await holdings.holderOf(user.userId, params.networkId);
        if (!holder) {
          const how = networks.solana(params.networkId)
            ? `open it with POST /v1/wallet/networks/${params.networkId}/wallet`
            : `deploy it with /v1/wallet/networks/${params.networkId}/deploy`;
          throw problems.notFound(`Your wallet on ${params.networkId} (${how})`);
        }
        return { status: 200, body: await view(holder) };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/wallet',
      operationId: 'openNetworkWallet',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Open your wallet on SOLANA (a key the service holds for you); answers the existing one when already open',
      description: 'On development clusters (a network with faucetUrl) the new wallet is funded by the faucet.',
      params: NetworkParams,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Wallet opened', schema: WalletView },
        200: { description: 'Already open', schema: WalletView },
        404: { description: 'Unknown network' },
        409: { description: 'An EVM network: accounts there are deployed smart accounts' },
      },
      handler: async ({ params, user }) => {
        const network = networks.any(params.networkId);
        if (!network) throw unknown(params.networkId);
        if (network.kind !== 'solana') {
          throw problems.conflict(
            'smart-account-network',
            `Accounts on ${network.networkId} are smart accounts: deploy one with /v1/wallet/networks/${network.networkId}/deploy`,
          );
        }
        // The worker creates the key (and, on a development cluster, has the faucet fund it).
        const { address, created } = await custody.openSolanaWallet(user.userId, network.networkId);
        return {
          status: created ? 201 : 200,
          body: await view({ networkId: network.networkId, kind: 'solana-wallet', address, deployed: true }),
        };
      },
    }),
  ];
}
