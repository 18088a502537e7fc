import { ApplicationFailure } from '@temporalio/activity';
import type { Orm } from '../db/orm';
import { appendEvent } from '../db/events';
import { RecoveryEntity, RecoveryNetworkEntity, SmartAccountEntity, type RecoveryNetwork } from '../db/entities';
import type { NetworkRegistry } from '../platform/networks';
import type { RecoveryKey } from '../integrations/evm/recovery';
import type { AccountRecoveryOutcome } from '../workflows/messages';
import { clock } from '../platform/clock';

export interface RecoveryActivityDeps {
  orm: Orm;
  networks: NetworkRegistry;
  recoveryKey: RecoveryKey;
}

const same = (a: string | null | undefined, b: string): boolean => !!a && a.toLowerCase() === b.toLowerCase();

/**
 * The chain side of a recovery, network by network, each step safe to repeat: what the chain already shows (a
 * recovery scheduled, an owner changed, a cancellation) is recorded, never done twice.
 */
export const createRecoveryActivities = ({ orm, networks, recoveryKey }: RecoveryActivityDeps) => {
  const load = async (recoveryId: string) => {
    const em = orm.em.fork();
    const recovery = await em.findOneOrFail(RecoveryEntity, { recoveryId });
    const rows = await em.find(RecoveryNetworkEntity, { recoveryId }, { orderBy: { networkId: 'asc' } });
    return { em, recovery, rows };
  };
  const networkOf = (row: RecoveryNetwork) => networks.get(row.networkId)!;

  /** The owner cancelled (through the API or on chain): recorded with recovery.cancelled, once. */
  const markCancelled = async (row: RecoveryNetwork, userId: string) => {
    await orm.em.fork().transactional(async (tx) => {
      if (
        (await tx.nativeUpdate(RecoveryNetworkEntity, { id: row.id, status: 'scheduled' }, { status: 'cancelled' })) !==
        1
      )
        return;
      await appendEvent(tx, {
        type: 'recovery.cancelled',
        resourceId: row.recoveryId,
        userId,
        data: { recoveryId: row.recoveryId, networkId: row.networkId },
      });
    });
  };

  return {
    /**
     * Schedules the new owner on every network of the recovery where the account is recoverable; answers how long to
     * wait (the longest delay still to run, in the chains' time) and how many networks were scheduled.
     */
    async scheduleRecoveryNetworks({
      recoveryId,
    }: {
      recoveryId: string;
    }): Promise<{ scheduled: number; waitSeconds: number }> {
      const { em, recovery, rows } = await load(recoveryId);
      let waitSeconds = 0;
      for (const row of rows) {
        if (row.status === 'pending') {
          const state = await recoveryKey.state(networkOf(row), row.accountAddress);
          if (!state.recoverable) {
            row.status = 'not_recoverable';
            row.error =
              'the account on this network has not been upgraded for recovery (POST /v1/wallet/networks/{networkId}/upgrade/prepare)';
          } else if (same(state.owner, recovery.newOwnerAddress)) {
            Object.assign(row, { status: 'scheduled', executeAfter: clock.date() }); // recovered already (a repeat after a crash)
          } else if (state.pendingOwner && !same(state.pendingOwner, recovery.newOwnerAddress)) {
            Object.assign(row, {
              status: 'failed',
              error: 'another recovery is pending on this network: its owner must cancel it first',
            });
          } else {
            const txHash = state.pendingOwner
              ? row.scheduleTxHash
              : (
                  await recoveryKey.send(
                    networkOf(row),
                    row.accountAddress,
                    'scheduleRecovery',
                    recovery.newOwnerAddress,
                  )
                ).txHash;
            const after = await recoveryKey.state(networkOf(row), row.accountAddress);
            Object.assign(row, {
              status: 'scheduled',
              scheduleTxHash: txHash ?? null,
              executeAfter: new Date(after.executeAfter! * 1000),
            });
            await em.transactional(async (tx) => {
              await appendEvent(tx, {
                type: 'recovery.scheduled',
                resourceId: recoveryId,
                userId: recovery.userId,
                data: {
                  recoveryId,
                  networkId: row.networkId,
                  executeAfter: row.executeAfter!.toISOString(),
                  txHash: txHash ?? '',
                },
              });
            });
          }
          await em.flush();
        }
        if (row.status === 'scheduled' && row.executeAfter) {
          const state = await recoveryKey.state(networkOf(row), row.accountAddress);
          waitSeconds = Math.max(waitSeconds, Math.ceil(row.executeAfter.getTime() / 1000) - state.chainTime);
        }
      }
      const scheduled = rows.filter((r) => r.status === 'scheduled').length;
      recovery.status = scheduled ? 'scheduled' : 'failed';
      await em.flush();
      return { scheduled, waitSeconds: Math.max(0, waitSeconds) };
    },

    /**
     * Looks on chain for the owner's cancellations; answers how many networks still wait for the new owner, and whether
     * every one of them is due by its chain's clock (which the delay is counted in: a chain whose clock is ahead of the
     * workflow's, as a local one moved forward, executes then).
     */
    async checkRecoveryCancellations({
      recoveryId,
    }: {
      recoveryId: string;
    }): Promise<{ pending: number; due: boolean }> {
      const { recovery, rows } = await load(recoveryId);
      let pending = 0;
      let due = true;
      for (const row of rows.filter((r) => r.status === 'scheduled')) {
        const state = await recoveryKey.state(networkOf(row), row.accountAddress);
        if (same(state.pendingOwner, recovery.newOwnerAddress) || same(state.owner, recovery.newOwnerAddress)) {
          pending += 1;
          if (state.executeAfter !== null && state.chainTime < state.executeAfter) due = false;
        } else {
          await markCancelled(row, recovery.userId);
        }
      }
      return { pending, due };
    },

    /**
     * Makes the new owner the owner on every network still scheduled. Before the chain's executeAfter it fails
     * retryably (the activity waits); a network the owner cancelled on is recorded as cancelled.
     */
    async executeRecoveryNetworks({ recoveryId }: { recoveryId: string }): Promise<void> {
      const { recovery, rows } = await load(recoveryId);
      for (const row of rows.filter((r) => r.status === 'scheduled')) {
        const network = networkOf(row);
        const state = await recoveryKey.state(network, row.accountAddress);
        let txHash: string | null = null;
        if (!same(state.owner, recovery.newOwnerAddress)) {
          if (!same(state.pendingOwner, recovery.newOwnerAddress)) {
            await markCancelled(row, recovery.userId);
            continue;
          }
          if (state.chainTime < state.executeAfter!) {
            throw ApplicationFailure.retryable(
              `the recovery on ${row.networkId} executes after ${new Date(state.executeAfter! * 1000).toISOString()} (chain time)`,
              'RecoveryNotDue',
            );
          }
          txHash = (await recoveryKey.send(network, row.accountAddress, 'executeRecovery', recovery.newOwnerAddress))
            .txHash;
        }
        await orm.em.fork().transactional(async (tx) => {
          if (
            (await tx.nativeUpdate(
              RecoveryNetworkEntity,
              { id: row.id, status: 'scheduled' },
              { status: 'executed', executeTxHash: txHash },
            )) !== 1
          )
            return;
          await tx.nativeUpdate(
            SmartAccountEntity,
            { userId: recovery.userId, networkId: row.networkId },
            { ownerAddress: recovery.newOwnerAddress },
          );
          await appendEvent(tx, {
            type: 'recovery.executed',
            resourceId: recoveryId,
            userId: recovery.userId,
            data: { recoveryId, networkId: row.networkId, txHash: txHash ?? '' },
          });
        });
      }
    },

    /** The recovery's outcome over its networks. */
    async finishRecovery({ recoveryId }: { recoveryId: string }): Promise<AccountRecoveryOutcome> {
      const { em, recovery, rows } = await load(recoveryId);
      const count = (status: RecoveryNetwork['status']) => rows.filter((r) => r.status === status).length;
      const status: AccountRecoveryOutcome['status'] =
        count('executed') === rows.length - count('not_recoverable') && count('executed') > 0
          ? 'executed'
          : count('cancelled') > 0 && count('executed') === 0
            ? 'cancelled'
            : count('executed') > 0
              ? 'partial'
              : 'failed';
      recovery.status = status;
      await em.flush();
      return { status };
    },
  };
};

export type RecoveryActivities = ReturnType<typeof createRecoveryActivities>;
