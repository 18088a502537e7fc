import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import {
  KeyRotationNetworkEntity,
  KeyRotationTaskEntity,
  SmartAccountEntity,
  type KeyRotationTask,
  type SmartAccount,
} from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import {
  buildCallOperation,
  changeOwnerCallData,
  serializeOperation,
  type ChainProviders,
} from '../../integrations/evm/smart-account';
import { merkleRootDigest, userOperationHash, userOperationMerkleTree } from '../../integrations/evm/user-operation';
import { keyUriOf } from '../../integrations/evm/signing-slots';
import { keyRotationWorkflow } from '../../workflows/key-rotation';
import { keyRotationWorkflowId, retryNetworkRotationUpdate } from '../../workflows/messages';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { evmAddress } from '../common/addresses';
import { verifyOnChainSlot } from '../common/slot-verification';
import type { SignedSlot } from '../common/signed-operation';
import { optional, splitSignedSlots, type Passkeys } from '../passkeys/service';
import { sponsoredUntil, type GasSponsorships } from '../common/gas-sponsorship';
import type { Screening } from '../compliance/screening';
import { clock } from '../../platform/clock';

export interface KeyRotationServiceDeps {
  orm: Orm;
  temporal: Client;
  networks: NetworkRegistry;
  providers: ChainProviders;
  taskQueue: string;
  prepareTtlSeconds: number;
  retryWindowSeconds: number;
  passkeys: Passkeys;
  gas: GasSponsorships;
  /** The new owner is screened as a transfer recipient is, before the service pays the rotation's gas. */
  screening: Pick<Screening, 'assertNotSanctioned'>;
}

const ALGORITHM = 'eip712-erc4337-merkleroot-v1';
/** Recommended polling interval while a rotation runs, and once it has settled. */
const POLL_SECONDS = { running: 2, settled: 30 };

/**
 * Owner-key rotation across networks with one signature: prepare one changeOwner operation per network under a
 * merkle root, execute once signed (workflow key-rotation-<taskId>, a child per network), report, retry a network.
 */
export class KeyRotationService {
  constructor(private readonly deps: KeyRotationServiceDeps) {}

  async prepare(userId: string, input: { newOwnerAddress: string; networkIds?: string[] }) {
    const { orm, networks, providers } = this.deps;
    const { accounts, oldOwner } = await this.accountsToRotate(userId, input.networkIds);
    const newOwner = evmAddress(input.newOwnerAddress);
    if (newOwner === oldOwner) throw problems.conflict('already-owner', 'This key already owns your accounts');
    await this.deps.screening.assertNotSanctioned(userId, accounts[0]!.networkId, newOwner, {
      context: 'key-rotation',
    });
    const taskId = `rot_${randomUUID()}`;
    const expiresAt = new Date(clock.now() + this.deps.prepareTtlSeconds * 1000);
    const built = await Promise.all(
      accounts.map(async (account) => {
        const network = networks.get(account.networkId)!;
        return {
          networkId: network.networkId,
          operation: await buildCallOperation(
            providers.for(network),
            providers.bundler(network),
            network,
            account.address,
            account.address,
            changeOwnerCallData(newOwner),
            // One owner signature over the merkle root of every network's operation.
            { kind: 'merkle', leaves: accounts.length },
          ),
        };
      }),
    );
    // Sponsored for as long as a failed network may be retried (the owner's one signature covers the paymaster data).
    const sponsored = await this.deps.gas.sponsor(
      userId,
      taskId,
      built,
      sponsoredUntil(expiresAt, this.deps.retryWindowSeconds),
    );
    const operations = accounts.map((account, i) => {
      const network = networks.get(account.networkId)!;
      return {
        account,
        network,
        operation: sponsored[i]!,
        hash: userOperationHash(sponsored[i]!, network.chainId, network.entryPoint),
      };
    });
    const tree = await userOperationMerkleTree(operations.map((o) => o.hash));
    const em = orm.em.fork();
    em.create(KeyRotationTaskEntity, {
      taskId,
      userId,
      oldOwnerAddress: oldOwner,
      newOwnerAddress: newOwner,
      root: tree.root,
      status: 'prepared',
      expiresAt,
    });
    for (const o of operations) {
      em.create(KeyRotationNetworkEntity, {
        taskId,
        networkId: o.network.networkId,
        accountAddress: o.account.address,
        userOperation: serializeOperation(o.operation),
        userOpHash: o.hash,
        proof: tree.proofOf(o.hash),
        status: 'prepared',
      });
    }
    await em.flush();
    const digest = merkleRootDigest(tree.root);
    const domain = {
      name: 'ERC4337',
      version: '1',
      root: tree.root,
      operations: operations.map((o) => ({
        networkId: o.network.networkId,
        chainId: o.network.chainId,
        entryPoint: o.network.entryPoint,
        paymaster: o.network.paymaster,
        userOpHash: o.hash,
      })),
    };
    return {
      description: `Rotate the owner key to ${newOwner} on ${accounts.map((a) => a.networkId).join(', ')} with one signature`,
      items: [
        { id: taskId, parameter: { algorithm: ALGORITHM, keyUri: keyUriOf(oldOwner), domain }, payload: digest },
        ...optional(await this.deps.passkeys.slotFor(userId, taskId, digest)),
      ],
    };
  }

