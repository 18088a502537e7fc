import { defineRoute, type RouteSpec, type RouteResult, LOCATION_HEADER } from '../http/route-table';
import type { RecoveryService } from './recovery-service';
import { problems } from '../http/problems';
import * as S from './recovery-schemas';
import { clock } from '../../platform/clock';

const TAGS = ['Recovery'];
const SIGNED = {
  404: { description: 'Unknown network or slot' },
  409: { description: 'Slot already used, or no deployed account' },
  410: { description: 'Prepared operation expired; prepare again' },
  422: { description: 'Signature invalid, or slots that do not match what was prepared' },
};

/** Seconds until the last network's executeAfter, for Retry-After while a recovery waits. */
const retryAfter = (status: Awaited<ReturnType<RecoveryService['status']>>): Record<string, string> => {
  if (!['scheduling', 'scheduled'].includes(status.status)) return {};
  const latest = Math.max(0, ...status.networks.map((n) => (n.executeAfter ? Date.parse(n.executeAfter) : 0)));
  return { 'retry-after': String(Math.max(1, Math.ceil((latest - clock.now()) / 1000))) };
};

/**
 * Recovery of the owner key when the wallet backup is gone: the account's upgrade to the recoverable implementation
 * (per network, owner-signed), the recovery itself (a new owner after a delay), and the owner's cancellation.
 */
