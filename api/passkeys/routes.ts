import type { Orm } from '../../db/orm';
import { UserEntity, type Passkey } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { Passkeys } from './service';
import type { StepUpActions } from '../common/step-up-actions';
import type { StepUpRequest } from '../http/step-up';
import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from './schemas';
import { nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

export interface PasskeyRouteDeps {
  orm: Orm;
  encryption: DataEncryption;
  passkeys: Passkeys;
  actions: StepUpActions;
}

const TAGS = ['Passkeys'];
export const STEP_UP_REFUSALS = {
  403: {
    description:
      'This device is in its new-device hold (device-on-hold), or the passkey that approved is still in its new-passkey hold (passkey-on-hold)',
  },
  404: { description: 'Unknown challenge or identity check' },
  409: { description: 'Challenge already used, no PIN set, or the approval (PIN, identity check) already used' },
  410: { description: 'Challenge or identity check expired' },
  422: {
    description:
      'No approval (step-up-required), a wrong PIN, or an approval that does not verify or names another request',
  },
  423: {
    description:
      'PIN locked after too many wrong PINs: for PIN_LOCK_SECONDS (pin-locked, Retry-After), or until a reset (pin-reset-required)',
  },
  429: { description: 'Too many requests (Retry-After)' },
};

export function passkeyRoutes({ orm, encryption, passkeys, actions }: PasskeyRouteDeps): RouteSpec[] {
  const view = (p: Passkey) => ({
    passkeyId: p.passkeyId,
    name: p.name,
    deviceType: p.deviceType,
    backedUp: p.backedUp,
    createdAt: p.createdAt.toISOString(),
    lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
    heldUntil: passkeys.heldUntil(p)?.toISOString() ?? null,
  });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/passkeys/registration/options',
      operationId: 'passkeyRegistrationOptions',
      // Options only: the enrolment that uses them needs the step-up.
      stepUp: { action: 'passkey_enrol', does: 'add a passkey', anyOf: [], hold: true, notice: null },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Start registering a passkey: WebAuthn creation options with a one-time challenge',
      description:
        'Pass `publicKey` to navigator.credentials.create() (relying party WEBAUTHN_RP_ID, user verification ' +
        'required, the passkeys already registered excluded), then send the result with `challengeId` to POST ' +
        '/v1/auth/passkeys, approved by the PIN or a passkey. The challenge is single use, for 5 minutes; an ' +
        'account holds at most 10 passkeys (409 too-many-passkeys), and a device in its new-device hold is refused ' +
        '(403 device-on-hold).',
      // Each stores a challenge: a number no person meets, so a token cannot fill the table.
      rateLimits: [{ rule: 'webauthn-challenge', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Creation options', schema: S.RegistrationOptionsResponse },
        409: { description: 'Too many passkeys' },
        429: { description: 'Too many challenges asked (webauthn-challenge, per user; Retry-After)' },
      },
      handler: async ({ user }) => {
        const found = await orm.em.fork().findOne(UserEntity, { id: user.userId });
        if (!found) throw problems.notFound('User');
        const name = encryption.openText(found.nameSealed, found.id);
        return {
          status: 200,
          body: await passkeys.registrationOptions({
            userId: found.id,
            userName: found.maskedPhone,
            displayName: name,
          }),
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/passkeys',
      operationId: 'registerPasskey',
      stepUp: {
        action: 'passkey_enrol',
        does: 'add a passkey',
        binds: ({ body }) => ({ challenge_id: body.challengeId }),
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'passkey.added', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Finish registering a passkey, approved by the PIN or an existing passkey; it then approves chain operations (2FA slots)',
      description:
        'The access token alone is not enough: send `pin` (bound to `{"action":"passkey_enrol","challenge_id":"<challengeId>"}`) or `passkeyAssertion` (from POST /v1/auth/passkeys/approvals/options with that request). The person is mailed and `passkey.added` is written. For NEW_PASSKEY_HOLD_SECONDS the new passkey cannot waive a recipient\'s cooling-off or approve a transfer above the passkey threshold (`heldUntil`).',
      body: S.RegisterPasskeyBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Passkey registered', schema: S.PasskeyView, headers: LOCATION_HEADER },
        ...STEP_UP_REFUSALS,
      },
      handler: async ({ user, body }) => {
        const { pin: _pin, passkeyAssertion: _assertion, ...registration } = body;
        const passkey = await passkeys.register(user.userId, registration);
        return { status: 201, body: view(passkey), headers: { location: `/v1/auth/passkeys/${passkey.passkeyId}` } };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/auth/passkeys',
      operationId: 'listPasskeys',
      tags: TAGS,
      auth: 'bearer',
      summary: "The caller's passkeys",
      description:
        'Oldest first, with `deviceType` (multiDevice: it may be synced to other devices of the person), ' +
        '`backedUp`, `lastUsedAt` and `heldUntil`: until then (NEW_PASSKEY_HOLD_SECONDS after it was added) a ' +
        'passkey approves no step-up, releases no device hold, waives no cooling-off and approves no transfer ' +
        'above the passkey threshold. Show it so the person can spot a passkey they did not add and remove it ' +
        '(POST /v1/auth/passkeys/{passkeyId}/remove).',
      query: S.PasskeyQuery,
      responses: {
        200: { description: 'Passkeys', schema: S.PasskeyList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ user, query }, ctx) => {
        const page = await passkeys.page(user.userId, query);
        return { status: 200, body: { ...page, items: page.items.map(view) }, headers: nextLink(ctx, page.nextCursor) };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/passkeys/:passkeyId/remove',
      operationId: 'removePasskey',
      stepUp: {
        action: 'passkey_remove',
        does: 'remove a passkey',
        binds: ({ params }) => ({ passkey_id: params.passkeyId }),
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'passkey.removed', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Remove a passkey, approved by the PIN or a passkey (the same proof as adding one)',
      description:
        'Send `pin` bound to `{"action":"passkey_remove","passkey_id":"<passkeyId>"}` or `passkeyAssertion`. The person is mailed and `passkey.removed` is written.',
      params: S.PasskeyParams,
      body: S.RemovePasskeyBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Removed', schema: S.PasskeyRemoved },
        ...STEP_UP_REFUSALS,
        404: { description: 'No such passkey of yours, or unknown challenge' },
      },
      handler: async ({ user, params }) => {
        await passkeys.remove(user.userId, params.passkeyId);
        return { status: 200, body: { passkeyId: params.passkeyId, removed: true as const } };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/passkeys/approvals/options',
      operationId: 'passkeyApprovalOptions',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'A one-time challenge for a passkey to approve one request: adding or removing a passkey, closing the account, signing out another device, …',
      description:
        'Answer it with navigator.credentials.get() and send the assertion as `passkeyAssertion: {challengeId, credential}` with that request. The actions a passkey approves, and what each binds, are in docs/security.md; a passkey added less than NEW_PASSKEY_HOLD_SECONDS ago approves none of them.',
      body: S.ApprovalOptionsBody,
      rateLimits: [{ rule: 'webauthn-challenge', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Request options', schema: S.ApprovalOptionsResponse },
        409: { description: 'You have no passkey (approve with the PIN)' },
        422: { description: 'No request takes a passkey for this action (step-up-action-unknown)' },
        429: { description: 'Too many challenges asked (webauthn-challenge, per user; Retry-After)' },
      },
      handler: async ({ user, body }) => {
        const request = body.request as StepUpRequest;
        actions.assertAccepts(request.action, 'passkey');
        return { status: 200, body: await passkeys.approvalOptions(user.userId, request) };
      },
    }),
  ];
}
