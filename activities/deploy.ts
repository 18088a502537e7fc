import { Wallet } from 'ethers';
import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { DeployJobEntity, SmartAccountEntity } from '../db/entities';
import type { NetworkRegistry, EvmNetwork } from '../platform/networks';
import { ChainFailure } from '../workflows/messages';
import { Bundler, UserOperationRejected } from './chain/bundler';
import { deserializeOperation, isDeployed, type ChainProviders } from './chain/smart-account';

export interface DeployActivityDeps { orm: Orm; networks: NetworkRegistry; providers: ChainProviders; bundlerPrivateKey: string }

const RECEIPT_TIMEOUT_MS = 90_000;

/**
 * Chain side of smart-account deployment. submitDeployment is safe to retry at any point: it records the
 * transaction hash before broadcasting, looks for that transaction first, and treats code at the account address
 * as done. The EntryPoint nonce inside the signed operation makes a second execution impossible anyway.
 */
export const createDeployActivities = ({ orm, networks, providers, bundlerPrivateKey }: DeployActivityDeps) => {
  const bundlers = new Map<string, Bundler>();
  const networkOf = (networkId: string): EvmNetwork => {
    const network = networks.get(networkId);
    if (!network) throw ApplicationFailure.create({ type: ChainFailure.UnknownNetwork, message: `network ${networkId} is not configured`, nonRetryable: true });
    return network;
  };
  const bundlerFor = (network: EvmNetwork): Bundler => {
    let bundler = bundlers.get(network.networkId);
    if (!bundler) {
      bundler = new Bundler(new Wallet(bundlerPrivateKey, providers.for(network)), network.entryPoint);
      bundlers.set(network.networkId, bundler);
    }
    return bundler;
  };
  const beneficiary = new Wallet(bundlerPrivateKey).address;

  return {
    async submitDeployment({ jobId }: { jobId: string }): Promise<{ txHash: string | null }> {
      const em = orm.em.fork();
      const job = await em.findOneOrFail(DeployJobEntity, { jobId });
      const network = networkOf(job.networkId);
      const bundler = bundlerFor(network);
      if (job.txHash && (await bundler.receiptOf(job.txHash, 5_000))) {
        const outcome = await bundler.waitForOutcome(job.txHash);
        if (!outcome.success) throw ApplicationFailure.create({ type: ChainFailure.UserOperationFailed, message: 'the deployment operation reverted', nonRetryable: true });
        return { txHash: job.txHash };
      }
      if (await isDeployed(providers.for(network), job.accountAddress)) return { txHash: job.txHash ?? null };
      const operation = deserializeOperation(job.userOperation);
      try {
        await bundler.simulate(operation, beneficiary);
      } catch (error) {
        if (error instanceof UserOperationRejected) {
          throw ApplicationFailure.create({ type: ChainFailure.UserOperationRejected, message: error.message, nonRetryable: true });
        }
        throw error;
      }
      const { raw, hash } = await bundler.sign(operation, beneficiary);
      job.txHash = hash;
      await em.flush(); // recorded before it can exist on chain
      await bundler.broadcast(raw);
      const outcome = await bundler.waitForOutcome(hash, RECEIPT_TIMEOUT_MS);
      if (!outcome.success) throw ApplicationFailure.create({ type: ChainFailure.UserOperationFailed, message: 'the deployment operation reverted', nonRetryable: true });
      return { txHash: hash };
    },

    async completeDeployment({ jobId, txHash }: { jobId: string; txHash: string | null }): Promise<void> {
      await orm.em.fork().transactional(async (em) => {
        const job = await em.findOneOrFail(DeployJobEntity, { jobId });
        job.status = 'completed';
        job.txHash = txHash ?? job.txHash ?? null;
        const account = await em.findOneOrFail(SmartAccountEntity, { userId: job.userId, networkId: job.networkId });
        Object.assign(account, { status: 'deployed', deployTxHash: job.txHash, deployedAt: account.deployedAt ?? new Date() });
      });
    },

    async failDeployment({ jobId, error }: { jobId: string; error: string }): Promise<void> {
      const em = orm.em.fork();
      const job = await em.findOneOrFail(DeployJobEntity, { jobId });
      Object.assign(job, { status: 'failed', error });
      await em.flush();
    },
  };
};

export type DeployActivities = ReturnType<typeof createDeployActivities>;
