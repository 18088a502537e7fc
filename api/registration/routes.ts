import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import type { RegistrationService } from './service';
import type { PinService } from '../pin/service';
import type { SecurityNotices } from '../common/security-notices';
import { PinStatus, RegistrationPinBody } from '../pin/schemas';
import * as S from './schemas';
import { NICE_RETURN_PATH, noWindows, type NiceIdentityWindows } from './identity-windows';

export const ID_CARD_IMAGE_TYPES = ['image/jpeg', 'image/png'] as const;
const TAG = ['Registration'];
const ERRORS = {
  401: { description: 'Pass token expired' },
  403: { description: 'X-Pass-Token does not belong to this registration' },
  404: { description: 'Unknown regId' },
  409: { description: 'Step out of order, or a concurrent request with the same Idempotency-Key' },
  422: { description: 'eKYC: an uploadRef that is not an upload of this registration (upload-not-found)' },
};

/** Registration: start and status, the steps (upload, eKYC, backup), and the identity provider's callback. */
export function registrationRoutes(deps: {
  registrations: RegistrationService;
  uploadMaxBytes: number;
  pins: PinService;
  notices: SecurityNotices;
  /** IDENTITY_PROVIDER=nice: the verifications the service opens in NICE's window; undefined for callback. */
  identityWindows?: NiceIdentityWindows;
  /** IDENTITY_PROVIDER_APP_RETURN_URL: the app's link NICE's return sends the browser on to, with the code. */
  identityAppReturnUrl?: string;
}): RouteSpec[] {
  return [
    ...startRoutes(deps.registrations),
    ...stepRoutes(deps.registrations, deps.uploadMaxBytes),
    pinRoute(deps),
    ...providerRoutes(deps.registrations),
    ...windowRoutes(deps.registrations, deps.identityWindows, deps.identityAppReturnUrl),
  ];
}

/**
 * The first PIN, inside the registration: the person just verified with the identity provider (the pass token), and
 * no access token exists yet that a thief could have taken. Optional: registration's steps (allSteps) are the
 * interface's; a PIN not set here is set later only with a fresh identity check (POST /api/v1/pin).
 */
function pinRoute({
  registrations,
  pins,
  notices,
}: {
  registrations: RegistrationService;
  pins: PinService;
  notices: SecurityNotices;
}): RouteSpec {
  return defineRoute({
    method: 'post',
    path: '/v1/account/register/:regId/pin',
    operationId: 'setRegistrationPin',
    tags: TAG,
    auth: 'passToken',
    summary: 'Set the transaction PIN within the registration, with its pass token, before the first access token',
    description:
      'Optional, after the last step (backup) and before POST /v1/auth/token: the registration is identity-verified and no token exists yet. ' +
      'Once tokens were issued for the registration, the PIN is set with a fresh identity check instead (POST /api/v1/pin with identityCheckId). Writes `pin.set`.',
    params: S.RegistrationParams,
    headers: S.PassTokenOnlyHeaders,
    body: RegistrationPinBody,
    idempotency: { required: false, scope: ({ params }) => `reg:${params.regId}` },
    responses: {
      201: { description: 'Set', schema: PinStatus },
      ...ERRORS,
      409: {
        description:
          'The registration is not completed yet (registration-not-completed), tokens were issued for it already (registration-tokens-issued), or a PIN is set already',
      },
      422: {
        description: 'A weak PIN (weak-pin), or a pin that is not a fresh JWE to our key (invalid-pin-encryption)',
      },
    },
    handler: async ({ params, headers, body }) => {
      const userId = await registrations.userBeforeTokens(params.regId, headers['x-pass-token']);
      await notices.around({ userId, eventType: 'pin.set', resourceId: userId }, (eventId) =>
        pins.set(userId, body.pin, eventId),
      );
      return { status: 201, body: { pin_set: true } };
    },
  });
}