  async execute(userId: string, items: SignedSlot[]): Promise<KeyRotationTask> {
    const { orm } = this.deps;
    const { onChain: slot, passkey } = splitSignedSlots(items);
    const task = await orm.em.fork().findOne(KeyRotationTaskEntity, { taskId: slot.id, userId });
    if (!task) throw problems.notFound(`Signing slot ${slot.id}`);
    if (task.status !== 'prepared' && !(task.status === 'processing' && task.rootSignature)) {
      throw problems.conflict('slot-already-used', 'This key rotation was already executed');
    }
    if (task.expiresAt.getTime() < clock.now())
      throw problems.gone('slot-expired', 'The prepared key rotation expired; prepare again');
    const digest = merkleRootDigest(task.root);
    const signature = verifyOnChainSlot(slot, {
      algorithm: ALGORITHM,
      keyUri: keyUriOf(task.oldOwnerAddress),
      payload: digest,
      signer: task.oldOwnerAddress,
    });
    if (task.status === 'prepared') await this.deps.passkeys.verifyApproval(userId, passkey, task.taskId, digest);
    // Exactly one execution moves the task on; the same signed slot again while processing only makes sure the
    // workflow runs (a retry after a lost answer or a crash between these two steps).
    const moved = await orm.em
      .fork()
      .nativeUpdate(
        KeyRotationTaskEntity,
        { taskId: task.taskId, status: 'prepared' },
        { status: 'processing', rootSignature: signature },
      );
    if (
      moved !== 1 &&
      (await orm.em.fork().findOneOrFail(KeyRotationTaskEntity, { taskId: task.taskId })).rootSignature !== signature
    ) {
      throw problems.conflict('slot-already-used', 'This key rotation was already executed');
    }
    const rows = await orm.em
      .fork()
      .find(KeyRotationNetworkEntity, { taskId: task.taskId }, { orderBy: { networkId: 'asc' } });
    await startOnce(() =>
      this.deps.temporal.workflow.start(keyRotationWorkflow, {
        workflowId: keyRotationWorkflowId(task.taskId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [
          {
            taskId: task.taskId,
            userId,
            networkIds: rows.map((r) => r.networkId),
            retryWindowSeconds: this.deps.retryWindowSeconds,
          },
        ],
      }),
    );
    return task;
  }

  /** The task aggregated per network, and how soon to poll again. */
  async view(userId: string, taskId: string) {
    const task = await this.taskOf(userId, taskId);
    const rows = await this.deps.orm.em
      .fork()
      .find(KeyRotationNetworkEntity, { taskId }, { orderBy: { networkId: 'asc' } });
    const networks = rows.map((r) => ({
      networkId: r.networkId,
      status: r.status === 'prepared' ? 'processing' : r.status,
      txHash: r.txHash ?? '',
      error: r.error ?? null,
      retryable: r.status === 'failed' && r.retryable,
    }));
    const running = task.status === 'processing' || networks.some((n) => n.status === 'processing');
    return {
      body: { taskId, status: running ? 'processing' : task.status, networks },
      pollSeconds: running ? POLL_SECONDS.running : POLL_SECONDS.settled,
    };
  }

  async retry(userId: string, taskId: string, networkId: string): Promise<void> {
    const task = await this.taskOf(userId, taskId);
    const { orm } = this.deps;
    await orm.em.fork().nativeUpdate(KeyRotationTaskEntity, { taskId }, { status: 'processing' });
    try {
      // The handler only starts the network's child and returns, so waiting for completion is quick and
      // surfaces a validator's refusal (not failed, not retryable) as an error.
      await this.deps.temporal.workflow
        .getHandle(keyRotationWorkflowId(taskId))
        .executeUpdate(retryNetworkRotationUpdate, { args: [networkId] });
    } catch (error) {
      await orm.em.fork().nativeUpdate(KeyRotationTaskEntity, { taskId }, { status: task.status });
      // The task's workflow has closed (its retry window ended, or every network completed): not "not found".
      if (error instanceof WorkflowNotFoundError)
        throw problems.conflict('task-closed', 'This rotation has closed; nothing of it can be retried now');
      throw error;
    }
  }

  private async taskOf(userId: string, taskId: string): Promise<KeyRotationTask> {
    const task = await this.deps.orm.em.fork().findOne(KeyRotationTaskEntity, { taskId, userId });
    if (!task || task.status === 'prepared') throw problems.notFound(`Key rotation task ${taskId}`);
    return task;
  }

  /** The deployed accounts to rotate (every deployed one by default), which must share one owner. */
  private async accountsToRotate(
    userId: string,
    networkIds?: string[],
  ): Promise<{ accounts: SmartAccount[]; oldOwner: string }> {
    const { orm, networks } = this.deps;
    const deployed = await orm.em
      .fork()
      .find(SmartAccountEntity, { userId, status: 'deployed' }, { orderBy: { networkId: 'asc' } });
    const wanted = networkIds ?? deployed.map((a) => a.networkId);
    for (const networkId of wanted)
      if (!networks.get(networkId)) throw problems.unknownNetwork(networkId, networks.ids());
    const accounts = wanted.map((networkId) => deployed.find((a) => a.networkId === networkId));
    if (!accounts.length || accounts.some((a) => !a))
      throw problems.conflict('account-not-deployed', 'Deploy your account on every network you rotate');
    const owners = new Set(accounts.map((a) => a!.ownerAddress));
    if (owners.size !== 1)
      throw problems.conflict('owners-differ', 'Your accounts have different owners; rotate them separately');
    return { accounts: accounts as SmartAccount[], oldOwner: [...owners][0]! };
  }
}
