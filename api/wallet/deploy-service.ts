import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { SmartAccountEntity } from '../../db/entities';
import type { EvmNetwork, NetworkRegistry } from '../../platform/networks';
import { buildDeployOperation, counterfactualAddress, isDeployed, type ChainProviders } from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { deployWorkflow } from '../../workflows/deploy';
import { deployWorkflowId } from '../../workflows/messages';
import { problems } from '../http/problems';
import { evmAddress } from '../common/addresses';
import type { CustodyKeys } from '../common/custody';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import { executeSingleOperation, findOperation, preparedSlots, recordPreparedOperation, type SignedSlot } from '../common/signed-operation';
import type { Passkeys } from '../passkeys/service';

export interface DeploymentServiceDeps {
  orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; taskQueue: string; prepareTtlSeconds: number;
  passkeys: Passkeys; custody: CustodyKeys; gas: GasSponsorships;
}

/**
 * Smart-account deployment: prepare the deploy user operation (the account's counterfactual address, the owner key,
 * and the service's transfer key it authorizes), execute it once signed (workflow deploy-<userId>-<networkId>-<jobId>).
 */
export class DeploymentService {
  constructor(private readonly deps: DeploymentServiceDeps) {}

  async prepare(userId: string, networkId: string, ownerAddress?: string) {
    const network = this.networkOf(networkId);
    const em = this.deps.orm.em.fork();
    const known = await em.find(SmartAccountEntity, { userId }, { limit: 1 });
    const owner = ownerAddress ? evmAddress(ownerAddress) : known[0]?.ownerAddress;
    if (!owner) throw problems.unprocessable('owner-address-required', 'Send ownerAddress (the address of your wallet key) on the first prepare');
    if (known[0] && known[0].ownerAddress !== owner) throw problems.conflict('owner-mismatch', 'Your accounts are owned by another key; rotate keys instead');
    const provider = this.deps.providers.for(network);
    const address = await counterfactualAddress(provider, network, owner);
    const existing = await em.findOne(SmartAccountEntity, { userId, networkId: network.networkId });
    if (existing?.status === 'deployed' || (await isDeployed(provider, address))) {
      throw problems.conflict('account-already-deployed', `The account ${address} already exists on ${network.networkId}`);
    }
    const transferSigner = await this.deps.custody.transferKeyAddress(userId);
    const jobId = `dep_${randomUUID()}`;
    const expiresAt = new Date(Date.now() + this.deps.prepareTtlSeconds * 1000);
    const [operation] = await this.deps.gas.sponsor(userId, jobId, [{
      networkId: network.networkId, operation: await buildDeployOperation(provider, network, owner, transferSigner),
    }], sponsoredUntil(expiresAt));
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    if (!existing) em.create(SmartAccountEntity, { userId, networkId: network.networkId, address, ownerAddress: owner, status: 'counterfactual' });
    recordPreparedOperation(em, {
      operationId: jobId, kind: 'deploy', userId, networkId: network.networkId, accountAddress: address, ownerAddress: owner,
      userOperation: operation!, userOpHash, expiresAt,
    });
    await em.flush();
    return {
      description: `Deploy smart account ${address} on ${network.networkId}, authorizing the service key ${transferSigner} for PIN-confirmed transfers only; gas paid by the service`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: jobId, owner, network, domain: { accountAddress: address, transferSigner, paymaster: network.paymaster }, userOpHash,
      }),
    };
  }

  async execute(userId: string, networkId: string, items: SignedSlot[]): Promise<string> {
    const network = this.networkOf(networkId);
    const { orm, temporal, taskQueue } = this.deps;
    const job = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind: 'deploy', what: 'deployment', networkId: network.networkId,
      start: ({ operationId: jobId }) => temporal.workflow.start(deployWorkflow, {
        workflowId: deployWorkflowId(userId, network.networkId, jobId), taskQueue,
        args: [{ jobId, userId, networkId: network.networkId }], workflowIdReusePolicy: 'REJECT_DUPLICATE',
      }),
    });
    return job.operationId;
  }

  async job(userId: string, jobId: string) {
    const job = await findOperation(this.deps.orm, userId, 'deploy', jobId);
    if (!job) throw problems.notFound(`Deploy job ${jobId}`);
    return {
      jobId: job.operationId, networkId: job.networkId, status: job.status, accountAddress: job.accountAddress,
      txHash: job.txHash ?? null, error: job.error ?? null, updatedAt: job.updatedAt.toISOString(),
    };
  }

  private networkOf(networkId: string): EvmNetwork {
    const { networks } = this.deps;
    const network = networks.get(networkId);
    if (!network && networks.solana(networkId)) {
      throw problems.conflict('no-smart-accounts', `${networkId} has no smart accounts here; open your wallet with POST /v1/wallet/networks/${networkId}/wallet`);
    }
    if (!network) throw problems.unknownNetwork(networkId, networks.ids());
    return network;
  }
}
