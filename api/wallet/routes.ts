import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import type { DeploymentService } from './deploy-service';
import type { GasSponsorships } from '../common/gas-sponsorship';
import * as S from './schemas';

const TAGS = ['Wallet'];

/** Smart-account deployment (prepare, execute with the signed slots, the job's status) and the sponsored-gas budget. */
export function walletRoutes({
  deployments,
  gas,
}: {
  deployments: DeploymentService;
  gas: GasSponsorships;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/deploy/prepare',
      operationId: 'prepareDeploy',
      stepUp: {
        action: 'owner_set',
        does: 'name the owner key of your accounts',
        binds: ({ body }) => ({ owner_address: body.ownerAddress ?? null }),
        anyOf: [['pin'], ['passkey'], ['identity', 'id_card']],
        checkedBy:
          'the deployment service, on the prepare that names the owner key for the first time (later ones name the same key or none)',
        hold: true,
        notice: null,
      },
      screens: 'deploy',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Prepare smart-account deployment: the user operation to sign (the account address is known from here on)',
      description:
        'The first prepare names the owner key of every account of the user (`ownerAddress`), so the access token alone cannot: send `pin` bound to ' +
        '`{"action":"owner_set","owner_address":"<ownerAddress as sent>"}`, a `passkeyAssertion`, or an `identityCheckId` for that request. Later prepares name the same key or none.',
      params: S.NetworkParams,
      body: S.DeployPrepareBody,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      // Optional: a retry of a first prepare whose answer was lost presents its PIN approval again under the same key.
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many prepares (Retry-After)' },
        200: { description: 'Signing container', schema: S.SigningContainer },
        404: { description: 'Unknown network' },
        409: { description: 'Account already deployed, or another owner key' },
        422: {
          description:
            "ownerAddress needed on the first prepare, no proof with a first ownerAddress (step-up-required) or one that does not verify, or the day's gas budget would be exceeded (gas-budget-exceeded)",
        },
        503: { description: "No price of the network's coin in won, so gas cannot be sponsored" },
      },
      handler: async ({ params, body, user, stepUp }) => ({
        status: 200,
        body: await deployments.prepare(user.userId, params.networkId, body.ownerAddress, stepUp!),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/deploy',
      operationId: 'executeDeploy',
      stepUp: {
        action: 'deploy',
        does: 'deploy an account',
        anyOf: [['owner_key']],
        checkedBy: 'the service against the prepared operation, then the chain',
        hold: false,
        notice: { event: 'deploy.completed', mailed: false },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Execute smart-account deployment with the signed slots (asynchronous: 202 and a job to poll)',
      description:
        'Send the slots of the prepare answer, signed (the on-chain one by the owner key, raw over its `payload`; ' +
        'the passkey slot when the person has passkeys), within DEPLOY_PREPARE_TTL_SECONDS of the prepare; the ' +
        'workflow deploy-<userId>-<networkId>-<jobId> hands the operation to the bundler of the network. Poll GET ' +
        '/v1/wallet/deploy-jobs/{jobId} (the Location) until completed (`deploy.completed`) or failed. The same ' +
        'signed slot sent again is accepted and starts nothing new; another signature of a used slot is refused ' +
        '(409).',
      params: S.NetworkParams,
      body: S.DeployExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Job accepted', schema: S.DeployAccepted, headers: LOCATION_HEADER },
        404: { description: 'Unknown network or slot' },
        409: { description: 'Slot already used' },
        410: { description: 'Prepared operation expired; prepare again' },
        422: { description: 'Signature invalid, or slots that do not match what was prepared' },
      },
      handler: async ({ params, body, user }) => {
        const jobId = await deployments.execute(user.userId, params.networkId, body.signing.items);
        return {
          status: 202,
          body: { jobId, status: 'submitted' },
          headers: { location: `/v1/wallet/deploy-jobs/${jobId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/wallet/deploy-jobs/:jobId',
      operationId: 'getDeployJob',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Status of a deployment job',
      description:
        '`status` is submitted until the operation lands (completed: the account is deployed, `txHash` is the ' +
        'bundle transaction) or is refused (failed; `error` says why). While stalled (`stallReason` fees-rose) the ' +
        'network asks more than the fee cap the owner signed: it may still land, or prepare and sign the ' +
        'deployment again, and this job then ends replaced (`replacedBy`). On DID_NETWORK_ID, completion also ' +
        'issues a KycCredential naming the did:ethr of the account.',
      params: S.DeployJobParams,
      responses: {
        200: { description: 'Job status', schema: S.DeployJobStatus },
        404: { description: 'No such job for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await deployments.job(user.userId, params.jobId) }),
    }),

    defineRoute({
      method: 'get',
      path: '/v1/wallet/gas-budget',
      operationId: 'getGasBudget',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Gas the service sponsors for you today (every operation it pays gas for: deployments, transfers, keys...), in won',
      description:
        'Per user and Korean day: GAS_BUDGET_DAILY_KRW at the rate of the price feed, reset at 00:00 KST ' +
        '(`resetsAt`), for every sponsored operation (deployments, account upgrades, recovery cancellations, ' +
        'transfer-key changes, key rotations, DID keys, EVM transfers). `usedTodayKrw` counts each at its most ' +
        'until the chain says what it cost, and nothing for one that expired without landing; a prepare or ' +
        'transfer that needs more than is left answers 422 gas-budget-exceeded.',
      responses: { 200: { description: 'Budget, used today and when it resets', schema: S.GasBudget } },
      handler: async ({ user }) => ({ status: 200, body: await gas.budget(user.userId) }),
    }),
  ];
}
