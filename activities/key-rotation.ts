import { Contract, type InterfaceAbi } from 'ethers';
import type { Orm } from '../db/orm';
import { KeyRotationNetworkEntity, KeyRotationTaskEntity, SmartAccountEntity } from '../db/entities';
import { loadArtifact } from '../contracts/build';
import type { Bundlers } from '../integrations/evm/bundlers';
import { deserializeOperation, type ChainProviders } from '../integrations/evm/smart-account';
import { merkleSignature } from '../integrations/evm/user-operation';
import { submitOnce } from './submit-once';
import type { GasSponsor } from './gas-sponsorship';

export interface KeyRotationActivityDeps { orm: Orm; providers: ChainProviders; bundlers: Bundlers; gasSponsor: GasSponsor }

/** Chain and storage side of key rotation; submitNetworkRotation is safe to retry at any point (see submitOnce). */
export const createKeyRotationActivities = ({ orm, providers, bundlers, gasSponsor }: KeyRotationActivityDeps) => ({
  async submitNetworkRotation({ taskId, networkId }: { taskId: string; networkId: string }): Promise<{ txHash: string | null }> {
    const em = orm.em.fork();
    const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId });
    const row = await em.findOneOrFail(KeyRotationNetworkEntity, { taskId, networkId });
    const network = bundlers.network(networkId);
    const account = new Contract(row.accountAddress, loadArtifact('WalletAccount').abi as InterfaceAbi, providers.for(network));
    const operation = { ...deserializeOperation(row.userOperation), signature: merkleSignature(task.root, row.proof, task.rootSignature!) };
    return submitOnce({
      bundler: bundlers.for(networkId), beneficiary: bundlers.beneficiary, operation, recordedTxHash: row.txHash,
      alreadyDone: async () => (await account.getFunction('owner')()) === task.newOwnerAddress,
      recordTxHash: async (hash) => { row.txHash = hash; await em.flush(); },
      settle: (outcome) => gasSponsor.settle(outcome),
    });
  },

  async recordNetworkRotation(input: {
    taskId: string; networkId: string; status: 'processing' | 'completed' | 'failed'; txHash?: string | null; error?: string; retryable?: boolean;
  }): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(KeyRotationNetworkEntity, { taskId: input.taskId, networkId: input.networkId });
      Object.assign(row, {
        status: input.status, txHash: input.txHash ?? row.txHash ?? null, error: input.error ?? null, retryable: input.retryable ?? false,
      });
      if (input.status === 'completed') {
        const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId: input.taskId });
        const account = await em.findOneOrFail(SmartAccountEntity, { userId: task.userId, networkId: input.networkId });
        account.ownerAddress = task.newOwnerAddress;
      }
    });
  },

  async recordKeyRotationStatus({ taskId, status }: { taskId: string; status: 'completed' | 'partial_failure' }): Promise<void> {
    await orm.em.fork().nativeUpdate(KeyRotationTaskEntity, { taskId }, { status });
  },
});

export type KeyRotationActivities = ReturnType<typeof createKeyRotationActivities>;