function startRoutes(registrations: RegistrationService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/account/register',
      operationId: 'startRegistration',
      tags: TAG,
      auth: 'none',
      summary: 'Start registration with the pass token from identity verification; issues regId',
      description:
        'The first call, once the person has verified with the identity provider on this device: it waits up to ' +
        'PASS_RESULT_WAIT_SECONDS for the result from the provider, else answers 409 pass-result-pending (retry ' +
        'after Retry-After). Answers `regId`, step ekyc and the verified name and phone to show; the same device ' +
        'repeating it with the same pass token gets the same answer. A person who has an account gets 409 ' +
        'duplicate-identity naming POST /v1/auth/sign-in; otherwise the next step is POST …/{regId}/ekyc with ' +
        'X-Pass-Token.',
      headers: S.StartRegistrationHeaders,
      body: S.StartRegistrationBody,
      rateLimits: [
        { rule: 'registration-start-device', key: ({ headers }) => headers['x-device-id'].toLowerCase() },
        { rule: 'registration-start-address', key: (_input, ctx) => ctx.ip },
      ],
      idempotency: { required: true, scope: ({ headers }) => `device:${headers['x-device-id']}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        201: { description: 'Registration started', schema: S.StartRegistrationResponse, headers: LOCATION_HEADER },
        401: { description: 'Invalid or expired pass token' },
        409: {
          description: 'Identity result pending (retry after Retry-After), already started elsewhere, or completed',
        },
        422: { description: 'Identity verification failed, or Idempotency-Key reused with another payload' },
      },
      handler: async ({ headers, body }) => {
        const { regId, response } = await registrations.start(headers['x-device-id'], body.passToken);
        return { status: 201, body: response, headers: { location: `/v1/account/register/${regId}` } };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/account/register/:regId',
      operationId: 'getRegistration',
      tags: TAG,
      auth: 'passToken',
      summary: 'Registration status: current step and whether it is still in progress',
      description:
        'Readable with the pass token that started the registration, during the steps and after them: resume the ' +
        'app at `step` (ekyc, backup, completed). Once the pass token has expired (`passTokenExpiresAt`) it ' +
        'answers 401 pass-token-expired, and a registration that failed or expired answers 409 registration-failed ' +
        'or 410 registration-expired: verify again and start a new one.',
      params: S.RegistrationParams,
      headers: S.PassTokenOnlyHeaders,
      responses: { 200: { description: 'Registration status', schema: S.RegistrationStatusResponse }, ...ERRORS },
      handler: async ({ params, headers }) => ({
        status: 200,
        body: await registrations.status(params.regId, headers['x-pass-token']),
      }),
    }),
  ];
}

function stepRoutes(registrations: RegistrationService, uploadMaxBytes: number): RouteSpec[] {
  const multipartImage = {
    fields: S.EkycMultipartFields,
    file: { field: 'idCardImage', maxBytes: uploadMaxBytes, contentTypes: ID_CARD_IMAGE_TYPES },
    documentAs: S.EkycMultipartBody,
    example: { idCardImage: '(the photo of the ID card: a JPEG or PNG file)', idCardType: 'resident_id' },
  };

  return [
    defineRoute({
      method: 'post',
      path: '/v1/account/register/:regId/uploads',
      operationId: 'uploadIdCardImage',
      tags: TAG,
      auth: 'passToken',
      summary: 'Upload an ID-card image (JPEG or PNG, stored encrypted); answers the uploadRef for the JSON eKYC form',
      description:
        'For the JSON form of eKYC: send the image here, then its `uploadRef` to POST …/ekyc (the multipart eKYC ' +
        'takes the image directly instead). An uploadRef serves only this registration; the image must be a JPEG ' +
        'or PNG by its content, at most UPLOAD_MAX_BYTES, and uploads and eKYC attempts share 20 images an hour ' +
        'per registration.',
      params: S.RegistrationParams,
      headers: S.PassTokenOnlyHeaders,
      multipart: {
        ...multipartImage,
        fields: S.UploadMultipartFields,
        documentAs: S.UploadMultipartBody,
        example: { idCardImage: '(the photo of the ID card: a JPEG or PNG file)' },
      },
      rateLimits: [{ rule: 'registration-upload', key: ({ params }) => params.regId }],
      idempotency: { required: false, scope: ({ params }) => `reg:${params.regId}` },
      responses: {
        201: { description: 'Stored', schema: S.UploadResponse },
        ...ERRORS,
        413: { description: 'Image too large' },
        415: { description: 'Not a JPEG or PNG image' },
      },
      handler: async ({ params, headers, file }) => ({
        status: 201,
        body: await registrations.upload(params.regId, headers['x-pass-token'], file!),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/register/:regId/ekyc',
      operationId: 'submitEkyc',
      tags: TAG,
      auth: 'passToken',
      summary: 'Submit eKYC: the ID-card image (multipart) or an uploadRef (JSON); answers the OCR result',
      description:
        'Read by the OCR provider in the workflow registration-<regId>; the answer waits for it. Verified when the ' +
        'card reads as the `idCardType` sent, with the name and birth date of the identity verification: `step` ' +
        'moves to backup and the number of the card is kept (as a keyed hash) for later sign-ins by ID card. Not ' +
        'verified: `step` stays ekyc and the app may send another image, with a new Idempotency-Key; the fifth ' +
        'unverified attempt fails the registration. The JSON form, `{idCardType, uploadRef}` with the `uploadRef` of ' +
        'POST …/uploads, is accepted too: the document lists it under `x-json-body` (one body type per operation, ' +
        'which every common client generator can express; docs/api-conventions.md).',
      params: S.RegistrationParams,
      headers: S.PassTokenHeaders,
      body: S.EkycJsonBody,
      multipart: multipartImage,
      rateLimits: [{ rule: 'registration-upload', key: ({ params }) => params.regId }],
      idempotency: { required: true, scope: ({ params }) => `reg:${params.regId}` },
      responses: {
        200: { description: 'OCR result; step stays ekyc when not verified', schema: S.EkycResponse },
        ...ERRORS,
        413: { description: 'Image too large' },
        415: { description: 'Not a JPEG or PNG image' },
      },
      handler: async ({ params, headers, body, file }, ctx) => ({
        status: 200,
        body: await registrations.submitEkyc(params.regId, headers['x-pass-token'], ctx.get('idempotency-key'), {
          idCardType: body.idCardType,
          uploadRef: body.uploadRef,
          file,
        }),
      }),
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/register/:regId/backup',
      operationId: 'submitWalletBackup',
      tags: TAG,
      auth: 'passToken',
      summary: 'Submit the initial wallet backup (client-encrypted); completes registration',
      description:
        'The app encrypts the backup itself; the service stores it as sent, never decrypts it, and keeps it as ' +
        'version 1 of the account backup (GET /v1/account/backup). It creates the user, with a KycCredential ' +
        '(`registration.completed`); next, optionally set the PIN (POST …/{regId}/pin), then get tokens from POST ' +
        '/v1/auth/token with grantType "registration", the same X-Device-Id and the pass token.',
      params: S.RegistrationParams,
      headers: S.PassTokenHeaders,
      body: S.BackupBody,
      idempotency: { required: true, scope: ({ params }) => `reg:${params.regId}` },
      responses: { 200: { description: 'Backup stored; registration completed', schema: S.BackupResponse }, ...ERRORS },
      handler: async ({ params, headers, body }, ctx) => ({
        status: 200,
        body: await registrations.submitBackup(params.regId, headers['x-pass-token'], ctx.get('idempotency-key'), body),
      }),
    }),
  ];
}

function providerRoutes(registrations: RegistrationService): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/pass/callback',
      operationId: 'passCallback',
      tags: ['Identity provider'],
      auth: 'apiKey',
      summary: 'Result callback from the identity verification service (server to server)',
      description:
        'Called by the identity provider, not the app, with X-Api-Key (PASS_CALLBACK_API_KEY) and the outcome of ' +
        'each verification. The result goes to a sign-in when the verified person (the same CI) has an account, ' +
        'else to the registration of that verification; it may arrive before or after the app calls POST ' +
        '/v1/account/register or POST /v1/auth/sign-in, and the first result of a verification is the one kept.',
      headers: S.PassCallbackHeaders,
      body: S.PassCallbackBody,
      rateLimits: [{ rule: 'pass-callback', key: (_input, ctx) => ctx.ip }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: {
          description: 'Received (repeated callbacks are acknowledged and ignored)',
          schema: S.PassCallbackResponse,
        },
        401: { description: 'Bad X-Api-Key' },
      },
      handler: async ({ body }) => {
        await registrations.passResult(body);
        return { status: 200, body: { received: true } };
      },
    }),
  ];
}

/**
 * The page the person's browser shows once the result has been taken: the code its app exchanges for the pass token
 * (in the page, `#pass-code`, for a web view that reads it; or sent on to the app's link, IDENTITY_PROVIDER_APP_RETURN_URL).
 */
const returnPage = (verified: boolean, code: string) =>
  `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${verified ? '본인확인 완료' : '본인확인 실패'}</title></head><body><p>` +
  (verified
    ? '본인확인이 완료되었습니다. 앱으로 돌아가세요. Identity verified: return to the app.'
    : '본인확인에 실패했습니다. 앱에서 다시 시도하세요. Identity not verified: try again from the app.') +
  `</p><code id="pass-code" hidden>${code}</code></body></html>`;

/**
 * IDENTITY_PROVIDER=nice (docs/providers.md): the service opens the verification in NICE's standard window; NICE sends
 * the person's browser back with the encrypted result, which reaches the registration or sign-in exactly as the
 * callback's does, and gives that browser a code its app exchanges for the pass token (PKCE).
 */
function windowRoutes(
  registrations: RegistrationService,
  windows: NiceIdentityWindows | undefined,
  appReturnUrl: string | undefined,
): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/pass/requests',
      operationId: 'openPassVerification',
      tags: ['Identity provider'],
      auth: 'none',
      summary: "Open an identity verification in the provider's window (IDENTITY_PROVIDER=nice)",
      description:
        'With IDENTITY_PROVIDER=nice (NICE 본인확인, the standard window): the service asks NICE for a crypto token, ' +
        "encrypts the request under it and answers the form the app's browser posts to NICE (`window`). The person " +
        `verifies in NICE's window; NICE sends the browser back to GET ${NICE_RETURN_PATH}, the result goes to the ` +
        'registration or sign-in, and that browser gets a one-time code, which the app exchanges for its pass token ' +
        'at POST /v1/auth/pass/requests/{passRequestId}/token with the verifier of `codeChallenge` (RFC 7636). With ' +
        "IDENTITY_PROVIDER=callback the provider's own app issues the pass token and this answers 404.",
      body: S.OpenPassVerificationBody,
      rateLimits: [{ rule: 'pass-request-address', key: (_input, ctx) => ctx.ip }],
      responses: {
        201: {
          description: 'Opened: post `window.fields` to `window.url` in a browser',
          schema: S.PassVerificationOpened,
        },
        404: { description: 'IDENTITY_PROVIDER=callback: no window is opened here' },
        429: { description: 'Too many requests (Retry-After)' },
        502: { description: 'NICE could not be reached or refused the crypto token' },
      },
      handler: async ({ body }, ctx) => ({
        status: 201,
        body: await (windows ?? noWindows()).open(ctx.origin, body.codeChallenge),
      }),
    }),
    defineRoute({
      method: 'get',
      path: NICE_RETURN_PATH,
      operationId: 'passWindowReturn',
      tags: ['Identity provider'],
      auth: 'none',
      summary: "NICE's return of the person's browser with the encrypted result (not called by the app)",
      description:
        "Where NICE sends the browser once the person has verified (the request's returnurl, methodtype get): the " +
        'result is opened under the keys of the verification `token_version_id` names (its integrity value first), ' +
        "its request number and site code checked, and handed to the registration or sign-in as the callback's " +
        'is; the first result of a verification is the one kept. Answers a page with the one-time code for the app ' +
        '(`#pass-code`), or a redirect to IDENTITY_PROVIDER_APP_RETURN_URL with `passRequestId` and `code`; a ' +
        'return that does not open answers 400 invalid-identity-return and delivers nothing.',
      query: S.NiceReturnQuery,
      rateLimits: [{ rule: 'pass-callback', key: (_input, ctx) => ctx.ip }],
      responses: {
        200: { description: 'HTML page: verified or not, with the code for the app' },
        303: { description: "To the app's link (IDENTITY_PROVIDER_APP_RETURN_URL) with passRequestId and code" },
        400: {
          description:
            'A return that does not open under its verification, of an expired one, or of one whose pass token was issued (invalid-identity-return)',
        },
        404: { description: 'IDENTITY_PROVIDER=callback: no window is opened here' },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ query }, ctx) => {
        const back = await (windows ?? noWindows()).readReturn(query);
        await registrations.passResult(back.result);
        const headers = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
        if (appReturnUrl) {
          const to = new URL(appReturnUrl);
          to.searchParams.set('passRequestId', back.passRequestId);
          to.searchParams.set('code', back.code);
          return { status: 303, headers: { ...headers, location: to.toString() } };
        }
        ctx.type = 'text/html';
        return {
          status: 200,
          body: returnPage(back.result.success, back.code),
          headers: { ...headers, 'content-security-policy': "default-src 'none'" },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/auth/pass/requests/:passRequestId/token',
      operationId: 'issuePassToken',
      tags: ['Identity provider'],
      auth: 'none',
      summary: "The pass token of a verification, for the code its browser's return gave and the PKCE verifier",
      description:
        'The code the return gave (its page or the app link) and the verifier of the `codeChallenge` sent when ' +
        'opening it. Answers the pass token the app then carries (X-Pass-Token, `passToken`), issued once: the same ' +
        'code and verifier again (a retry after a lost answer) answer the same token; a wrong code or verifier answers ' +
        '400 invalid-pass-code.',
      params: S.PassVerificationParams,
      body: S.PassCodeExchangeBody,
      rateLimits: [{ rule: 'pass-request-address', key: (_input, ctx) => ctx.ip }],
      responses: {
        201: { description: 'The pass token', schema: S.PassCodeExchangeResponse },
        400: { description: "A wrong code, or a verifier that is not the challenge's (invalid-pass-code)" },
        404: { description: 'IDENTITY_PROVIDER=callback: no window is opened here' },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ params, body }) => ({
        status: 201,
        body: await (windows ?? noWindows()).issuePassToken(params.passRequestId, body.code, body.codeVerifier),
      }),
    }),
  ];
}
