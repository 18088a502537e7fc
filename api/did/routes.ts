import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { SigningContainer } from '../wallet/schemas';
import type { DidKeyService } from './service';
import * as S from './schemas';

const TAGS = ['Decentralized identity'];

/** assertionMethod keys of the user's did:ethr: prepare, execute with the signed slots, status. */
export function didRoutes({ keys }: { keys: DidKeyService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/did/keys/assertion/prepare',
      operationId: 'prepareAssertionKey',
      tags: TAGS,
      auth: 'bearer',
      summary: "Prepare adding an assertionMethod key to the user's did:ethr (a user operation of their account)",
      description:
        'The DID is the `did:ethr` of the smart account on DID_NETWORK_ID (ETHEREUM), so the account must be ' +
        'deployed there first (409 `account-not-deployed`). The owner key signs the `eip712-erc4337-userop-v1` ' +
        'slot (a user with a passkey also gets a passkey slot), and the signed slots go to POST ' +
        '/v1/did/keys/assertion within DEPLOY_PREPARE_TTL_SECONDS (600 s); the gas counts against the daily ' +
        'budget. The key is added with a validity of DID_KEY_VALIDITY_SECONDS (a year by default).',
      body: S.AssertionPrepareBody,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many prepares (Retry-After)' },
        200: { description: 'Signing container', schema: SigningContainer },
        409: { description: 'The account is not deployed on the DID network' },
        422: {
          description:
            "Invalid public key, or the day's sponsored gas would be exceeded (gas-budget-exceeded, with budgetKrw and resetsAt)",
        },
        503: { description: "No price of the network's coin in won, so gas cannot be sponsored (price-unavailable)" },
      },
      handler: async ({ body, user }) => ({ status: 200, body: await keys.prepare(user.userId, body) }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/did/keys/assertion',
      operationId: 'executeAssertionKey',
      stepUp: {
        action: 'did_key',
        does: 'add a key to your DID',
        anyOf: [['owner_key']],
        checkedBy: 'the service against the prepared operation, then the chain',
        hold: false,
        notice: { event: 'did_key.completed', mailed: false },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Execute a prepared assertionMethod key addition with its signed slot (asynchronous)',
      description:
        'Send back the slots of the prepare answer, `id` and `parameter` as received, each with ' +
        '`signature.authResponse`; the on-chain slot must be signed by the current owner, so after a key ' +
        'rotation prepare again. The 202 carries the `opId` and the `Location` of GET ' +
        '/v1/did/keys/operations/{opId}: the workflow did-key-<opId> submits the operation, and ' +
        '`did_key.completed` or `did_key.failed` follows. The same signed slot sent again answers the same ' +
        '`opId`.',
      body: S.AssertionExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Accepted', schema: S.AssertionAccepted, headers: LOCATION_HEADER },
        404: { description: 'Unknown slot' },
        409: { description: 'Slot already used' },
        410: { description: 'Prepared operation expired' },
        422: { description: 'Signature invalid, or slots that do not match what was prepared' },
      },
      handler: async ({ body, user }) => {
        const opId = await keys.execute(user.userId, body.signing.items);
        return {
          status: 202,
          body: { opId, status: 'submitted' },
          headers: { location: `/v1/did/keys/operations/${opId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/did/keys/operations/:opId',
      operationId: 'getDidKeyOperation',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Status of a DID key operation',
      description:
        'Poll it after POST /v1/did/keys/assertion until `status` is `completed` (with `txHash`) or `failed` ' +
        '(with `error`); no Retry-After is sent, and the events `did_key.completed` and `did_key.failed` say the ' +
        'same. `stalled` means the network fee rose above the cap of the operation: it may still land, or ' +
        'prepare the same key again and sign it, and the new operation takes its place (this one becomes ' +
        '`replaced`, `replacedBy` naming it).',
      params: S.DidOperationParams,
      responses: {
        200: { description: 'Status', schema: S.DidOperationStatus },
        404: { description: 'No such operation for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await keys.status(user.userId, params.opId) }),
    }),
  ];
}
