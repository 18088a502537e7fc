import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { ID_CARD_IMAGE_TYPES } from '../registration/routes';
import type { SignInService } from './sign-in-service';
import * as S from './sign-in-schemas';

const TAGS = ['Sign-in'];
const ERRORS = {
  401: { description: 'Pass token expired' },
  403: { description: 'X-Pass-Token does not belong to this sign-in' },
  404: { description: 'Unknown signInId' },
  409: {
    description:
      'The sign-in is not in progress (completed, failed, expired), or a concurrent request with the same Idempotency-Key',
  },
  429: { description: 'Too many attempts for this person (Retry-After)' },
};

/** How an ID-card proof (of a sign-in, or of a step-up identity check) is refused. */
export const ID_CARD_PROOF_REFUSALS = {
  413: { description: 'Image too large' },
  415: { description: 'Not a JPEG or PNG image' },
  422: { description: 'The card was refused (see type and attemptsLeft)' },
  503: {
    description: 'The OCR or the ID-card authenticity service is not answering (not counted as an attempt)',
  },
};

/** The multipart body of an ID-card proof (of a sign-in, or of a step-up identity check). */
export function idCardProofMultipart(uploadMaxBytes: number) {
  return {
    fields: S.IdCardProofFields,
    file: { field: 'idCardImage', maxBytes: uploadMaxBytes, contentTypes: ID_CARD_IMAGE_TYPES },
    documentAs: S.IdCardProofMultipart,
    example: {
      idCardImage: '(the photo of the ID card verified at registration: a JPEG or PNG file)',
      idCardType: 'resident_id',
    },
  };
}

/**
 * Sign-in on a new device: the person verifies again with the identity provider, then gives a second proof (a passkey
 * of the account, or the ID card verified at registration), then exchanges the sign-in for tokens
 * (POST /v1/auth/token, grantType "sign_in").
 */
