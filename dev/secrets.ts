import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';

/**
 * Secrets of the embedded stack, generated once into .data/dev.env (mode 600) so that restarts can still read
 * what was encrypted before. Production passes its own through the environment.
 */
export function loadOrCreateDevSecrets(file: string): Record<string, string> {
  if (existsSync(file)) {
    const values: Record<string, string> = {};
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
      if (match) values[match[1]!] = JSON.parse(match[2]!) as string;
    }
    return values;
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const values = {
    JWT_PRIVATE_JWK: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `dev-${randomUUID()}` }),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    PASS_CALLBACK_API_KEY: randomBytes(24).toString('base64url'),
    IDENTITY_PROVIDER_CLIENT_SECRET: randomBytes(24).toString('base64url'),
  };
  writeFileSync(file, `${Object.entries(values).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n')}\n`, { mode: 0o600 });
  return values;
}
