import type { Orm } from '../db/orm';
import { DeployJobEntity, SmartAccountEntity } from '../db/entities';
import type { NetworkRegistry } from '../platform/networks';
import type { Bundlers } from '../integrations/evm/bundlers';
import { deserializeOperation, isDeployed, type ChainProviders } from '../integrations/evm/smart-account';
import { submitOnce } from './submit-once';

export interface DeployActivityDeps { orm: Orm; networks: NetworkRegistry; providers: ChainProviders; bundlers: Bundlers }

/** Chain and storage side of smart-account deployment; safe to retry at any point (see submitOnce). */
export const createDeployActivities = ({ orm, providers, bundlers }: DeployActivityDeps) => ({
  async submitDeployment({ jobId }: { jobId: string }): Promise<{ txHash: string | null }> {
    const em = orm.em.fork();
    const job = await em.findOneOrFail(DeployJobEntity, { jobId });
    const network = bundlers.network(job.networkId);
    return submitOnce({
      bundler: bundlers.for(job.networkId), beneficiary: bundlers.beneficiary, operation: deserializeOperation(job.userOperation),
      recordedTxHash: job.txHash,
      alreadyDone: () => isDeployed(providers.for(network), job.accountAddress),
      recordTxHash: async (hash) => { job.txHash = hash; await em.flush(); },
    });
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
});

export type DeployActivities = ReturnType<typeof createDeployActivities>;