export function signInRoutes({
  signIns,
  uploadMaxBytes,
}: {
  signIns: SignInService;
  uploadMaxBytes: number;
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/sign-in',
      operationId: 'startSignIn',
      tags: TAGS,
      auth: 'none',
      summary:
        'Start a sign-in on a new device with the pass token of a new identity verification; answers the second proofs the account can give',
      description:
        'For a person who has an account (the same CI). Then prove it: POST .../passkey (after .../passkey/options) or POST .../id-card; ' +
        'then POST /v1/auth/token with grantType "sign_in". A person without an account gets 404 not-registered.',
      headers: S.StartSignInHeaders,
      body: S.StartSignInBody,
      rateLimits: [
        { rule: 'sign-in-device', key: ({ headers }) => headers['x-device-id'].toLowerCase() },
        { rule: 'sign-in-address', key: (_input, ctx) => ctx.ip },
      ],
      idempotency: { required: true, scope: ({ headers }) => `device:${headers['x-device-id']}` },
      responses: {
        201: { description: 'Sign-in started', schema: S.StartSignInResponse, headers: LOCATION_HEADER },
        401: { description: 'Invalid or expired pass token' },
        404: { description: 'No account for the verified person (not-registered): register instead' },
        409: {
          description:
            'Identity result pending (retry after Retry-After), this sign-in was started from another device, or the verification was used for a sign-in already (pass-token-used)',
        },
        422: { description: 'Identity verification failed, or Idempotency-Key reused with another payload' },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ headers, body }) => {
        const { signInId, response } = await signIns.start(
          headers['x-device-id'],
          body.passToken,
          body.deviceLabel ?? null,
        );
        return { status: 201, body: response, headers: { location: `/v1/auth/sign-in/${signInId}` } };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/auth/sign-in/:signInId',
      operationId: 'getSignIn',
      tags: TAGS,
      auth: 'passToken',
      summary: "A sign-in's status",
      description:
        'Readable with the pass token of the sign-in until it expires: `status` is in_progress until a proof is ' +
        'accepted, then completed (`method` says which proof), failed (the last ID card attempt was refused) or ' +
        'expired (not proved within SIGN_IN_TTL_SECONDS): verify again to start a new one. Use it to resume an ' +
        'interrupted app: prove while in_progress, or exchange a completed sign-in for tokens once (POST ' +
        '/v1/auth/token, grantType "sign_in"; `tokensIssued` says whether that was done).',
      params: S.SignInParams,
      headers: S.PassTokenHeaders,
      responses: { 200: { description: 'Status', schema: S.SignInStatusResponse }, ...ERRORS },
      handler: async ({ params, headers }) => ({
        status: 200,
        body: await signIns.status(params.signInId, headers['x-pass-token']),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/sign-in/:signInId/passkey/options',
      operationId: 'signInPasskeyOptions',
      tags: TAGS,
      auth: 'passToken',
      summary: "A one-time challenge for one of the account's passkeys (navigator.credentials.get())",
      description:
        'For a sign-in whose `proofs` include passkey: pass `publicKey` to navigator.credentials.get() (it lists ' +
        'the passkeys of the account, user verification required) and send the assertion with `challengeId` to ' +
        'POST …/passkey. The challenge approves only this sign-in, once, within 5 minutes; an account without a ' +
        'passkey gets 409 no-passkey (prove with the ID card instead).',
      params: S.SignInParams,
      headers: S.PassTokenHeaders,
      responses: {
        200: { description: 'Request options', schema: S.PasskeyOptionsResponse },
        ...ERRORS,
        409: { description: 'The account has no passkey (prove with the ID card), or the sign-in is not in progress' },
        429: {
          description: "Too many challenges asked for the account (webauthn-challenge, the person's; Retry-After)",
        },
      },
      handler: async ({ params, headers }) => ({
        status: 200,
        body: await signIns.passkeyOptions(params.signInId, headers['x-pass-token']),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/sign-in/:signInId/passkey',
      operationId: 'proveSignInWithPasskey',
      tags: TAGS,
      auth: 'passToken',
      summary:
        "Prove the sign-in with one of the account's passkeys (no hold on the new device, unless the passkey is in its own new-passkey hold)",
      description:
        '`passkeyAssertion` is `{challengeId, credential}`: the challenge from POST …/passkey/options of this ' +
        'sign-in and the result of navigator.credentials.get(). A challenge is used once, even by an assertion ' +
        'that does not verify (ask for new options to try again), and every attempt counts towards the sign-in ' +
        'proofs of the person (10 a day) and of the address (60 an hour); then exchange the sign-in for tokens ' +
        'once (POST /v1/auth/token, grantType "sign_in").',
      params: S.SignInParams,
      headers: S.PassTokenIdempotentHeaders,
      body: S.PasskeyProofBody,
      rateLimits: [{ rule: 'sign-in-proof-address', key: (_input, ctx) => ctx.ip }],
      idempotency: { required: true, scope: ({ params }) => `sign-in:${params.signInId}` },
      responses: {
        200: {
          description: 'Proved: exchange it for tokens (POST /v1/auth/token, grantType "sign_in")',
          schema: S.SignInProofResponse,
        },
        ...ERRORS,
        410: { description: 'Challenge expired' },
        422: { description: 'The assertion does not verify, or its challenge was issued for another request' },
      },
      handler: async ({ params, headers, body }, ctx) => ({
        status: 200,
        body: await signIns.proveWithPasskey(
          params.signInId,
          headers['x-pass-token'],
          body.passkeyAssertion,
          ctx.get('idempotency-key'),
        ),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/sign-in/:signInId/id-card',
      operationId: 'proveSignInWithIdCard',
      tags: TAGS,
      auth: 'passToken',
      summary:
        'Prove the sign-in with the ID card verified at registration (read, compared, and checked with the issuing authority)',
      description:
        'The device is then on hold for NEW_DEVICE_HOLD_SECONDS (NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS without a verified email): ' +
        'no transfers, PIN, email, address-book, key, passkey, device or backup changes, no backup read, no recovery, no closure (docs/security.md), unless a passkey registered before the sign-in releases it. ' +
        'Refusals: id-card-unreadable, id-card-mismatch (not the card verified at registration), id-card-invalid (reported lost or stolen, not issued), ' +
        'id-card-not-on-file; each answers attemptsLeft; the last failed attempt fails the sign-in (sign-in-failed).',
      params: S.SignInParams,
      headers: S.PassTokenIdempotentHeaders,
      multipart: idCardProofMultipart(uploadMaxBytes),
      // The pass token is checked before the image is read, and the images one address sends are bounded.
      rateLimits: [{ rule: 'sign-in-proof-address', key: (_input, ctx) => ctx.ip }],
      idempotency: { required: true, scope: ({ params }) => `sign-in:${params.signInId}` },
      responses: {
        200: {
          description: 'Proved: exchange it for tokens (POST /v1/auth/token, grantType "sign_in")',
          schema: S.SignInProofResponse,
        },
        ...ERRORS,
        ...ID_CARD_PROOF_REFUSALS,
      },
      handler: async ({ params, headers, body, file }, ctx) => ({
        status: 200,
        body: await signIns.proveWithIdCard(
          params.signInId,
          headers['x-pass-token'],
          file!,
          (body as { idCardType: string }).idCardType,
          ctx.get('idempotency-key'),
        ),
      }),
    }),
  ];
}
