import { defineRoute, type RouteSpec } from '../http/route-table';
import { STEP_UP_REFUSALS } from '../passkeys/routes';
import { deviceView, type Devices } from './devices';
import * as S from './device-schemas';
import { backupView, type WalletBackups } from './backups';
import { nextLink } from '../http/pagination';
import { canonicalJson, sha256Base64Url } from '../http/step-up';
import { PAGE_LINK_HEADER } from '../common/schemas';

const TAGS = ['Devices'];

/** The devices signed in to the caller's account: list, sign out this one, revoke another (a lost or stolen phone). */
/** What a backup replacement's approval names: the SHA-256 of the backup's canonical JSON. */
export const backupDigest = (backup: {
  encryptedMnemonic: string;
  encryptedDerivationPaths: string;
  encryptionMethod: string;
}): string =>
  sha256Base64Url(
    canonicalJson({
      encryptedMnemonic: backup.encryptedMnemonic,
      encryptedDerivationPaths: backup.encryptedDerivationPaths,
      encryptionMethod: backup.encryptionMethod,
    }),
  );

export function deviceRoutes({ devices, backups }: { devices: Devices; backups: WalletBackups }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/account/devices',
      operationId: 'listDevices',
      tags: TAGS,
      auth: 'bearer',
      summary: 'The devices signed in to the account, oldest first; `current` marks the caller',
      description:
        'Only devices signed in now: one signed out is left out. `holdUntil` marks a device still in its ' +
        'new-device hold (signed in by ID card, or by a passkey still in its own hold) and `signInMethod` how each ' +
        'signed in: show the list so the person can spot a device they do not know and sign it out (DELETE ' +
        '/v1/account/devices/{deviceId}, with the PIN or a passkey).',
      query: S.DeviceQuery,
      responses: {
        200: { description: 'Devices', schema: S.DeviceList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ user, query }, ctx) => {
        const page = await devices.page(user.userId, query);
        return {
          status: 200,
          body: { ...page, items: page.items.map((d) => deviceView(d, user.deviceId)) },
          headers: nextLink(ctx, page.nextCursor),
        };
      },
    }),

    defineRoute({
      method: 'delete',
      path: '/v1/account/devices/:deviceId',
      operationId: 'revokeDevice',
      // Signing oneself out needs nothing; signing out another device is the step-up's.
      stepUp: {
        action: 'device_revoke',
        does: 'sign out another device',
        binds: ({ params }) => ({ device_id: params.deviceId }),
        appliesTo: ({ params, user }) => params.deviceId.toLowerCase() !== user?.deviceId.toLowerCase(),
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'device.revoked', mailed: true },
      },
      tags: TAGS,
      auth: 'bearer',
      summary:
        'Sign a device out: its refresh tokens are revoked and its access tokens refused from now on, in every api process',
      description:
        'Your own device (X-Device-Id of the token) signs out with the token alone. Another device needs `pin` bound to ' +
        '`{"action":"device_revoke","device_id":"<deviceId>"}` or `passkeyAssertion` in the JSON body (a stolen phone must not sign its owner out), ' +
        'and a device in its new-device hold cannot sign out another. ' +
        'Writes `device.revoked`; the person is mailed. Revoking a device signed out already answers the same.',
      params: S.DeviceParams,
      body: S.RevokeDeviceBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Signed out', schema: S.DeviceRevoked },
        ...STEP_UP_REFUSALS,
        404: { description: 'No such device of yours, or unknown challenge' },
        409: {
          description:
            'The approval was used already, or this is the only signed-in device of an account with nothing else to sign in with (last-device)',
        },
      },
      handler: async ({ user, params }) => {
        const itself = params.deviceId.toLowerCase() === user.deviceId.toLowerCase();
        await devices.revoke(
          user.userId,
          itself ? user.deviceId : params.deviceId,
          itself ? 'itself' : 'another_device',
        );
        return { status: 200, body: { deviceId: params.deviceId, revoked: true as const } };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/account/devices/:deviceId/release',
      operationId: 'releaseDeviceHold',
      stepUp: {
        action: 'device_release',
        does: "end a device's new-device hold",
        binds: ({ params }) => ({ device_id: params.deviceId }),
        anyOf: [['passkey']],
        hold: false,
        notice: null,
      },
      tags: TAGS,
      auth: 'bearer',
      summary: "End a device's new-device hold with a passkey registered before it signed in",
      description:
        'Challenge: POST /v1/auth/passkeys/approvals/options with request {"action":"device_release","device_id":"<deviceId>"}. The passkey must be older than the device\'s sign-in and past its own new-passkey hold.',
      params: S.DeviceParams,
      body: S.ReleaseDeviceBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Released', schema: S.DeviceReleased },
        403: { description: 'The passkey is in its own new-passkey hold (passkey-on-hold)' },
        404: { description: 'No such device of yours, or unknown challenge' },
        409: { description: 'Challenge already used' },
        410: { description: 'Challenge expired' },
        422: {
          description:
            'No passkeyAssertion (step-up-required), an assertion that does not verify or names another request, or a passkey not older than the sign-in (passkey-too-new)',
        },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ user, params, approval }) => {
        await devices.release(user.userId, params.deviceId, approval!.passkey!);
        return { status: 200, body: { deviceId: params.deviceId, holdUntil: null } };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/v1/account/backup',
      operationId: 'getWalletBackup',
      tags: ['Backup'],
      auth: 'bearer',
      stepUp: {
        action: 'backup_read',
        does: 'read the wallet backup',
        anyOf: [],
        hold: true,
        notice: { event: 'backup.read', mailed: true },
      },
      summary:
        'The encrypted wallet backup, as the app stored it (the service never decrypts it): restore the owner key on a new device',
      description:
        'Every read writes `backup.read` and is mailed to the person. A device in its new-device hold cannot read it.',
      query: S.BackupQuery,
      rateLimits: [{ rule: 'backup-read', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'The backup', schema: S.BackupView },
        404: { description: 'No backup (of that version)' },
        429: { description: 'Too many reads (Retry-After)' },
      },
      handler: async ({ user, query }) => ({
        status: 200,
        body: backupView(await backups.read(user.userId, user.deviceId, query.version)),
      }),
    }),

    defineRoute({
      method: 'put',
      path: '/v1/account/backup',
      operationId: 'replaceWalletBackup',
      tags: ['Backup'],
      auth: 'bearer',
      stepUp: {
        action: 'backup_replace',
        does: 'replace the wallet backup',
        // The backup itself, so an approval seen in transit stores no other backup.
        binds: ({ body }) => ({ backup_sha256: backupDigest(body) }),
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'backup.stored', mailed: true },
      },
      summary: 'Store a new version of the encrypted wallet backup (after a key rotation); earlier versions are kept',
      description:
        'A new backup decides what a new phone restores, so the access token alone cannot store one: send `pin` bound to `{"action":"backup_replace","backup_sha256":"<base64url SHA-256 of the canonical JSON of {encryptedDerivationPaths, encryptedMnemonic, encryptionMethod}: keys sorted, no spaces>"}` or a `passkeyAssertion` for that request. The person is mailed and `backup.stored` is written.',
      body: S.ReplaceBackupBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: { 201: { description: 'Stored', schema: S.BackupView }, ...STEP_UP_REFUSALS },
      handler: async ({ user, body }) => {
        const { pin: _pin, passkeyAssertion: _assertion, ...backup } = body;
        return { status: 201, body: backupView(await backups.store(user.userId, user.deviceId, backup)) };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/auth/sign-out',
      operationId: 'signOut',
      tags: ['Auth'],
      auth: 'bearer',
      summary: 'Sign this device out (as DELETE /v1/account/devices/{your deviceId})',
      description:
        'Needs nothing beyond the access token: the refresh tokens of this device are revoked and its access ' +
        'tokens refused at once in every api process (401 device-signed-out); `device.revoked` is written and the ' +
        'person is mailed. To use the app on this device again, the person signs in again (POST /v1/auth/sign-in). ' +
        'The only signed-in device of an account with no passkey and no ID card on file is not signed out (409 ' +
        'last-device): add a passkey or renew KYC first.',
      responses: {
        200: { description: 'Signed out', schema: S.DeviceRevoked },
        409: {
          description:
            'The only signed-in device of an account with no passkey or ID card on file to sign in again with (last-device)',
        },
      },
      handler: async ({ user }) => {
        await devices.revoke(user.userId, user.deviceId, 'itself');
        return { status: 200, body: { deviceId: user.deviceId, revoked: true as const } };
      },
    }),
  ];
}
