import { randomUUID } from 'node:crypto';
import { evmAddress } from '../common/addresses';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { KeyRotationNetworkEntity, KeyRotationTaskEntity, SmartAccountEntity } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { buildCallOperation, changeOwnerCallData, serializeOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { merkleRootDigest, userOperationHash, userOperationMerkleTree } from '../../integrations/evm/user-operation';
import { keyUriOf } from '../../integrations/evm/signing-slots';
import { verifyOnChainSlot } from '../common/slot-verification';
import { optional, splitSignedSlots, type Passkeys } from '../passkeys/service';
import { keyRotationWorkflow } from '../../workflows/key-rotation';
import { keyRotationWorkflowId, retryNetworkRotationUpdate } from '../../workflows/messages';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { SigningContainer } from '../wallet/schemas';
import * as S from './schemas';
import { startOnce } from '../http/start-once';

export interface KeyRotationRouteDeps {
  orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; taskQueue: string;
  prepareTtlSeconds: number; retryWindowSeconds: number; passkeys: Passkeys;
}

const ALGORITHM = 'eip712-erc4337-merkleroot-v1';
const TAGS = ['Key rotation'];
/** Recommended polling interval while a rotation runs, and once it has settled. */
const POLL_SECONDS = { running: 2, settled: 30 };

export function keyRotationRoutes(deps: KeyRotationRouteDeps): RouteSpec[] {
  const { orm, networks, providers } = deps;
  const taskOr404 = async (taskId: string, userId: string) => {
    const task = await orm.em.fork().findOne(KeyRotationTaskEntity, { taskId, userId });
    if (!task || task.status === 'prepared') throw problems.notFound(`Key rotation task ${taskId}`);
    return task;
  };

  return [
    defineRoute({
      method: 'post', path: '/v1/wallet/keys/rotate/prepare', operationId: 'prepareKeyRotation', tags: TAGS, auth: 'bearer',
      summary: 'Prepare a key rotation: one owner-change operation per network under one merkle-root signing slot',
      body: S.RotatePrepareBody,
      responses: {
        200: { description: 'Signing container with one eip712-erc4337-merkleroot-v1 slot', schema: SigningContainer },
        404: { description: 'Unknown network' }, 409: { description: 'No deployed account on a requested network, or the key is already the owner' },
        422: { description: 'newOwnerAddress fails its EIP-55 checksum' },
      },
      handler: async ({ body, user }) => {
        const em = orm.em.fork();
        const deployed = await em.find(SmartAccountEntity, { userId: user!.userId, status: 'deployed' }, { orderBy: { networkId: 'asc' } });
        const wanted = body.networkIds ?? deployed.map((a) => a.networkId);
        for (const networkId of wanted) {
          if (!networks.get(networkId)) throw problems.unknownNetwork(networkId, networks.ids());
        }
        const accounts = wanted.map((networkId) => deployed.find((a) => a.networkId === networkId));
        if (!accounts.length || accounts.some((a) => !a)) throw problems.conflict('account-not-deployed', 'Deploy your account on every network you rotate');
        const owners = new Set(accounts.map((a) => a!.ownerAddress));
        if (owners.size !== 1) throw problems.conflict('owners-differ', 'Your accounts have different owners; rotate them separately');
        const [oldOwner] = [...owners] as [string];
        const newOwner = evmAddress(body.newOwnerAddress);
        if (newOwner === oldOwner) throw problems.conflict('already-owner', 'This key already owns your accounts');

        const operations = await Promise.all(accounts.map(async (account) => {
          const network = networks.get(account!.networkId)!;
          const operation = await buildCallOperation(providers.for(network), network, account!.address, account!.address, changeOwnerCallData(newOwner));
          return { account: account!, network, operation, hash: userOperationHash(operation, network.chainId, network.entryPoint) };
        }));
        const tree = userOperationMerkleTree(operations.map((o) => o.hash));
        const taskId = `rot_${randomUUID()}`;
        em.create(KeyRotationTaskEntity, {
          taskId, userId: user!.userId, oldOwnerAddress: oldOwner, newOwnerAddress: newOwner, root: tree.root, status: 'prepared',
          expiresAt: new Date(Date.now() + deps.prepareTtlSeconds * 1000),
        });
        for (const o of operations) {
          em.create(KeyRotationNetworkEntity, {
            taskId, networkId: o.network.networkId, accountAddress: o.account.address, userOperation: serializeOperation(o.operation),
            userOpHash: o.hash, proof: tree.proofOf(o.hash), status: 'prepared',
          });
        }
        await em.flush();
        return {
          status: 200,
          body: {
            description: `Rotate the owner key to ${newOwner} on ${wanted.join(', ')} with one signature`,
            items: [{
              id: taskId,
              parameter: {
                algorithm: ALGORITHM, keyUri: keyUriOf(oldOwner),
                domain: {
                  name: 'ERC4337', version: '1', root: tree.root,
                  operations: operations.map((o) => ({ networkId: o.network.networkId, chainId: o.network.chainId, entryPoint: o.network.entryPoint, userOpHash: o.hash })),
                },
              },
              payload: merkleRootDigest(tree.root),
            }, ...optional(await deps.passkeys.slotFor(user!.userId, taskId, merkleRootDigest(tree.root)))],
          },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/wallet/keys/rotate', operationId: 'executeKeyRotation', tags: TAGS, auth: 'bearer',
      summary: 'Execute a prepared key rotation with its signed slot (asynchronous: 202 and a task to poll)',
      body: S.RotateExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        202: { description: 'Rotation started', schema: S.RotateAccepted },
        404: { description: 'Unknown slot' }, 409: { description: 'Slot already used' }, 410: { description: 'Prepared rotation expired' },
        422: { description: 'Signature invalid, or a slot that does not match what was prepared' },
      },
      handler: async ({ body, user }) => {
        const { onChain: slot, passkey } = splitSignedSlots(body.signing.items);
        const em = orm.em.fork();
        const task = await em.findOne(KeyRotationTaskEntity, { taskId: slot.id, userId: user!.userId });
        if (!task) throw problems.notFound(`Signing slot ${slot.id}`);
        if (task.status !== 'prepared' && !(task.status === 'processing' && task.rootSignature)) {
          throw problems.conflict('slot-already-used', 'This key rotation was already executed');
        }
        if (task.expiresAt.getTime() < Date.now()) throw problems.gone('slot-expired', 'The prepared key rotation expired; prepare again');
        const signature = verifyOnChainSlot(slot, {
          algorithm: ALGORITHM, keyUri: keyUriOf(task.oldOwnerAddress), payload: merkleRootDigest(task.root), signer: task.oldOwnerAddress,
        });
        if (task.status === 'prepared') await deps.passkeys.verifyApproval(user!.userId, passkey, task.taskId, merkleRootDigest(task.root));
        // Exactly one execution moves the task on; the same signed slot again while processing only makes sure the
        // workflow runs (a retry after a lost answer or a crash between these two steps).
        const moved = await em.nativeUpdate(KeyRotationTaskEntity, { taskId: task.taskId, status: 'prepared' }, { status: 'processing', rootSignature: signature });
        if (moved !== 1) {
          const current = await orm.em.fork().findOneOrFail(KeyRotationTaskEntity, { taskId: task.taskId });
          if (current.rootSignature !== signature) throw problems.conflict('slot-already-used', 'This key rotation was already executed');
        }
        const rows = await em.find(KeyRotationNetworkEntity, { taskId: task.taskId }, { orderBy: { networkId: 'asc' } });
        await startOnce(() => deps.temporal.workflow.start(keyRotationWorkflow, {
          workflowId: keyRotationWorkflowId(task.taskId), taskQueue: deps.taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ taskId: task.taskId, userId: user!.userId, networkIds: rows.map((r) => r.networkId), retryWindowSeconds: deps.retryWindowSeconds }],
        }));
        return { status: 202, body: { taskId: task.taskId, status: 'processing' }, headers: { location: `/v1/wallet/keys/rotate/${task.taskId}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/wallet/keys/rotate/:taskId', operationId: 'getKeyRotation', tags: TAGS, auth: 'bearer',
      summary: 'Key rotation status aggregated per network; Retry-After recommends the polling interval',
      params: S.TaskParams,
      responses: {
        200: {
          description: 'Key rotation task', schema: S.KeyRotationTaskView,
          headers: { 'retry-after': { description: 'Recommended polling interval in seconds (>= 1)', schema: S.RetryAfterSeconds } },
        },
        404: { description: 'No such task for this user' },
      },
      handler: async ({ params, user }) => {
        const task = await taskOr404(params.taskId, user!.userId);
        const rows = await orm.em.fork().find(KeyRotationNetworkEntity, { taskId: task.taskId }, { orderBy: { networkId: 'asc' } });
        const networksView = rows.map((r) => ({
          networkId: r.networkId, status: r.status === 'prepared' ? 'processing' : r.status, txHash: r.txHash ?? '',
          error: r.error ?? null, retryable: r.status === 'failed' && r.retryable,
        }));
        const running = task.status === 'processing' || networksView.some((n) => n.status === 'processing');
        const status = running ? 'processing' : task.status;
        return {
          status: 200,
          body: { taskId: task.taskId, status, networks: networksView },
          headers: { 'retry-after': String(running ? POLL_SECONDS.running : POLL_SECONDS.settled) },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/wallet/keys/rotate/:taskId/networks/:networkId/retry', operationId: 'retryKeyRotationNetwork', tags: TAGS, auth: 'bearer',
      summary: 'Retry one network of a key rotation whose failure was retryable; the other networks are not touched',
      params: S.TaskNetworkParams,
      responses: {
        202: { description: 'Retry started', schema: S.RotateAccepted },
        404: { description: 'No such task for this user' }, 409: { description: 'The network is not failed-and-retryable, or the task is closed' },
      },
      handler: async ({ params, user }) => {
        const task = await taskOr404(params.taskId, user!.userId);
        await orm.em.fork().nativeUpdate(KeyRotationTaskEntity, { taskId: task.taskId }, { status: 'processing' });
        try {
          // The handler only starts the network's child and returns, so waiting for completion is quick and
          // surfaces a validator's refusal (not failed, not retryable) as an error.
          await deps.temporal.workflow.getHandle(keyRotationWorkflowId(task.taskId)).executeUpdate(retryNetworkRotationUpdate, { args: [params.networkId] });
        } catch (error) {
          await orm.em.fork().nativeUpdate(KeyRotationTaskEntity, { taskId: task.taskId }, { status: task.status });
          // The task's workflow has closed (its retry window ended, or every network completed): not "not found".
          if (error instanceof WorkflowNotFoundError) throw problems.conflict('task-closed', 'This rotation has closed; nothing of it can be retried now');
          throw error;
        }
        return { status: 202, body: { taskId: task.taskId, status: 'processing' }, headers: { location: `/v1/wallet/keys/rotate/${task.taskId}` } };
      },
    }),
  ];
}
