import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import {
  EventEntity,
  RecoveryEntity,
  RecoveryNetworkEntity,
  SignedOperationEntity as SmartAccountOperation,
  SmartAccountEntity,
} from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { buildCallOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import {
  cancelRecoveryCallData,
  readRecoveryState,
  upgradeToRecoverableCallData,
} from '../../integrations/evm/recovery';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { accountRecoveryWorkflow } from '../../workflows/account-recovery';
import { accountUpgradeWorkflow, recoveryCancelWorkflow } from '../../workflows/account-upgrade';
import {
  accountRecoveryWorkflowId,
  accountUpgradeWorkflowId,
  recoveryCancelWorkflowId,
} from '../../workflows/messages';
import type { SignedOperationKind } from '../../db/entities';
import { problems } from '../http/problems';
import { evmAddress } from '../common/addresses';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import {
  executeSingleOperation,
  findOperation,
  preparedSlots,
  recordPreparedOperation,
  type SignedSlot,
  progressOf,
} from '../common/signed-operation';
import { startOnce } from '../http/start-once';
import type { Passkeys } from '../passkeys/service';
import type { Screening } from '../compliance/screening';
import { clock } from '../../platform/clock';

export interface RecoveryServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  taskQueue: string;
  prepareTtlSeconds: number;
  passkeys: Passkeys;
  gas: GasSponsorships;
  /** RECOVERY_ADDRESS (the worker holds its key) and RECOVERY_DELAY_SECONDS, written on chain by the upgrade. */
  recoveryAddress: string;
  recoveryDelaySeconds: number;
  /** RECOVERY_COOLDOWN_SECONDS: after the owner cancels one, how long before a new recovery can be asked for. */
  cooldownSeconds: number;
  pollSeconds: number;
  /** The new owner is screened as a transfer recipient is, before the service pays the recovery's gas. */
  screening: Pick<Screening, 'assertNotSanctioned'>;
}

/**
 * Recovery of the owner key when the backup is gone. Per network, the owner first upgrades the account to the
 * recoverable implementation (an owner-signed operation, like a transfer-key change); then a signed-in device past its
 * hold asks for a recovery with a new owner address, approved by a fresh identity check with the ID card (its route's
 * step-up), screened like a transfer recipient, and not within the cool-down of a cancelled one (workflow
 * account-recovery-<recoveryId>); the owner can cancel it during the delay with an owner-signed operation per network
 * (or directly on chain).
 */
export class RecoveryService {
  constructor(private readonly deps: RecoveryServiceDeps) {}

  /** What the account says about recovery on a network, read from the chain. */
  async view(userId: string, networkId: string) {
    const { network, account } = await this.accountOf(userId, networkId);
    const state = await readRecoveryState(this.deps.providers.for(network), account.address, this.deps.recoveryAddress);
    return {
      networkId: network.networkId,
      accountAddress: account.address,
      recoverable: state.recoverable,
      upgradeAvailable: !state.recoverable && !!network.recoverableImplementation,
      recoveryDelaySeconds: state.recoverable ? state.recoveryDelay : null,
      pendingOwner: state.pendingOwner,
      executeAfter: state.executeAfter ? new Date(state.executeAfter * 1000).toISOString() : null,
    };
  }

  async prepareUpgrade(userId: string, networkId: string) {
    const { network, account } = await this.accountOf(userId, networkId);
    if (!network.recoverableImplementation)
      throw problems.conflict(
        'upgrade-unavailable',
        `${network.networkId} has no recoverable implementation configured`,
      );
    const provider = this.deps.providers.for(network);
    if ((await readRecoveryState(provider, account.address, this.deps.recoveryAddress)).recoverable) {
      throw problems.conflict('already-upgraded', `The account on ${network.networkId} is recoverable already`);
    }
    const callData = upgradeToRecoverableCallData(
      network.recoverableImplementation,
      this.deps.recoveryAddress,
      this.deps.recoveryDelaySeconds,
    );
    const days = Math.round((this.deps.recoveryDelaySeconds / 86400) * 10) / 10;
    return this.prepare(
      userId,
      'account_upgrade',
      'upg',
      network.networkId,
      account,
      callData,
      {
        implementation: network.recoverableImplementation,
        recoveryKey: this.deps.recoveryAddress,
        recoveryDelay: this.deps.recoveryDelaySeconds,
      },
      `Upgrade your account ${account.address} on ${network.networkId} so the service can recover it if you lose your key: a recovery ` +
        `waits ${this.deps.recoveryDelaySeconds} s (${days} days) during which you can cancel it; the recovery key ${this.deps.recoveryAddress} can do nothing else`,
    );
  }

