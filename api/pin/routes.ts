import type { PinService } from './service';
import { ChangePinBody, PinChanged, PinPublicKey, PinStatus, SetPinBody } from './schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';

const TAGS = ['PIN'];

export function pinRoutes({ pins }: { pins: PinService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/pin/public-key',
      operationId: 'pinPublicKey',
      tags: TAGS,
      auth: 'none',
      summary:
        'The key PINs are encrypted to: a compact JWE (ECDH-ES+A256KW, A256GCM) of {"pin":"123456","iat":<unix seconds>}',
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
      responses: { 200: { description: 'PIN status', schema: PinStatus } },
      handler: async ({ user }) => ({ status: 200, body: { pin_set: await pins.isSet(user.userId) } }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/pin',
      operationId: 'setPin',
      deviceHold: 'set or change the PIN',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Set the transaction PIN (6 digits, not repeated or sequential), encrypted',
      body: SetPinBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Set', schema: PinStatus },
        409: { description: 'Already set' },
        422: {
          description:
            'A weak PIN (weak-pin), or a pin that is not a fresh JWE to our key that decrypts (invalid-pin-encryption)',
        },
      },
      handler: async ({ body, user }) => {
        await pins.set(user.userId, body.pin);
        return { status: 201, body: { pin_set: true } };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/api/v1/pin',
      operationId: 'changePin',
      deviceHold: 'set or change the PIN',
      tags: TAGS,
      auth: 'bearer',
      summary: 'Change the PIN: the current one (counts towards the lockout) and the new one, both encrypted',
      body: ChangePinBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Changed', schema: PinChanged },
        409: { description: 'No PIN set' },
        422: {
          description:
            'Wrong current PIN (wrong-pin), a weak new PIN (weak-pin), or a pin that is not a fresh JWE to our key that decrypts (invalid-pin-encryption), or one that approves another change (pin-not-for-this-request)',
        },
        423: { description: 'Locked after too many wrong PINs (Retry-After)' },
      },
      handler: async ({ body, user }, ctx) => {
        await pins.change(user.userId, body.current_pin, body.new_pin, ctx.get('idempotency-key') || null);
        return { status: 200, body: { changed: true } };
      },
    }),
  ];
}
