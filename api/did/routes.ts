import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { DidKeyOperationEntity, SmartAccountEntity } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { buildCallOperation, serializeOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import { didOf, publicKeyBytes, setAttributeCallData } from '../../integrations/evm/did-registry';
import { didKeyWorkflow } from '../../workflows/did-key';
import { didKeyWorkflowId } from '../../workflows/messages';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import type { Passkeys } from '../passkeys/service';
import { executeSingleOperation, preparedSlots } from '../common/signed-operation';
import { SigningContainer } from '../wallet/schemas';
import * as S from './schemas';

export interface DidRouteDeps {
  orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; taskQueue: string;
  didNetworkId: string; keyValiditySeconds: number; prepareTtlSeconds: number; passkeys: Passkeys;
}

const TAGS = ['Decentralized identity'];

export function didRoutes(deps: DidRouteDeps): RouteSpec[] {
  const { orm } = deps;
  return [
    defineRoute({
      method: 'post', path: '/v1/did/keys/assertion/prepare', operationId: 'prepareAssertionKey', tags: TAGS, auth: 'bearer',
      summary: "Prepare adding an assertionMethod key to the user's did:ethr (a user operation of their account)",
      body: S.AssertionPrepareBody,
      responses: {
        200: { description: 'Signing container', schema: SigningContainer },
        409: { description: 'The account is not deployed on the DID network' }, 422: { description: 'Invalid public key' },
      },
      handler: async ({ body, user }) => {
        const network = deps.networks.get(deps.didNetworkId);
        if (!network) throw problems.unavailable(`The DID network ${deps.didNetworkId} is not configured`);
        const em = orm.em.fork();
        const account = await em.findOne(SmartAccountEntity, { userId: user!.userId, networkId: network.networkId, status: 'deployed' });
        if (!account) throw problems.conflict('account-not-deployed', `Deploy your account on ${network.networkId} first; your DID lives there`);
        const keyBytes = publicKeyBytes(body.keyType, body.publicKey);
        const operation = await buildCallOperation(
          deps.providers.for(network), network, account.address, network.didRegistry,
          setAttributeCallData(account.address, body.keyType, keyBytes, deps.keyValiditySeconds),
        );
        const userOpHash = userOperationHash(operation, network.chainId, network.entryPoint);
        const opId = `didop_${randomUUID()}`;
        const did = didOf(network, account.address);
        em.create(DidKeyOperationEntity, {
          opId, userId: user!.userId, networkId: network.networkId, did, keyType: body.keyType, publicKey: keyBytes,
          userOperation: serializeOperation(operation), userOpHash, status: 'prepared', expiresAt: new Date(Date.now() + deps.prepareTtlSeconds * 1000),
        });
        await em.flush();
        return {
          status: 200,
          body: {
            description: `Add ${body.keyType} as an assertionMethod key of ${did}`,
            items: await preparedSlots(deps.passkeys, user!.userId, {
              id: opId, owner: account.ownerAddress, network, domain: { did, accountAddress: account.address }, userOpHash,
            }),
          },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/did/keys/assertion', operationId: 'executeAssertionKey', tags: TAGS, auth: 'bearer',
      summary: 'Execute a prepared assertionMethod key addition with its signed slot (asynchronous)',
      body: S.AssertionExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        202: { description: 'Accepted', schema: S.AssertionAccepted },
        404: { description: 'Unknown slot' }, 409: { description: 'Slot already used' }, 410: { description: 'Prepared operation expired' },
        422: { description: 'Signature invalid, or slots that do not match what was prepared' },
      },
      handler: async ({ body, user }) => {
        const userId = user!.userId;
        const op = await executeSingleOperation({ orm, passkeys: deps.passkeys }, userId, body.signing.items, {
          what: 'DID key operation', entity: DidKeyOperationEntity, where: (opId) => ({ opId }),
          load: async (opId) => {
            const em = orm.em.fork();
            const row = await em.findOne(DidKeyOperationEntity, { opId, userId });
            // The account signs as its current owner (a rotation since prepare makes the old owner's signature useless).
            const account = row && await em.findOneOrFail(SmartAccountEntity, { userId, networkId: row.networkId });
            return row && account && { ...row, id: row.opId, ownerAddress: account.ownerAddress };
          },
          start: ({ id, networkId }) => deps.temporal.workflow.start(didKeyWorkflow, {
            workflowId: didKeyWorkflowId(id), taskQueue: deps.taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
            args: [{ opId: id, userId, networkId }],
          }),
        });
        return { status: 202, body: { opId: op.id, status: 'submitted' }, headers: { location: `/v1/did/keys/operations/${op.id}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/did/keys/operations/:opId', operationId: 'getDidKeyOperation', tags: TAGS, auth: 'bearer',
      summary: 'Status of a DID key operation',
      params: S.DidOperationParams,
      responses: { 200: { description: 'Status', schema: S.DidOperationStatus }, 404: { description: 'No such operation for this user' } },
      handler: async ({ params, user }) => {
        const op = await orm.em.fork().findOne(DidKeyOperationEntity, { opId: params.opId, userId: user!.userId });
        if (!op) throw problems.notFound(`DID key operation ${params.opId}`);
        return {
          status: 200,
          body: { opId: op.opId, did: op.did, keyType: op.keyType, status: op.status, txHash: op.txHash ?? null, error: op.error ?? null, updatedAt: op.updatedAt.toISOString() },
        };
      },
    }),
  ];
}