  async executeUpgrade(userId: string, networkId: string, items: SignedSlot[]): Promise<string> {
    return this.execute(userId, networkId, items, 'account_upgrade', 'account upgrade', (op) =>
      this.deps.temporal.workflow.start(accountUpgradeWorkflow, {
        workflowId: accountUpgradeWorkflowId(op.operationId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ opId: op.operationId, userId, networkId: op.networkId }],
      }),
    );
  }

  async operationStatus(userId: string, opId: string) {
    const op = await this.deps.orm.em.fork().findOne(SmartAccountOperation, {
      operationId: opId,
      userId,
      kind: { $in: ['account_upgrade', 'recovery_cancel'] },
    });
    if (!op) throw problems.notFound(`Operation ${opId}`);
    return {
      opId: op.operationId,
      kind: op.kind,
      networkId: op.networkId,
      status: op.status,
      recoveryId: op.details.recoveryId ?? null,
      txHash: op.txHash ?? null,
      error: op.error ?? null,
      ...progressOf(op),
      updatedAt: op.updatedAt.toISOString(),
    };
  }

  /** A recovery to `newOwnerAddress` on every network where the account is deployed; one at a time. */
  async start(userId: string, deviceId: string, newOwnerAddress: string) {
    const newOwner = evmAddress(newOwnerAddress);
    const em = this.deps.orm.em.fork();
    const accounts = (await em.find(SmartAccountEntity, { userId, status: 'deployed' })).filter((a) =>
      this.deps.networks.get(a.networkId),
    );
    if (!accounts.length) throw problems.conflict('account-not-deployed', 'You have no deployed account to recover');
    if (accounts.some((a) => a.ownerAddress.toLowerCase() === newOwner.toLowerCase())) {
      throw problems.unprocessable('same-owner', 'The new owner is the current owner: nothing to recover');
    }
    if (await em.count(RecoveryEntity, { userId, status: { $in: ['scheduling', 'scheduled'] } })) {
      throw problems.conflict(
        'recovery-in-progress',
        'A recovery of your account is in progress: wait for it, or cancel it first',
      );
    }
    await this.assertCooledDown(userId);
    await this.deps.screening.assertNotSanctioned(userId, accounts[0]!.networkId, newOwner, { context: 'recovery' });
    const recoveryId = `rcv_${randomUUID()}`;
    await em.transactional(async (tx) => {
      tx.create(RecoveryEntity, { recoveryId, userId, deviceId, newOwnerAddress: newOwner, status: 'scheduling' });
      for (const a of accounts) {
        tx.create(RecoveryNetworkEntity, {
          id: `${recoveryId}:${a.networkId}`,
          recoveryId,
          networkId: a.networkId,
          accountAddress: a.address,
          status: 'pending',
          executeAfter: null,
          scheduleTxHash: null,
          executeTxHash: null,
          error: null,
        });
      }
    });
    await startOnce(() =>
      this.deps.temporal.workflow.start(accountRecoveryWorkflow, {
        workflowId: accountRecoveryWorkflowId(recoveryId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ recoveryId, userId, pollSeconds: this.deps.pollSeconds }],
      }),
    );
    return this.status(userId, recoveryId);
  }

  /**
   * After the owner cancelled a recovery, a new one waits RECOVERY_COOLDOWN_SECONDS (409 with Retry-After): whoever
   * asked cannot simply ask again at once, wearing the owner down with a cancellation per network each time.
   */
  private async assertCooledDown(userId: string): Promise<void> {
    const [cancelled] = await this.deps.orm.em
      .fork()
      .find(
        EventEntity,
        { userId, type: 'recovery.cancelled' },
        { orderBy: { createdAt: 'desc' }, limit: 1, fields: ['createdAt'] },
      );
    const until = cancelled ? cancelled.createdAt.getTime() + this.deps.cooldownSeconds * 1000 : 0;
    if (until <= clock.now()) return;
    const seconds = Math.ceil((until - clock.now()) / 1000);
    throw problems.conflict(
      'recovery-cooling-down',
      `A recovery of your account was cancelled at ${cancelled!.createdAt.toISOString()}: a new one can be asked for from ${new Date(until).toISOString()}`,
      { 'retry-after': String(seconds) },
    );
  }

  async status(userId: string, recoveryId: string) {
    const em = this.deps.orm.em.fork();
    const recovery = await em.findOne(RecoveryEntity, { recoveryId, userId });
    if (!recovery) throw problems.notFound(`Recovery ${recoveryId}`);
    const rows = await em.find(RecoveryNetworkEntity, { recoveryId }, { orderBy: { networkId: 'asc' } });
    return {
      recoveryId,
      newOwnerAddress: recovery.newOwnerAddress,
      status: recovery.status,
      createdAt: recovery.createdAt.toISOString(),
      networks: rows.map((r) => ({
        networkId: r.networkId,
        accountAddress: r.accountAddress,
        status: r.status,
        executeAfter: r.executeAfter?.toISOString() ?? null,
        scheduleTxHash: r.scheduleTxHash ?? null,
        executeTxHash: r.executeTxHash ?? null,
        error: r.error ?? null,
      })),
    };
  }

  /** The owner's cancellation on one network: an owner-signed operation calling cancelRecovery. */
  async prepareCancel(userId: string, recoveryId: string, networkId: string) {
    const row = await this.deps.orm.em.fork().findOne(RecoveryNetworkEntity, { recoveryId, networkId });
    const recovery = await this.deps.orm.em.fork().findOne(RecoveryEntity, { recoveryId, userId });
    if (!recovery || !row) throw problems.notFound(`Recovery ${recoveryId} on ${networkId}`);
    if (row.status !== 'scheduled')
      throw problems.conflict(
        'recovery-not-pending',
        `The recovery on ${networkId} is ${row.status}: nothing to cancel`,
      );
    const { network, account } = await this.accountOf(userId, networkId);
    return this.prepare(
      userId,
      'recovery_cancel',
      'rcx',
      network.networkId,
      account,
      cancelRecoveryCallData(),
      { recoveryId },
      `Cancel the recovery of your account ${account.address} on ${network.networkId} to ${recovery.newOwnerAddress}: your current key stays the owner`,
    );
  }

  async executeCancel(userId: string, recoveryId: string, networkId: string, items: SignedSlot[]): Promise<string> {
    return this.execute(
      userId,
      networkId,
      items,
      'recovery_cancel',
      'recovery cancellation',
      (op) =>
        this.deps.temporal.workflow.start(recoveryCancelWorkflow, {
          workflowId: recoveryCancelWorkflowId(op.operationId),
          taskQueue: this.deps.taskQueue,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ opId: op.operationId, userId, networkId: op.networkId, recoveryId }],
        }),
      recoveryId,
    );
  }

  private async prepare(
    userId: string,
    kind: SignedOperationKind,
    prefix: string,
    networkId: string,
    account: { address: string; ownerAddress: string },
    innerCallData: string,
    details: Record<string, string | number>,
    description: string,
  ) {
    const network = this.deps.networks.get(networkId)!;
    const provider = this.deps.providers.for(network);
    const opId = `${prefix}_${randomUUID()}`;
    const expiresAt = new Date(clock.now() + this.deps.prepareTtlSeconds * 1000);
    const [operation] = await this.deps.gas.sponsor(
      userId,
      opId,
      [
        {
          networkId,
          operation: await buildCallOperation(
            provider,
            this.deps.providers.bundler(network),
            network,
            account.address,
            account.address,
            innerCallData,
          ),
        },
      ],
      sponsoredUntil(expiresAt),
    );
    const userOpHash = userOperationHash(operation!, network.chainId, network.entryPoint);
    const em = this.deps.orm.em.fork();
    recordPreparedOperation(em, {
      operationId: opId,
      kind,
      userId,
      networkId,
      accountAddress: account.address,
      ownerAddress: account.ownerAddress,
      details,
      userOperation: operation!,
      userOpHash,
      expiresAt,
    });
    await em.flush();
    return {
      description: `${description} (gas paid by the service)`,
      items: await preparedSlots(this.deps.passkeys, userId, {
        id: opId,
        owner: account.ownerAddress,
        network,
        userOpHash,
        domain: { accountAddress: account.address, action: kind, ...details, paymaster: network.paymaster },
      }),
    };
  }

  private async execute(
    userId: string,
    networkId: string,
    items: SignedSlot[],
    kind: SignedOperationKind,
    what: string,
    start: (op: { operationId: string; networkId: string }) => Promise<unknown>,
    recoveryId?: string,
  ): Promise<string> {
    const { network } = await this.accountOf(userId, networkId);
    const { orm } = this.deps;
    if (recoveryId) {
      // A cancellation is executed under the recovery it was prepared for, never another one's.
      const slotId = items.map((i) => i.id).find((id) => !id.endsWith('.passkey')) ?? '';
      if ((await findOperation(orm, userId, kind, slotId))?.details.recoveryId !== recoveryId)
        throw problems.notFound(`Signing slot ${slotId}`);
    }
    const op = await executeSingleOperation({ orm, passkeys: this.deps.passkeys }, userId, items, {
      kind,
      what,
      networkId: network.networkId,
      signer: async () =>
        (await orm.em.fork().findOneOrFail(SmartAccountEntity, { userId, networkId: network.networkId })).ownerAddress,
      start,
    });
    return op.operationId;
  }

  private async accountOf(userId: string, networkId: string) {
    const network = this.deps.networks.get(networkId);
    if (!network && this.deps.networks.solana(networkId)) {
      throw problems.conflict(
        'no-smart-accounts',
        `${networkId} has no smart accounts here: its wallet is custodial (it comes back with the sign-in)`,
      );
    }
    if (!network) throw problems.unknownNetwork(networkId, this.deps.networks.ids());
    const account = await this.deps.orm.em
      .fork()
      .findOne(SmartAccountEntity, { userId, networkId: network.networkId, status: 'deployed' });
    if (!account) throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first`);
    return { network, account };
  }
}
