import type { Orm } from '../../db/orm';
import { assertActive } from '../common/active-user';
import type { DataEncryption } from '../../platform/data-encryption';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { authorizeRegistration } from '../registration/guard';
import type { TokenService } from './tokens';
import { safeEqual } from './tokens';
import type { Devices } from '../account/devices';
import type { SignInService } from './sign-in-service';
import * as S from './schemas';

export interface AuthRouteDeps {
  orm: Orm;
  encryption: DataEncryption;
  tokens: TokenService;
  devices: Devices;
  signIns: SignInService;
}

export function authRoutes({ orm, encryption, tokens, devices, signIns }: AuthRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/auth/token',
      operationId: 'issueTokens',
      tags: ['Auth'],
      auth: 'none',
      summary:
        'Exchange a completed registration, a proved sign-in on a new device, or a refresh token for access and refresh tokens bound to the device',
      description:
        'grantType "registration": X-Pass-Token and the X-Device-Id that started the registration. ' +
        'grantType "sign_in": X-Pass-Token and the X-Device-Id that started the sign-in, once proved; once only. ' +
        'grantType "refresh_token": the refresh token, which is rotated; presenting a rotated token again revokes the whole chain.',
      headers: S.TokenHeaders,
      body: S.TokenBody,
      responses: {
        200: { description: 'Tokens issued', schema: S.TokenResponse },
        401: { description: 'Invalid, expired or revoked credential' },
        403: {
          description:
            'Another device, a pass token of another registration, or a device signed out since (device-revoked: sign in again)',
        },
        404: { description: 'Unknown regId' },
        409: {
          description: 'Registration or sign-in not completed yet, or the sign-in was exchanged already (sign-in-used)',
        },
      },
      handler: async ({ headers, body }) => {
        const deviceId = headers['x-device-id'];
        if (body.grantType === 'refresh_token')
          return { status: 200, body: await tokens.refresh(orm, body.refreshToken, deviceId) };
        const passToken = headers['x-pass-token'];
        // The pass token is this grant's credential: without it the caller is not authenticated.
        if (!passToken)
          throw problems.invalidCredential(
            'pass-token-required',
            `X-Pass-Token (the credential of grantType "${body.grantType}") is required`,
          );
        if (body.grantType === 'sign_in')
          return { status: 200, body: await signIns.grant(body.signInId, passToken, deviceId) };
        const registration = await authorizeRegistration(orm, encryption, body.regId, passToken, {
          allowCompleted: true,
        });
        if (!registration.deviceId || !safeEqual(registration.deviceId, deviceId))
          throw problems.forbidden('This registration belongs to another device');
        if (registration.status !== 'completed' || !registration.userId) {
          throw problems.conflict(
            'registration-not-completed',
            `Registration is at step ${registration.step}; finish it first`,
          );
        }
        await assertActive(orm, registration.userId);
        const sessionId = await devices.registrationSession(registration.userId, deviceId);
        return { status: 200, body: await tokens.issue(orm, { userId: registration.userId, deviceId, sessionId }) };
      },
    }),
  ];
}