export function recoveryRoutes({ recoveries }: { recoveries: RecoveryService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/wallet/networks/:networkId/recovery',
      operationId: 'getRecoverySettings',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Whether the account on this network can be recovered, its delay, and a pending recovery, read from the chain',
      description:
        'Read from the account contract on each call. `recoverable` is true once the owner-signed upgrade has run ' +
        '(while `upgradeAvailable`, start it with POST …/upgrade/prepare), and `pendingOwner` and `executeAfter` ' +
        'show a recovery scheduled there. Answers 409 where the account is not deployed, and for SOLANA, whose ' +
        'wallet the service holds (it comes back with a sign-in).',
      params: S.NetworkParams,
      responses: {
        200: { description: 'Recovery on chain', schema: S.RecoveryView },
        404: { description: 'Unknown network' },
        409: { description: 'No deployed account, or a network without smart accounts' },
      },
      handler: async ({ user, params }) => ({
        status: 200,
        body: await recoveries.view(user.userId, params.networkId),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/upgrade/prepare',
      operationId: 'prepareAccountUpgrade',
      tags: TAGS,
      auth: 'bearer',
      stepUp: { action: 'account_upgrade', does: 'upgrade the account', anyOf: [], hold: true, notice: null },
      summary:
        'Prepare the owner-signed upgrade of the account to the recoverable implementation (same address, balances, keys and caps)',
      description:
        'Once per network, while the owner key is at hand: the upgrade names the service recovery key ' +
        '(RECOVERY_ADDRESS) and RECOVERY_DELAY_SECONDS, and that key can then only schedule a new owner and make ' +
        'it the owner after the delay, unless the owner cancels. Answers one slot for the owner key to sign (its ' +
        '`payload` is the userOpHash), and a passkey slot when the person has passkeys, for POST …/upgrade within ' +
        'DEPLOY_PREPARE_TTL_SECONDS. Gas is sponsored within the daily budget; a device in its new-device hold is ' +
        'refused.',
      params: S.NetworkParams,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Signing container (the owner signs the userOpHash)', schema: S.SigningContainerRef },
        404: { description: 'Unknown network' },
        409: { description: 'No deployed account, already upgraded, or no recoverable implementation on this network' },
        422: { description: 'The gas budget would be exceeded' },
        429: { description: 'Too many prepares (Retry-After)' },
      },
      handler: async ({ user, params }) => ({
        status: 200,
        body: await recoveries.prepareUpgrade(user.userId, params.networkId),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/wallet/networks/:networkId/upgrade',
      operationId: 'executeAccountUpgrade',
      tags: TAGS,
      auth: 'bearer',
      stepUp: {
        action: 'account_upgrade',
        does: 'upgrade the account',
        anyOf: [['owner_key']],
        checkedBy: 'the service against the prepared operation, then the chain',
        hold: true,
        notice: { event: 'account_upgrade.completed', mailed: false },
      },
      summary:
        'Execute the prepared upgrade with the signed slot (asynchronous: 202 and an operation to poll); writes account_upgrade.completed',
      description:
        'Send the slots of the prepare answer, signed (the on-chain one by the owner key, the passkey slot when ' +
        'there is one); the workflow account-upgrade-<opId> hands the operation to the bundler of the network. ' +
        'Poll GET /v1/wallet/operations/{opId} (the Location) until completed or failed; GET …/recovery then shows ' +
        '`recoverable`. The same signed slot sent again is accepted and starts nothing new; a device in its ' +
        'new-device hold is refused.',
      params: S.NetworkParams,
      body: S.SignedSlotsBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: { 202: { description: 'Accepted', schema: S.OperationAccepted, headers: LOCATION_HEADER }, ...SIGNED },
      handler: async ({ user, params, body }) => {
        const opId = await recoveries.executeUpgrade(user.userId, params.networkId, body.signing.items);
        return {
          status: 202,
          body: { opId, status: 'submitted' },
          headers: { location: `/v1/wallet/operations/${opId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/wallet/operations/:accountOpId',
      operationId: 'getRecoveryOperation',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Status of an account upgrade (upg_…) or a recovery cancellation (rcx_…)',
      description:
        'Poll it after POST …/upgrade or …/cancel (their Location): `status` is submitted until the operation ' +
        'lands (completed; `txHash` is the bundle transaction) or is refused (failed; `error` says why). While ' +
        'stalled (`stallReason` fees-rose) the network asks more than the fee cap the owner signed: it may still ' +
        'land, or prepare and sign it again, and this one then ends replaced (`replacedBy`).',
      params: S.OperationParams,
      responses: {
        200: { description: 'Operation status', schema: S.OperationStatus },
        404: { description: 'No such operation for this user' },
      },
      handler: async ({ user, params }) => ({
        status: 200,
        body: await recoveries.operationStatus(user.userId, params.accountOpId),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/recovery',
      operationId: 'startRecovery',
      tags: TAGS,
      auth: 'bearer',
      stepUp: {
        action: 'recovery_start',
        does: 'start a recovery of the owner key',
        binds: ({ body }) => ({ new_owner_address: body.newOwnerAddress }),
        anyOf: [['identity', 'id_card']],
        hold: true,
        notice: { event: 'recovery.scheduled', mailed: true },
      },
      screens: 'recovery',
      summary:
        'Recover the owner key (the backup is gone): a new owner on every network where the account is deployed, after the delay',
      description:
        'Workflow account-recovery-<recoveryId>: the recovery key schedules the new owner on each network where the account is recoverable, ' +
        'the person is mailed and `recovery.scheduled` written; after RECOVERY_DELAY_SECONDS (chain time) it executes, writing `recovery.executed` per network, ' +
        'unless the owner cancels (POST …/networks/{networkId}/cancel, or cancelRecovery on chain): `recovery.cancelled`. ' +
        'The access token alone cannot ask (a thief would schedule their own key): send `identityCheckId`, an identity check for ' +
        '`{"action":"recovery_start","new_owner_address":"<newOwnerAddress as sent>"}` proved with the ID card verified at registration (POST /v1/auth/identity-checks, then …/id-card), ' +
        'from a device past its new-device hold. The new owner is screened against sanctions lists as a transfer recipient is; after a cancellation a new recovery waits RECOVERY_COOLDOWN_SECONDS. ' +
        'The person is told at every address they have (the replaced one too, while an email change can be undone).',
      headers: S.IdempotentHeaders,
      body: S.StartRecoveryBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Scheduling (poll the status)', schema: S.RecoveryStatus, headers: LOCATION_HEADER },
        409: {
          description:
            'No deployed account, a recovery in progress, a recovery cancelled too recently (recovery-cooling-down, Retry-After), or the identity check not verified or used',
        },
        422: {
          description:
            'No identity check with the ID card (step-up-required, identity-check-needs-id-card), the new owner is the current owner, its checksum is wrong, or it is on a sanctions list (recipient-sanctioned)',
        },
        503: {
          description: 'The new owner could not be screened now (screening-unavailable), or a dependency is down',
        },
      },
      handler: async ({ user, body }): Promise<RouteResult> => {
        const status = await recoveries.start(user.userId, user.deviceId, body.newOwnerAddress);
        return {
          status: 202,
          body: status,
          headers: { location: `/v1/account/recovery/${status.recoveryId}`, ...retryAfter(status) },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/account/recovery/:recoveryId',
      operationId: 'getRecovery',
      tags: TAGS,
      auth: 'bearer',
      summary: "A recovery's state on each network and when it executes (Retry-After while it waits)",
      description:
        'Poll it after POST /v1/account/recovery: `status` is scheduling, then scheduled (each network with its ' +
        '`executeAfter`), and ends executed, cancelled, partial (executed on some networks only) or failed; a ' +
        'network where the account was not upgraded shows not_recoverable. While it waits, Retry-After says when ' +
        'to look again (the last `executeAfter`); to stop it, the current owner cancels on each scheduled network ' +
        '(POST …/networks/{networkId}/cancel/prepare, then …/cancel).',
      params: S.RecoveryParams,
      responses: {
        200: { description: 'Recovery', schema: S.RecoveryStatus },
        404: { description: 'No such recovery of yours' },
      },
      handler: async ({ user, params }): Promise<RouteResult> => {
        const status = await recoveries.status(user.userId, params.recoveryId);
        return { status: 200, body: status, headers: retryAfter(status) };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/recovery/:recoveryId/networks/:networkId/cancel/prepare',
      operationId: 'prepareRecoveryCancel',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Prepare the owner-signed cancellation of a recovery on one network (signed with the current owner key)',
      description:
        'For an owner who did not ask for the recovery, only while it is scheduled on that network (409 ' +
        'recovery-not-pending otherwise). Answers one slot for the current owner key (the key the recovery would ' +
        'replace), and a passkey slot when the person has passkeys, for POST …/cancel within ' +
        'DEPLOY_PREPARE_TTL_SECONDS. A device in its new-device hold may cancel; gas is sponsored within the daily ' +
        'budget, and the owner can also call cancelRecovery() on the account directly.',
      params: S.RecoveryNetworkParams,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        200: {
          description: 'Signing container (the current owner signs the userOpHash)',
          schema: S.SigningContainerRef,
        },
        404: { description: 'No such recovery of yours on that network' },
        409: { description: 'Nothing to cancel there (not scheduled)' },
        422: { description: 'The gas budget would be exceeded' },
        429: { description: 'Too many prepares (Retry-After)' },
      },
      handler: async ({ user, params }) => ({
        status: 200,
        body: await recoveries.prepareCancel(user.userId, params.recoveryId, params.networkId),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/recovery/:recoveryId/networks/:networkId/cancel',
      operationId: 'executeRecoveryCancel',
      stepUp: {
        action: 'recovery_cancel',
        does: 'cancel a recovery',
        anyOf: [['owner_key']],
        checkedBy: 'the service against the prepared cancellation, then the chain',
        hold: false,
        notice: { event: 'recovery.cancelled', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Cancel the recovery on one network with the signed slot (asynchronous: 202; the recovery then ends cancelled there)',
      description:
        'Send the slots of the prepare answer, the on-chain one signed by the current owner key; the workflow ' +
        'recovery-cancel-<opId> submits it (poll GET /v1/wallet/operations/{opId}), and once it lands the network ' +
        'shows cancelled in GET /v1/account/recovery/{recoveryId} (`recovery.cancelled`). Cancel on every network ' +
        'where the recovery is scheduled, or it executes there; after a cancellation, a new recovery waits ' +
        'RECOVERY_COOLDOWN_SECONDS.',
      params: S.RecoveryNetworkParams,
      body: S.CancelBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Accepted', schema: S.OperationAccepted, headers: LOCATION_HEADER },
        ...SIGNED,
        400: { description: 'signing is missing or malformed' },
      },
      handler: async ({ user, params, body }) => {
        await recoveries.status(user.userId, params.recoveryId);
        if (!body.signing)
          throw problems.validation([
            { in: 'body', pointer: '/signing', detail: 'signing (the signed slot of the cancellation) is required' },
          ]);
        const opId = await recoveries.executeCancel(
          user.userId,
          params.recoveryId,
          params.networkId,
          body.signing.items,
        );
        return {
          status: 202,
          body: { opId, status: 'submitted' },
          headers: { location: `/v1/wallet/operations/${opId}` },
        };
      },
    }),
  ];
}
