/** The API process: reads its configuration from the environment, builds real clients, serves HTTP. */
import { loadConfig, API_CONFIG_KEYS, ConfigError } from '../platform/config';
import { createLogger } from '../platform/logger';
import { DataEncryption } from '../platform/data-encryption';
import { createTemporalClient } from '../platform/temporal';
import { createOrm } from '../db/orm';
import { IdentityProviderClient } from '../integrations/identity';
import { ChainProviders } from '../integrations/evm/smart-account';
import { NetworkRegistry } from '../platform/networks';
import { TokenService } from './auth/tokens';
import { createApp } from './app';
import { BankClient } from '../integrations/bank';
import { PinService } from './pin/service';

const IDEMPOTENCY_SWEEP_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfig(process.env, API_CONFIG_KEYS);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const encryption = new DataEncryption(config.DATA_ENCRYPTION_KEY);
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true });
  const temporal = await createTemporalClient(
    { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE }, encryption,
  );
  const tokens = await TokenService.create({
    privateJwk: config.JWT_PRIVATE_JWK, issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE,
    accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS, refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
  });
  const identity = new IdentityProviderClient({
    baseUrl: config.IDENTITY_PROVIDER_URL, clientSecret: config.IDENTITY_PROVIDER_CLIENT_SECRET, timeoutMs: config.PROVIDER_TIMEOUT_MS,
  });
  const networks = NetworkRegistry.fromJson(config.NETWORKS);
  const providers = new ChainProviders();
  const bank = new BankClient({ baseUrl: config.BANK_API_URL, clientSecret: config.BANK_CLIENT_SECRET, timeoutMs: config.PROVIDER_TIMEOUT_MS });
  const pins = await PinService.create(orm, config.PIN_ENCRYPTION_JWK, { maxAttempts: config.PIN_MAX_ATTEMPTS, lockSeconds: config.PIN_LOCK_SECONDS });
  const app = createApp({ config, orm, temporal, identity, encryption, tokens, logger, networks, providers, bank, pins });
  const server = app.koa.listen(config.API_PORT, config.API_HOST, () => logger.info({ port: config.API_PORT }, 'api listening'));
  server.requestTimeout = 60_000;
  const sweep = setInterval(() => void app.idempotency.sweepExpired().catch((e) => logger.warn({ err: e }, 'idempotency sweep failed')), IDEMPOTENCY_SWEEP_MS);
  sweep.unref();

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return; // SIGINT to the process group, then SIGTERM from the launcher
    stopping = true;
    logger.info('api stopping');
    clearInterval(sweep);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await temporal.connection.close();
    await app.rateLimits.stop();
    providers.destroy();
    await orm.close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
