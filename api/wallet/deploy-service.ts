import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity } from '../../db/entities';
import { ZeroAddress } from 'ethers';
import { coinOf, type EvmNetwork, type NetworkRegistry } from '../../platform/networks';
import { parseAmount } from '../../platform/money';
import {
  buildDeployOperation,
  counterfactualAddress,
  isDeployed,
  type ChainProviders,
} from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { deployWorkflow } from '../../workflows/deploy';
import { deployWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { evmAddress } from '../common/addresses';
import type { CustodyKeys } from '../common/custody';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import type { Screening } from '../compliance/screening';
import {
  executeSingleOperation,
  findOperation,
  preparedSlots,
  recordPreparedOperation,
  type SignedSlot,
  progressOf,
} from '../common/signed-operation';
import type { Passkeys } from '../passkeys/service';
import { clock } from '../../platform/clock';

export interface DeploymentServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  taskQueue: string;
  prepareTtlSeconds: number;
  passkeys: Passkeys;
  custody: CustodyKeys;
  gas: GasSponsorships;
  /** The first owner key is screened as a transfer recipient is, before the service pays the deployment's gas. */
  screening: Pick<Screening, 'assertNotSanctioned'>;
  /** How long the owner's grant to the transfer key lasts, and its daily caps per token symbol (whole tokens). */
  transferSigner: { validitySeconds: number; dailyCaps: Record<string, string> };
}

/**
 * Smart-account deployment: prepare the deploy user operation (the account's counterfactual address, the owner key,
 * and the service's transfer key it authorizes), execute it once signed (workflow deploy-<userId>-<networkId>-<jobId>).
 */
export class DeploymentService {
  constructor(private readonly deps: DeploymentServiceDeps) {}

