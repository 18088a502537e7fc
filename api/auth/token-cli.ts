/**
 * Operator command: `npm run token -- <userId> [deviceId]` prints an access token for a user, on one of their signed-in
 * devices (the most recent one unless named): a token names its device session, and a device signed out gets none.
 * Reads JWT_* and DATABASE_URL from the environment; in the embedded stack it falls back to .data/dev.env written by `npm start`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { readEnvFile } from '../../platform/env-file';
import { createOrm } from '../../db/orm';
import { DeviceEntity } from '../../db/entities';
import { LEGACY_SESSION } from '../common/active-user';
import { TokenService } from './tokens';

async function main(): Promise<void> {
  const [userId, deviceId] = process.argv.slice(2);
  if (!userId) throw new Error('usage: npm run token -- <userId> [deviceId]');
  const devEnv = join(__dirname, '..', '..', '.data', 'dev.env');
  const embedded = { DATABASE_URL: `sqlite:${join(__dirname, '..', '..', '.data', 'wallet.db')}` }; // npm start's database
  const env =
    !process.env.JWT_PRIVATE_JWK && existsSync(devEnv)
      ? { ...embedded, ...readEnvFile(devEnv), ...process.env }
      : process.env;
  const config = loadConfig(env, [
    'JWT_PRIVATE_JWK',
    'JWT_ISSUER',
    'JWT_AUDIENCE',
    'ACCESS_TOKEN_TTL_SECONDS',
    'REFRESH_TOKEN_TTL_SECONDS',
    'DATABASE_URL',
  ]);
  const orm = await createOrm(config.DATABASE_URL);
  try {
    const [device] = await orm.em
      .fork()
      .find(
        DeviceEntity,
        { userId, revokedAt: null, ...(deviceId ? { deviceId } : {}) },
        { orderBy: { signedInAt: 'desc' }, limit: 1 },
      );
    if (!device) throw new Error(`user ${userId} has no signed-in device${deviceId ? ` ${deviceId}` : ''}`);
    const tokens = await TokenService.create({
      privateJwk: config.JWT_PRIVATE_JWK,
      issuer: config.JWT_ISSUER,
      audience: config.JWT_AUDIENCE,
      accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
      refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    });
    const sessionId = device.sessionId === LEGACY_SESSION ? undefined : device.sessionId;
    console.log(await tokens.signAccessToken({ userId, deviceId: device.deviceId, sessionId }));
  } finally {
    await orm.close();
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
