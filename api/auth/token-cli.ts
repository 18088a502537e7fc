/**
 * Operator command: `npm run token -- <userId> [deviceId]` prints an access token for a user.
 * Reads JWT_* from the environment; in the embedded stack it falls back to .data/dev.env written by `npm start`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { readEnvFile } from '../../platform/env-file';
import { TokenService } from './tokens';

async function main(): Promise<void> {
  const [userId, deviceId = 'operator'] = process.argv.slice(2);
  if (!userId) throw new Error('usage: npm run token -- <userId> [deviceId]');
  const devEnv = join(__dirname, '..', '..', '.data', 'dev.env');
  const env = !process.env.JWT_PRIVATE_JWK && existsSync(devEnv) ? { ...readEnvFile(devEnv), ...process.env } : process.env;
  const config = loadConfig(env, ['JWT_PRIVATE_JWK', 'JWT_ISSUER', 'JWT_AUDIENCE', 'ACCESS_TOKEN_TTL_SECONDS', 'REFRESH_TOKEN_TTL_SECONDS']);
  const tokens = await TokenService.create({
    privateJwk: config.JWT_PRIVATE_JWK, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE,
    accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS, refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
  });
  console.log(await tokens.signAccessToken({ userId, deviceId }));
}

main().catch((error) => { console.error(error.message ?? error); process.exit(1); });
