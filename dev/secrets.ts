import { existsSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { formatEnvFile, readEnvFile } from '../platform/env-file';
import { newOperatorToken } from '../api/operators/operators';
import { credentialsEnv, newSandboxCredentials } from '../sandbox/service-env';

/**
 * Secrets of the embedded stack, generated once into .data/dev.env (mode 600) so that restarts can still read
 * what was encrypted before. Production passes its own through the environment.
 */
export function loadOrCreateDevSecrets(file: string): Record<string, string> {
  const existing = existsSync(file) ? readEnvFile(file) : {};
  // The credentials the sandbox's providers and the service share (sandbox/service-env.ts).
  const providers = credentialsEnv(newSandboxCredentials());
  const generators: Record<string, () => string> = {
    ...Object.fromEntries(Object.entries(providers).map(([key, value]) => [key, () => value])),
    JWT_PRIVATE_JWK: () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `dev-${randomUUID()}` });
    },
    DATA_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
    VC_ISSUER_KEY: () => randomBytes(32).toString('base64url'),
    KEY_ENCRYPTION_KEY: () => randomBytes(32).toString('base64'),
    // The embedded stack's operator (name `dev`) signs in to the Temporal UI's codec with it (docs/operating.md).
    OPERATOR_TOKEN: () => newOperatorToken(),
    PIN_ENCRYPTION_JWK: () => {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `pin-${randomUUID()}` });
    },
  };
  // Secrets added by later versions are generated into an existing file; the ones already there never change.
  const missing = Object.keys(generators).filter((key) => !existing[key]);
  if (!missing.length) return existing;
  const values = { ...existing, ...Object.fromEntries(missing.map((key) => [key, generators[key]!()])) };
  writeFileSync(file, formatEnvFile(values), { mode: 0o600 });
  return values;
}
