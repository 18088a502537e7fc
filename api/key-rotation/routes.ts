import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { SigningContainer } from '../wallet/schemas';
import type { KeyRotationService } from './service';
import * as S from './schemas';

const TAGS = ['Key rotation'];

export function keyRotationRoutes({ rotations }: { rotations: KeyRotationService }): RouteSpec[] {
  const accepted = (taskId: string) => ({
    status: 202,
    body: { taskId, status: 'processing' },
    headers: { location: `/v1/wallet/keys/rotate/${taskId}` },
  });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/wallet/keys/rotate/prepare',
      operationId: 'prepareKeyRotation',
      stepUp: { action: 'key_rotation', does: 'rotate the owner key', anyOf: [], hold: true, notice: null },
      screens: 'key-rotation',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Prepare a key rotation: one owner-change operation per network under one merkle-root signing slot',
      description:
        'Rotates every network where the account is deployed, or the ones `networkIds` names (each deployed, all ' +
        'with the same current owner: 409 otherwise). The current owner key signs `payload`, the merkle-root ' +
        'digest, once for every network (a user with a passkey also gets a passkey slot); send the signed slots ' +
        'to POST /v1/wallet/keys/rotate within DEPLOY_PREPARE_TTL_SECONDS (600 s). The new owner address is ' +
        'screened against sanctions lists, and the gas counts against the daily budget (GET ' +
        '/v1/wallet/gas-budget).',
      body: S.RotatePrepareBody,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many prepares (Retry-After)' },
        200: { description: 'Signing container with one eip712-erc4337-merkleroot-v1 slot', schema: SigningContainer },
        404: { description: 'Unknown network' },
        409: { description: 'No deployed account on a requested network, or the key is already the owner' },
        422: {
          description:
            "newOwnerAddress fails its EIP-55 checksum, or the day's sponsored gas would be exceeded (gas-budget-exceeded, with budgetKrw and resetsAt)",
        },
        503: { description: "No price of the network's coin in won, so gas cannot be sponsored (price-unavailable)" },
      },
      handler: async ({ body, user }) => ({ status: 200, body: await rotations.prepare(user.userId, body) }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/keys/rotate',
      operationId: 'executeKeyRotation',
      stepUp: {
        action: 'key_rotation',
        does: 'rotate the owner key',
        anyOf: [['owner_key']],
        checkedBy: "the service against the prepared operations' merkle root, then each chain",
        hold: true,
        notice: { event: 'key_rotation.completed', mailed: false },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Execute a prepared key rotation with its signed slot (asynchronous: 202 and a task to poll)',
      description:
        'Send back the slots of the prepare answer, `id` and `parameter` as received, each with ' +
        '`signature.authResponse`: for the on-chain slot, the signature of `payload` by the current owner key, ' +
        'signed raw (no EIP-191 prefix); for a passkey slot, the WebAuthn assertion. The 202 names the task to ' +
        'poll (`Location`: /v1/wallet/keys/rotate/{taskId}); the workflow key-rotation-<taskId> rotates every ' +
        'network in parallel and writes `key_rotation.completed` or `key_rotation.partial_failure` once all have ' +
        'settled. The same signed slot sent again while the rotation runs answers the same task.',
      body: S.RotateExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Rotation started', schema: S.RotateAccepted, headers: LOCATION_HEADER },
        404: { description: 'Unknown slot' },
        409: { description: 'Slot already used' },
        410: { description: 'Prepared rotation expired' },
        422: { description: 'Signature invalid, or a slot that does not match what was prepared' },
      },
      handler: async ({ body, user }) => accepted((await rotations.execute(user.userId, body.signing.items)).taskId),
    }),

    defineRoute({
      method: 'get',
      path: '/v1/wallet/keys/rotate/:taskId',
      operationId: 'getKeyRotation',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Key rotation status aggregated per network; Retry-After recommends the polling interval',
      description:
        'Poll the `Location` of the 202 at the pace `Retry-After` gives (2 s while running, 30 s once settled): ' +
        '`status` stays `processing` until every network has settled, then becomes `completed` or ' +
        '`partial_failure`. A network `failed` with `retryable: true` can be run again alone (POST ' +
        '…/networks/{networkId}/retry); a `stalled` one may still land, or a new rotation of that network, ' +
        'prepared and signed again, takes its place. Each network outcome is also an event ' +
        '(`key_rotation.network_completed`, `key_rotation.network_failed`, `key_rotation.network_stalled`).',
      params: S.TaskParams,
      responses: {
        200: {
          description: 'Key rotation task',
          schema: S.KeyRotationTaskView,
          headers: {
            'retry-after': {
              description: 'Recommended polling interval in seconds (>= 1)',
              schema: S.RetryAfterSeconds,
            },
          },
        },
        404: { description: 'No such task for this user' },
      },
      handler: async ({ params, user }) => {
        const { body, pollSeconds } = await rotations.view(user.userId, params.taskId);
        return { status: 200, body, headers: { 'retry-after': String(pollSeconds) } };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/keys/rotate/:taskId/networks/:networkId/retry',
      operationId: 'retryKeyRotationNetwork',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Retry one network of a key rotation whose failure was retryable; the other networks are not touched',
      description:
        'For a network whose rotation `failed` with `retryable: true` (its RPC stayed down through the worker ' +
        'retries, for instance): the operation signed at execute is submitted again, so nothing is signed anew, ' +
        'and the task is `processing` until that network settles (poll GET /v1/wallet/keys/rotate/{taskId}). ' +
        'Accepted within KEY_ROTATION_RETRY_WINDOW_SECONDS (7 days) of the task settling and for at most 10 ' +
        'attempts per network; after that, or for a network that did not fail retryably, 409 (`task-closed`, ' +
        '`network-not-retryable`).',
      params: S.TaskNetworkParams,
      responses: {
        202: { description: 'Retry started', schema: S.RotateAccepted, headers: LOCATION_HEADER },
        404: { description: 'No such task for this user' },
        409: { description: 'The network is not failed-and-retryable, or the task is closed' },
      },
      handler: async ({ params, user }) => {
        await rotations.retry(user.userId, params.taskId, params.networkId);
        return accepted(params.taskId);
      },
    }),
  ];
}
