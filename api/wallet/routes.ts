import { randomUUID } from 'node:crypto';
import { evmAddress } from '../common/addresses';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { DeployJobEntity, SmartAccountEntity } from '../../db/entities';
import type { NetworkRegistry } from '../../platform/networks';
import { buildDeployOperation, counterfactualAddress, isDeployed, serializeOperation, type ChainProviders } from '../../integrations/evm/smart-account';
import { userOperationHash } from '../../integrations/evm/user-operation';
import type { CustodyKeys } from '../common/custody';
import type { Passkeys } from '../passkeys/service';
import { deployWorkflow } from '../../workflows/deploy';
import { deployWorkflowId } from '../../workflows/messages';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from './schemas';
import { executeSingleOperation, preparedSlots } from '../common/signed-operation';

export interface WalletRouteDeps { orm: Orm; temporal: Client; networks: NetworkRegistry; providers: ChainProviders; taskQueue: string; prepareTtlSeconds: number; passkeys: Passkeys;
  custody: CustodyKeys;
}

const TAGS = ['Wallet'];

export function walletRoutes(deps: WalletRouteDeps): RouteSpec[] {
  const { orm, networks, providers } = deps;
  const networkOr404 = (networkId: string) => {
    const network = networks.get(networkId);
    if (!network && networks.solana(networkId)) {
      throw problems.conflict('no-smart-accounts', `${networkId} has no smart accounts here; open your wallet with POST /v1/wallet/networks/${networkId}/wallet`);
    }
    if (!network) throw problems.unknownNetwork(networkId, networks.ids());
    return network;
  };

  return [
    defineRoute({
      method: 'post', path: '/v1/wallet/networks/:networkId/deploy/prepare', operationId: 'prepareDeploy', tags: TAGS, auth: 'bearer',
      summary: 'Prepare smart-account deployment: the user operation to sign (the account address is known from here on)',
      params: S.NetworkParams, body: S.DeployPrepareBody,
      responses: {
        200: { description: 'Signing container', schema: S.SigningContainer },
        404: { description: 'Unknown network' }, 409: { description: 'Account already deployed, or another owner key' },
        422: { description: 'ownerAddress needed on the first prepare' },
      },
      handler: async ({ params, body, user }) => {
        const network = networkOr404(params.networkId);
        const em = orm.em.fork();
        const known = await em.find(SmartAccountEntity, { userId: user!.userId }, { limit: 1 });
        const owner = body.ownerAddress ? evmAddress(body.ownerAddress) : known[0]?.ownerAddress;
        if (!owner) throw problems.unprocessable('owner-address-required', 'Send ownerAddress (the address of your wallet key) on the first prepare');
        if (known[0] && known[0].ownerAddress !== owner) throw problems.conflict('owner-mismatch', 'Your accounts are owned by another key; rotate keys instead');
        const provider = providers.for(network);
        const address = await counterfactualAddress(provider, network, owner);
        const existing = await em.findOne(SmartAccountEntity, { userId: user!.userId, networkId: network.networkId });
        if (existing?.status === 'deployed' || (await isDeployed(provider, address))) {
          throw problems.conflict('account-already-deployed', `The account ${address} already exists on ${network.networkId}`);
        }
        const transferSigner = await deps.custody.transferKeyAddress(user!.userId);
        const operation = await buildDeployOperation(provider, network, owner, transferSigner);
        const userOpHash = userOperationHash(operation, network.chainId, network.entryPoint);
        const jobId = `dep_${randomUUID()}`;
        if (!existing) em.create(SmartAccountEntity, { userId: user!.userId, networkId: network.networkId, address, ownerAddress: owner, status: 'counterfactual' });
        em.create(DeployJobEntity, {
          jobId, userId: user!.userId, networkId: network.networkId, accountAddress: address, ownerAddress: owner,
          userOperation: serializeOperation(operation), userOpHash, status: 'prepared',
          expiresAt: new Date(Date.now() + deps.prepareTtlSeconds * 1000),
        });
        await em.flush();
        return {
          status: 200,
          body: {
            description: `Deploy smart account ${address} on ${network.networkId}, authorizing the service key ${transferSigner} for PIN-confirmed transfers only`,
            items: await preparedSlots(deps.passkeys, user!.userId, {
              id: jobId, owner, network, domain: { accountAddress: address, transferSigner }, userOpHash,
            }),
          },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/wallet/networks/:networkId/deploy', operationId: 'executeDeploy', tags: TAGS, auth: 'bearer',
      summary: 'Execute smart-account deployment with the signed slots (asynchronous: 202 and a job to poll)',
      params: S.NetworkParams, body: S.DeployExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        202: { description: 'Job accepted', schema: S.DeployAccepted },
        404: { description: 'Unknown network or slot' }, 409: { description: 'Slot already used' },
        410: { description: 'Prepared operation expired; prepare again' },
        422: { description: 'Signature invalid, or slots that do not match what was prepared' },
      },
      handler: async ({ params, body, user }) => {
        const network = networkOr404(params.networkId);
        const userId = user!.userId;
        const job = await executeSingleOperation({ orm, passkeys: deps.passkeys }, userId, body.signing.items, {
          what: 'deployment', entity: DeployJobEntity, where: (jobId) => ({ jobId }),
          load: async (jobId) => {
            const row = await orm.em.fork().findOne(DeployJobEntity, { jobId, userId, networkId: network.networkId });
            return row && { ...row, id: row.jobId };
          },
          start: ({ id }) => deps.temporal.workflow.start(deployWorkflow, {
            workflowId: deployWorkflowId(userId, network.networkId, id), taskQueue: deps.taskQueue,
            args: [{ jobId: id, userId, networkId: network.networkId }], workflowIdReusePolicy: 'REJECT_DUPLICATE',
          }),
        });
        return { status: 202, body: { jobId: job.id, status: 'submitted' }, headers: { location: `/v1/wallet/deploy-jobs/${job.id}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/wallet/deploy-jobs/:jobId', operationId: 'getDeployJob', tags: TAGS, auth: 'bearer',
      summary: 'Status of a deployment job',
      params: S.DeployJobParams,
      responses: { 200: { description: 'Job status', schema: S.DeployJobStatus }, 404: { description: 'No such job for this user' } },
      handler: async ({ params, user }) => {
        const job = await orm.em.fork().findOne(DeployJobEntity, { jobId: params.jobId, userId: user!.userId });
        if (!job) throw problems.notFound(`Deploy job ${params.jobId}`);
        return {
          status: 200,
          body: {
            jobId: job.jobId, networkId: job.networkId, status: job.status, accountAddress: job.accountAddress,
            txHash: job.txHash ?? null, error: job.error ?? null, updatedAt: job.updatedAt.toISOString(),
          },
        };
      },
    }),
  ];
}
