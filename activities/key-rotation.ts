import { confirmationsOf } from '../platform/networks';
import { Contract } from 'ethers';
import type { Orm } from '../db/orm';
import { KeyRotationNetworkEntity, KeyRotationTaskEntity, SmartAccountEntity } from '../db/entities';
import type { Bundlers } from '../integrations/evm/bundlers';
import { accountAbi, deserializeOperation, type ChainProviders } from '../integrations/evm/smart-account';
import { merkleSignature } from '../integrations/evm/user-operation';
import { submitOnce } from './submit-once';
import type { GasSponsor } from './gas-sponsorship';
import { appendEvent } from '../db/events';
import type { SignedSubmission } from '../workflows/messages';

export interface KeyRotationActivityDeps {
  orm: Orm;
  providers: ChainProviders;
  bundlers: Bundlers;
  gasSponsor: GasSponsor;
}

/** Chain and storage side of key rotation; submitNetworkRotation is safe to retry at any point (see submitOnce). */
export const createKeyRotationActivities = ({ orm, providers, bundlers, gasSponsor }: KeyRotationActivityDeps) => ({
  async submitNetworkRotation({ taskId, networkId }: { taskId: string; networkId: string }): Promise<SignedSubmission> {
    const em = orm.em.fork();
    const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId });
    const row = await em.findOneOrFail(KeyRotationNetworkEntity, { taskId, networkId });
    const network = bundlers.network(networkId);
    const account = new Contract(row.accountAddress, accountAbi(), providers.for(network));
    const operation = {
      ...deserializeOperation(row.userOperation),
      signature: merkleSignature(task.root, row.proof, task.rootSignature!),
    };
    const submitted = await submitOnce({
      networkId,
      bundler: bundlers.for(networkId),
      entryPoint: bundlers.entryPoint(networkId),
      inclusion: bundlers.inclusion(networkId),
      operation,
      userOpHash: row.userOpHash,
      // The userOpHash was stored when the operation was prepared: nothing more to record before sending.
      recordSubmitted: async () => undefined,
      alreadyDone: async () => (await account.getFunction('owner')()) === task.newOwnerAddress,
      settle: (outcome) => gasSponsor.settle(outcome),
      observer: bundlers.observer,
      // A rotation is done once final: a reorg before then would give the account back to the old owner.
      finalAfter: confirmationsOf(network),
      // A later rotation of this account on the same nonce (the owner rotated a stalled network again) took its place.
      supersededBy: async () => {
        const later = await em.find(
          KeyRotationNetworkEntity,
          {
            networkId,
            accountAddress: row.accountAddress,
            id: { $gt: row.id },
            status: { $in: ['processing', 'stalled', 'completed'] },
          },
          { orderBy: { id: 'asc' }, disableIdentityMap: true },
        );
        return later.find((other) => other.userOperation.nonce === row.userOperation.nonce)?.taskId ?? null;
      },
    });
    if ('stalled' in submitted) return { stalled: submitted.stalled };
    if ('replacedBy' in submitted) return { replacedBy: submitted.replacedBy };
    if (!submitted.ran) return { txHash: null };
    row.txHash = submitted.receipt.txHash;
    await em.flush();
    return { txHash: submitted.receipt.txHash };
  },

  async recordNetworkRotation(input: {
    taskId: string;
    networkId: string;
    status: 'processing' | 'completed' | 'failed';
    txHash?: string | null;
    error?: string;
    retryable?: boolean;
  }): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(KeyRotationNetworkEntity, {
        taskId: input.taskId,
        networkId: input.networkId,
      });
      if (row.status !== input.status && input.status !== 'processing') {
        const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId: input.taskId });
        const subject = { taskId: input.taskId, networkId: input.networkId };
        await appendEvent(
          em,
          input.status === 'completed'
            ? {
                type: 'key_rotation.network_completed',
                resourceId: input.taskId,
                userId: task.userId,
                data: { ...subject, txHash: input.txHash ?? row.txHash ?? '' },
              }
            : {
                type: 'key_rotation.network_failed',
                resourceId: input.taskId,
                userId: task.userId,
                data: { ...subject, error: input.error ?? 'failed', retryable: input.retryable ?? false },
              },
        );
      }
      Object.assign(row, {
        status: input.status,
        txHash: input.txHash ?? row.txHash ?? null,
        error: input.error ?? null,
        retryable: input.retryable ?? false,
      });
      if (input.status === 'completed') {
        const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId: input.taskId });
        const account = await em.findOneOrFail(SmartAccountEntity, { userId: task.userId, networkId: input.networkId });
        account.ownerAddress = task.newOwnerAddress;
      }
    });
  },

  /** Records a stalled network (the first time: key_rotation.network_stalled); a new rotation of it takes its place. */
  async recordNetworkStalled(input: {
    taskId: string;
    networkId: string;
    reason: 'fees-rose';
    maxFeePerGas: string;
    baseFeePerGas: string;
  }): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const row = await em.findOneOrFail(KeyRotationNetworkEntity, {
        taskId: input.taskId,
        networkId: input.networkId,
      });
      if (row.status !== 'processing') return;
      const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId: input.taskId });
      row.status = 'stalled';
      await appendEvent(em, {
        type: 'key_rotation.network_stalled',
        resourceId: input.taskId,
        userId: task.userId,
        data: {
          taskId: input.taskId,
          networkId: input.networkId,
          reason: input.reason,
          maxFeePerGas: input.maxFeePerGas,
          baseFeePerGas: input.baseFeePerGas,
        },
      });
    });
  },

  async recordKeyRotationStatus({
    taskId,
    status,
  }: {
    taskId: string;
    status: 'completed' | 'partial_failure';
  }): Promise<void> {
    await orm.em.fork().transactional(async (em) => {
      const task = await em.findOneOrFail(KeyRotationTaskEntity, { taskId });
      if ((await em.nativeUpdate(KeyRotationTaskEntity, { taskId, status: { $ne: status } }, { status })) !== 1) return;
      await appendEvent(em, {
        type: `key_rotation.${status}`,
        resourceId: taskId,
        userId: task.userId,
        data: { taskId },
      });
    });
  },
});

export type KeyRotationActivities = ReturnType<typeof createKeyRotationActivities>;
