import { Type } from '@sinclair/typebox';
import { DateTime, pageMembers, pageQuery } from '../common/schemas';
import { PasskeyAssertion, stepUpFields } from '../passkeys/schemas';
import { BackupBody } from '../registration/schemas';

export const DeviceView = Type.Object({
  deviceId: Type.String({ description: "The app's X-Device-Id" }),
  label: Type.Union([Type.String(), Type.Null()], { description: 'What the app called the device at sign-in' }),
  signInMethod: Type.Union([Type.Literal('registration'), Type.Literal('passkey'), Type.Literal('id_card')]),
  firstSeenAt: DateTime,
  lastUsedAt: {
    ...DateTime,
    description:
      "The last token issued to it (sign-in or refresh): within an access token's lifetime of its last request",
  },
  holdUntil: Type.Union([DateTime, Type.Null()], {
    description: 'Until then its risky actions are held (a sign-in by ID card only); null once past',
  }),
  current: Type.Boolean({ description: 'The device of this request' }),
});
export const DeviceList = Type.Object({ items: Type.Array(DeviceView), ...pageMembers });
export const DeviceQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);
export const DeviceParams = Type.Object({ deviceId: Type.String({ format: 'uuid' }) });
export const RevokeDeviceBody = Type.Object(stepUpFields('{"action":"device_revoke","device_id":"<deviceId>"}'), {
  additionalProperties: false,
  description: 'For another device than the caller: the PIN or a passkey (a stolen phone must not sign the owner out)',
});
export const ReleaseDeviceBody = Type.Object(
  { passkeyAssertion: Type.Optional(PasskeyAssertion) },
  {
    additionalProperties: false,
    description:
      'An assertion of a passkey registered before the device signed in, over a challenge for {"action":"device_release","device_id":"<deviceId>"}',
  },
);
export const DeviceReleased = Type.Object({ deviceId: Type.String(), holdUntil: Type.Null() });
export const DeviceRevoked = Type.Object({ deviceId: Type.String(), revoked: Type.Literal(true) });

export const BackupQuery = Type.Object({
  version: Type.Optional(Type.Integer({ minimum: 1, description: 'An earlier version (default: the latest)' })),
});
export const BackupView = Type.Object({
  version: Type.Integer({ description: '1 is the backup sent at registration' }),
  encryptedMnemonic: Type.String(),
  encryptedDerivationPaths: Type.String(),
  encryptionMethod: Type.String(),
  createdAt: DateTime,
});
export const ReplaceBackupBody = Type.Object(
  { ...BackupBody.properties, ...stepUpFields('{"action":"backup_replace"}') },
  { additionalProperties: false },
);
