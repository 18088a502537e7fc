import { defineRoute, type RouteSpec } from '../http/route-table';
import type { TransferKeyService } from './transfer-key-service';
import * as S from './schemas';

const TAGS = ['Wallet'];

/** The owner's control of the service's transfer key on an account: its bounds on chain, and owner-signed changes. */
export function transferKeyRoutes({ transferKeys }: { transferKeys: TransferKeyService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/wallet/networks/:networkId/transfer-key',
      operationId: 'getTransferKey',
      tags: TAGS,
      auth: 'bearer',
      summary:
        "What the account lets the service's transfer key do, read from the chain: the key, its expiry, each token's daily cap and what it sent today",
      params: S.NetworkParams,
      responses: {
        200: { description: 'The grant on chain', schema: S.TransferKeyView },
        404: { description: 'Unknown network' },
        409: { description: 'No deployed account on the network, or a network without smart accounts (SOLANA)' },
      },
      handler: async ({ params, user }) => ({
        status: 200,
        body: await transferKeys.view(user.userId, params.networkId),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/transfer-key/prepare',
      operationId: 'prepareTransferKeyChange',
      stepUp: { action: 'transfer_key', does: 'change transfer keys', anyOf: [], hold: true, notice: null },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Prepare an owner-signed change of the transfer key: renew, rotate (a new service key), revoke, or set daily caps',
      params: S.NetworkParams,
      body: S.TransferKeyPrepareBody,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        200: {
          description: 'Signing container (the owner signs the userOpHash; a passkey slot when you have passkeys)',
          schema: S.SigningContainer,
        },
        404: { description: 'Unknown network' },
        409: { description: 'No deployed account, no key to re-cap, or a network without smart accounts' },
        422: {
          description:
            'Unknown token, bad cap, validForSeconds out of range or not for this action, or the gas budget would be exceeded',
        },
        429: { description: 'Too many prepares (Retry-After)' },
        503: { description: 'No price of the coin in won, so gas cannot be sponsored' },
      },
      handler: async ({ params, body, user }) => ({
        status: 200,
        body: await transferKeys.prepare(user.userId, params.networkId, body),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/transfer-key',
      operationId: 'executeTransferKeyChange',
      stepUp: {
        action: 'transfer_key',
        does: 'change transfer keys',
        anyOf: [['owner_key']],
        checkedBy: 'the service against the prepared operation, then the chain',
        hold: true,
        notice: { event: 'transfer_key.completed', mailed: false },
      },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Execute a prepared transfer-key change with the signed slots (asynchronous: 202 and an operation to poll)',
      params: S.NetworkParams,
      body: S.TransferKeyExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Accepted', schema: S.TransferKeyAccepted },
        404: { description: 'Unknown network or slot' },
        409: { description: 'Slot already used, or no deployed account' },
        410: { description: 'Prepared operation expired; prepare again' },
        422: { description: 'Signature invalid, or slots that do not match what was prepared' },
      },
      handler: async ({ params, body, user }) => {
        const opId = await transferKeys.execute(user.userId, params.networkId, body.signing.items);
        return {
          status: 202,
          body: { opId, status: 'submitted' },
          headers: { location: `/v1/wallet/transfer-key-operations/${opId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/wallet/transfer-key-operations/:keyOpId',
      operationId: 'getTransferKeyOperation',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Status of a transfer-key change',
      params: S.TransferKeyOperationParams,
      responses: {
        200: { description: 'Operation status', schema: S.TransferKeyOperationStatus },
        404: { description: 'No such operation for this user' },
      },
      handler: async ({ params, user }) => ({
        status: 200,
        body: await transferKeys.status(user.userId, params.keyOpId),
      }),
    }),
  ];
}
