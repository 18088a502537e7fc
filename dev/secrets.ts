import { existsSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { formatEnvFile, readEnvFile } from '../platform/env-file';

/**
 * Secrets of the embedded stack, generated once into .data/dev.env (mode 600) so that restarts can still read
 * what was encrypted before. Production passes its own through the environment.
 */
export function loadOrCreateDevSecrets(file: string): Record<string, string> {
  if (existsSync(file)) return readEnvFile(file);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const values = {
    JWT_PRIVATE_JWK: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `dev-${randomUUID()}` }),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PASS_CALLBACK_API_KEY: randomBytes(24).toString('base64url'),
    IDENTITY_PROVIDER_CLIENT_SECRET: randomBytes(24).toString('base64url'),
  };
  writeFileSync(file, formatEnvFile(values), { mode: 0o600 });
  return values;
}
