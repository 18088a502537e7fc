import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
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
      description:
        'Read from the account contract on each call. `signer` is the service key the account lets send capped ' +
        'transfers (null once revoked; `signerStatus` retired: a key the service replaced, which still signs here ' +
        'until this account is rotated), `expired` is true once `validUntil` has passed, and the caps count from ' +
        '00:00 KST (`capsResetAt`). The owner changes it with POST …/transfer-key/prepare, then …/transfer-key; ' +
        '409 where the account is not deployed, and for SOLANA.',
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
      description:
        'Answers one slot for the owner key of the account to sign (and a passkey slot when the person has ' +
        'passkeys); the grant on chain changes only once the signed slots are executed (POST …/transfer-key) ' +
        'within DEPLOY_PREPARE_TTL_SECONDS. A revoke stops every transfer by the service from this account until ' +
        'it is renewed or rotated; gas is sponsored within the daily budget, and a device in its new-device hold ' +
        'is refused.',
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
      description:
        'Send the slots of the prepare answer, the on-chain one signed by the owner key of the account (and the ' +
        'passkey slot when there is one); the workflow transfer-key-<opId> submits it. Poll GET ' +
        '/v1/wallet/transfer-key-operations/{opId} (the Location) until completed (`transfer_key.completed`; GET ' +
        '…/transfer-key shows the new grant) or failed. The same signed slot sent again is accepted and starts ' +
        'nothing new; a device in its new-device hold is refused.',
      params: S.NetworkParams,
      body: S.TransferKeyExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Accepted', schema: S.TransferKeyAccepted, headers: LOCATION_HEADER },
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
      description:
        '`action` and `signer` say what the change sets (`signer` is null for a revoke). `status` is submitted ' +
        'until the operation lands (completed; `txHash` is the bundle transaction) or is refused (failed; `error` ' +
        'says why). While stalled (`stallReason` fees-rose) the network asks more than the fee cap the owner ' +
        'signed: it may still land, or prepare and sign the change again, and this one then ends replaced ' +
        '(`replacedBy`).',
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
