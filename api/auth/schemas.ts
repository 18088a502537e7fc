import { Type } from '@sinclair/typebox';
import { NonEmpty, UuidV4 } from '../common/schemas';

export const TokenHeaders = Type.Object({
  'x-device-id': UuidV4,
  'x-pass-token': Type.Optional(
    NonEmpty({ maxLength: 512, description: 'Required with grantType "registration" and "sign_in"' }),
  ),
});
export const TokenBody = Type.Union([
  Type.Object(
    {
      grantType: Type.Literal('registration'),
      regId: Type.String({ pattern: '^reg_[0-9a-f]{24}$' }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      grantType: Type.Literal('sign_in'),
      signInId: Type.String({
        pattern: '^sgn_[0-9a-f]{24}$',
        description: 'A sign-in on a new device, proved (POST /v1/auth/sign-in)',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      grantType: Type.Literal('refresh_token'),
      refreshToken: NonEmpty({ maxLength: 256 }),
    },
    { additionalProperties: false },
  ),
]);
export const TokenResponse = Type.Object({
  tokenType: Type.Literal('Bearer'),
  accessToken: Type.String(),
  expiresIn: Type.Integer({ description: 'seconds' }),
  refreshToken: Type.String(),
  refreshTokenExpiresIn: Type.Integer({ description: 'seconds' }),
  userId: Type.String(),
});
export const JwksResponse = Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) });
