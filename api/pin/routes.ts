import type { PinService } from './service';
import type { SecurityNotices } from '../common/security-notices';
import { ChangePinBody, PinChanged, PinPublicKey, PinStatus, ResetPinBody, SetPinBody } from './schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { sha256Base64Url } from '../http/step-up';
import { STEP_UP_REFUSALS } from '../passkeys/routes';

const TAGS = ['PIN'];
/** The digest a PIN change or reset names: base64url SHA-256 of the new_pin JWE as sent. */
const digestOf = (jwe: string): string => sha256Base64Url(jwe);

export function pinRoutes({ pins, notices }: { pins: PinService; notices: SecurityNotices }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/pin/public-key',
      operationId: 'pinPublicKey',
      tags: TAGS,
      auth: 'none',
      summary:
        'The key PINs are encrypted to: a compact JWE (ECDH-ES+A256KW, A256GCM) of {"pin":"123456","iat":<unix seconds>}',
      description:
        'Public (no token), so the app can encrypt the PIN during registration as well. Encrypt each PIN just ' +
        'before sending it: one whose `iat` is over 5 minutes old, or over a minute ahead, answers 422 ' +
        '`invalid-pin-encryption`. A PIN that approves a request also carries `jti` and `request` in the ' +
        'payload, as each such operation says.',
      responses: { 200: { description: 'Public key', schema: PinPublicKey } },
      handler: async () => ({
        status: 200,
        body: { alg: 'ECDH-ES+A256KW', enc: 'A256GCM', jwk: pins.publicJwk as unknown as Record<string, unknown> },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/pin',
      operationId: 'pinStatus',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Whether the caller has set a PIN',
      description:
        'Tells the app whether to ask for the PIN or to have one set: without one, operations that need the PIN ' +
        'answer 409 `pin-not-set`, and the first PIN is set with POST /api/v1/pin (with an identity check proved ' +
        'by the ID card). It says nothing of a lockout: a locked PIN answers 423 (`pin-locked`, or ' +
        '`pin-reset-required`) where it is used.',
      responses: { 200: { description: 'PIN status', schema: PinStatus } },
      handler: async ({ user }) => ({ status: 200, body: { pin_set: await pins.isSet(user.userId) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/pin',
      operationId: 'setPin',
      stepUp: {
        action: 'pin_set',
        does: 'set the PIN',
        binds: ({ body }) => ({ new_pin_sha256: digestOf(body.pin) }),
        // A verification alone can be a SIM swap's (the sign-in asks a second proof for that reason): the ID card too.
        anyOf: [['identity', 'id_card']],
        hold: true,
        notice: { event: 'pin.set', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Set the first transaction PIN (6 digits, not repeated or sequential), encrypted, with a fresh identity check and the ID card',
      description:
        'The PIN is best set during registration, with its pass token (POST /v1/account/register/{regId}/pin, before the first token). ' +
        'Afterwards an access token alone cannot set it (a stolen token would make the PIN its own): send `identityCheckId`, an identity check ' +
        'for `{"action":"pin_set","new_pin_sha256":"<base64url SHA-256 of pin as sent>"}` proved with the ID card (POST /v1/auth/identity-checks, then …/id-card). The person is mailed and `pin.set` is written.',
      body: SetPinBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Set', schema: PinStatus },
        ...STEP_UP_REFUSALS,
        409: {
          description: 'A PIN is set already (pin-already-set), or the identity check is not verified or was used',
        },
        422: {
          description:
            'No identity check (step-up-required), one for another request, a weak PIN (weak-pin), or a pin that is not a fresh JWE to our key that decrypts (invalid-pin-encryption)',
        },
      },
      handler: async ({ body, user }) => {
        await notices.around({ userId: user.userId, eventType: 'pin.set', resourceId: user.userId }, (eventId) =>
          pins.set(user.userId, body.pin, eventId),
        );
        return { status: 201, body: { pin_set: true } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/v1/pin',
      operationId: 'changePin',
      stepUp: {
        action: 'pin_change',
        does: 'change the PIN',
        binds: ({ body }) => ({ new_pin_sha256: digestOf(body.new_pin) }),
        anyOf: [['pin']],
        pinField: 'current_pin',
        hold: true,
        notice: { event: 'pin.changed', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Change the PIN: the current one (counts towards the lockout) and the new one, both encrypted',
      description:
        'The person is mailed and `pin.changed` is written. A forgotten PIN is reset: POST /api/v1/pin/reset.',
      body: ChangePinBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Changed', schema: PinChanged },
        ...STEP_UP_REFUSALS,
        409: { description: 'No PIN set, or this approval was used already' },
        422: {
          description:
            'Wrong current PIN (wrong-pin), a weak new PIN (weak-pin), or a pin that is not a fresh JWE to our key that decrypts (invalid-pin-encryption), or one that approves another change (pin-not-for-this-request)',
        },
      },
      handler: async ({ body, user }) => {
        await notices.around({ userId: user.userId, eventType: 'pin.changed', resourceId: user.userId }, (eventId) =>
          pins.change(user.userId, body.new_pin, eventId),
        );
        return { status: 200, body: { changed: true } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/pin/reset',
      operationId: 'resetPin',
      stepUp: {
        action: 'pin_reset',
        does: 'reset the PIN',
        binds: ({ body }) => ({ new_pin_sha256: digestOf(body.new_pin) }),
        anyOf: [['identity', 'id_card']],
        hold: true,
        notice: { event: 'pin.reset', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary: 'Reset a forgotten or locked PIN with a fresh identity check proved with the ID card',
      description:
        'Send the new PIN (`new_pin`, encrypted) and `identityCheckId`: an identity check for `{"action":"pin_reset","new_pin_sha256":"<base64url SHA-256 of new_pin as sent>"}`, ' +
        'proved with the ID card verified at registration (POST /v1/auth/identity-checks, then …/id-card). The lockout ends; the person is mailed and `pin.reset` is written.',
      body: ResetPinBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: { description: 'Reset', schema: PinChanged },
        ...STEP_UP_REFUSALS,
        422: {
          description:
            'No identity check with the ID card (step-up-required, identity-check-needs-id-card), one for another request, a weak PIN (weak-pin), or a new_pin that is not a fresh JWE to our key (invalid-pin-encryption)',
        },
      },
      handler: async ({ body, user }) => {
        await notices.around({ userId: user.userId, eventType: 'pin.reset', resourceId: user.userId }, (eventId) =>
          pins.reset(user.userId, body.new_pin, eventId),
        );
        return { status: 200, body: { changed: true } };
      },
    }),
  ];
}
