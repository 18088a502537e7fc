import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import type { StepUpRequest } from '../http/step-up';
import type { IdentityChecks } from './identity-checks';
import { ID_CARD_PROOF_REFUSALS, idCardProofMultipart } from './sign-in-routes';
import * as S from './identity-check-schemas';

const TAGS = ['Identity checks'];
const ERRORS = {
  404: { description: 'No such identity check of yours made on this device' },
  409: { description: 'The check is not in progress, or a concurrent request with the same Idempotency-Key' },
  429: { description: 'Too many checks or ID cards for this person (Retry-After)' },
};

/**
 * Step-up identity checks: on a signed-in device, the person verifies again with the identity provider (and shows
 * the ID card where the request can lose the account) to approve one sensitive request an access token alone cannot
 * (docs/security.md lists which). The same process as a new device's sign-in (workflow sign-in-<identityCheckId>).
 */
export function identityCheckRoutes({
  checks,
  uploadMaxBytes,
}: {
  checks: IdentityChecks;
  uploadMaxBytes: number;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/identity-checks',
      operationId: 'startIdentityCheck',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Start an identity check for one request, with the pass token of an identity verification just done on this device',
      description:
        'The verification must be of the account holder (the CI verified at registration) and have come back within STEP_UP_IDENTITY_SECONDS. ' +
        '`request` is the request the check approves, exactly as its PIN would name it (docs/security.md). A request that can lose the account ' +
        '(pin_reset, recovery_start) needs the ID card too: `proofs` is ["id_card"] and the check is verified once POST …/id-card accepts the card; otherwise it is verified at once. ' +
        'Refusals: identity-mismatch (another person), identity-check-stale (verify again), pass-token-used, invalid-pass-token.',
      headers: S.IdempotentHeaders,
      body: S.StartIdentityCheckBody,
      rateLimits: [{ rule: 'identity-check', key: ({ user }) => user.userId }],
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Started (or verified at once)', schema: S.IdentityCheckView, headers: LOCATION_HEADER },
        401: { description: 'Invalid or expired pass token' },
        409: {
          description:
            'The identity result has not arrived yet (retry after Retry-After), or this verification was used already (pass-token-used)',
        },
        422: {
          description:
            'Another person verified (identity-mismatch), a verification too old (identity-check-stale), failed, an action no request takes an identity check for (step-up-action-unknown), or no ID card on file for a request that needs it',
        },
        429: { description: 'Too many identity checks (Retry-After)' },
      },
      handler: async ({ user, body }) => {
        const request = body.request as StepUpRequest;
        const check = await checks.start(user, body.passToken, request);
        return {
          status: 201,
          body: check,
          headers: { location: `/v1/auth/identity-checks/${check.identityCheckId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/auth/identity-checks/:identityCheckId',
      operationId: 'getIdentityCheck',
      tags: TAGS,
      auth: 'bearer',
      summary: "An identity check's status, the request it approves, and until when",
      description:
        'Only the device that started the check can read it (404 otherwise). While it is in_progress, `proofs` ' +
        'lists what is still to give (the ID card: POST …/id-card); once verified, send `identityCheckId` once ' +
        'with the request named in `request`, before `expiresAt` (STEP_UP_IDENTITY_SECONDS after verification) and ' +
        'within twice that of the start of the check; a check used, failed or expired approves nothing: start a ' +
        'new one.',
      params: S.IdentityCheckParams,
      responses: { 200: { description: 'The check', schema: S.IdentityCheckView }, ...ERRORS },
      handler: async ({ user, params }) => ({ status: 200, body: await checks.status(user, params.identityCheckId) }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/identity-checks/:identityCheckId/id-card',
      operationId: 'proveIdentityCheckWithIdCard',
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Prove an identity check with the ID card verified at registration (read, compared, checked with the issuing authority)',
      description:
        'As a sign-in by ID card: the card must read as the verified person, show the number kept at registration, and be valid and current at the issuing authority. ' +
        'Refusals: id-card-unreadable, id-card-mismatch, id-card-invalid, each with attemptsLeft; the last failed attempt fails the check (sign-in-failed).',
      params: S.IdentityCheckParams,
      headers: S.IdempotentHeaders,
      multipart: idCardProofMultipart(uploadMaxBytes),
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Verified: send identityCheckId with its request', schema: S.IdentityCheckView },
        ...ERRORS,
        ...ID_CARD_PROOF_REFUSALS,
      },
      handler: async ({ user, params, body, file }, ctx) => ({
        status: 200,
        body: await checks.proveWithIdCard(
          user,
          params.identityCheckId,
          file!,
          (body as { idCardType: string }).idCardType,
          ctx.get('idempotency-key'),
        ),
      }),
    }),
  ];
}