  /**
   * The deploy operation to sign. The first prepare names the owner key of every account of the user, which then only
   * an owner-signed key rotation or a recovery changes: it needs the route's step-up (`approveFirstOwner`: the PIN, a
   * passkey or an identity check naming that key), or a stolen access token would make its holder the owner.
   */
  async prepare(
    userId: string,
    networkId: string,
    ownerAddress: string | undefined,
    approveFirstOwner: () => Promise<unknown>,
  ) {
    const network = this.networkOf(networkId);
    const em = this.deps.orm.em.fork();
    const known = await em.find(SmartAccountEntity, { userId }, { limit: 1 });
    const owner = ownerAddress ? evmAddress(ownerAddress) : known[0]?.ownerAddress;
    if (!owner)
      throw problems.unprocessable(
        'owner-address-required',
        'Send ownerAddress (the address of your wallet key) on the first prepare',
      );
    if (known[0] && known[0].ownerAddress !== owner)
      throw problems.conflict('owner-mismatch', 'Your accounts are owned by another key; rotate keys instead');
    const provider = this.deps.providers.for(network);
    const address = await counterfactualAddress(provider, network, owner);
    const existing = await em.findOne(SmartAccountEntity, { userId, networkId: network.networkId });
    if (existing?.status === 'deployed' || (await isDeployed(provider, address))) {
      throw problems.conflict(
        'account-already-deployed',
        `The account ${address} already exists on ${network.networkId}`,
      );
    }
    if (!known[0]) {
      await approveFirstOwner();
      await this.deps.screening.assertNotSanctioned(userId, network.networkId, owner, { context: 'deploy' });
    }
    const grant = this.transferSignerGrant(network, await this.deps.custody.transferKeyAddress(userId));
    const jobId = `dep_${randomUUID()}`;
    const expiresAt = new Date(clock.now() + this.deps.prepareTtlSeconds * 1000);
    const [operation] = await this.deps.gas.sponsor(
      userId,
      jobId,
      [
        {
          networkId: network.networkId,
          operation: await buildDeployOperation(provider, this.deps.providers.bundler(network), network, owner, grant),
        },
      ],
      sponsoredUntil(expiresAt),
    );
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    if (!existing)
      em.create(SmartAccountEntity, {
        userId,
        networkId: network.networkId,
        address,
        ownerAddress: owner,
        status: 'counterfactual',
      });
    recordPreparedOperation(em, {
      operationId: jobId,
      kind: 'deploy',
      userId,
      networkId: network.networkId,
      accountAddress: address,
      ownerAddress: owner,
      userOperation: operation!,
      userOpHash,
      expiresAt,
    });
    await em.flush();
    return {
      description:
        `Deploy smart account ${address} on ${network.networkId}, authorizing the service key ${grant.signer} for PIN-confirmed transfers only, ` +
        `until ${new Date(grant.validUntil * 1000).toISOString()}, at most ${grant.caps.map((c) => c.text).join(', ')} a day; gas paid by the service`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: jobId,
        owner,
        network,
        userOpHash,
        domain: {
          accountAddress: address,
          transferSigner: grant.signer,
          transferSignerValidUntil: grant.validUntil,
          transferSignerDailyCaps: Object.fromEntries(grant.caps.map((c) => [c.symbol, c.dailyCap.toString()])),
          paymaster: network.paymaster,
        },
      }),
    };
  }

  async execute(userId: string, networkId: string, items: SignedSlot[]): Promise<string> {
    const network = this.networkOf(networkId);
    const { orm, temporal, taskQueue } = this.deps;
    const job = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind: 'deploy',
      what: 'deployment',
      networkId: network.networkId,
      start: ({ operationId: jobId }) =>
        temporal.workflow.start(deployWorkflow, {
          workflowId: deployWorkflowId(userId, network.networkId, jobId),
          taskQueue,
          args: [{ jobId, userId, networkId: network.networkId }],
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
        }),
    });
    return job.operationId;
  }

  async job(userId: string, jobId: string) {
    const job = await findOperation(this.deps.orm, userId, 'deploy', jobId);
    if (!job) throw problems.notFound(`Deploy job ${jobId}`);
    return {
      jobId: job.operationId,
      networkId: job.networkId,
      status: job.status,
      accountAddress: job.accountAddress,
      txHash: job.txHash ?? null,
      error: job.error ?? null,
      ...progressOf(job),
      updatedAt: job.updatedAt.toISOString(),
    };
  }

  /** The grant the deploy operation gives the transfer key: an expiry, and a daily cap for the coin and each token. */
  private transferSignerGrant(network: EvmNetwork, signer: string) {
    const { validitySeconds, dailyCaps } = this.deps.transferSigner;
    const coin = coinOf(network);
    const assets = [
      { symbol: coin.symbol, token: ZeroAddress, decimals: coin.decimals },
      ...Object.entries(network.tokens ?? {}).map(([symbol, t]) => ({
        symbol,
        token: t.address,
        decimals: t.decimals,
      })),
    ];
    // A token without a cap (or a cap of 0) is left out: the transfer key cannot send it at all.
    const caps = assets
      .filter((a) => /[1-9]/.test(dailyCaps[a.symbol] ?? ''))
      .map((a) => ({
        ...a,
        dailyCap: parseAmount(dailyCaps[a.symbol]!, a.decimals, a.symbol),
        text: `${dailyCaps[a.symbol]} ${a.symbol}`,
      }));
    return { signer, validUntil: Math.floor(clock.now() / 1000) + validitySeconds, caps };
  }

  private networkOf(networkId: string): EvmNetwork {
    const { networks } = this.deps;
    const network = networks.get(networkId);
    if (!network && networks.solana(networkId)) {
      throw problems.conflict(
        'no-smart-accounts',
        `${networkId} has no smart accounts here; open your wallet with POST /v1/wallet/networks/${networkId}/wallet`,
      );
    }
    if (!network) throw problems.unknownNetwork(networkId, networks.ids());
    return network;
  }
}
