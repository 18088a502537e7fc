/** The Temporal worker process: the only place (with api/main.ts) that builds real clients. */
import { loadConfig, WORKER_CONFIG_KEYS, ConfigError } from '../platform/config';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createLogger } from '../platform/logger';
import { DataEncryption } from '../platform/data-encryption';
import { createOrm } from '../db/orm';
import { OcrProviderClient } from '../integrations/ocr';
import { ChainProviders } from '../integrations/evm/smart-account';
import { Bundlers } from '../integrations/evm/bundlers';
import { NetworkRegistry } from '../platform/networks';
import { createWorker } from './create-worker';
import { CredentialIssuer } from '../integrations/credentials/issuer';
import { BankClient } from '../integrations/bank';

async function main(): Promise<void> {
  const config = loadConfig(process.env, WORKER_CONFIG_KEYS);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  // The SDK's own logs go through the same structured logger.
  const sdkLog = logger.child({ component: 'temporal-sdk' });
  const sdkLevel = ({ trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', fatal: 'ERROR', silent: 'ERROR' } as const)[config.LOG_LEVEL];
  Runtime.install({
    logger: new DefaultLogger(sdkLevel as LogLevel, ({ level, message, meta }) => {
      const method = ({ TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[level];
      sdkLog[method](meta ?? {}, message);
    }),
  });
  const encryption = new DataEncryption(config.DATA_ENCRYPTION_KEY);
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true });
  const ocr = new OcrProviderClient({ baseUrl: config.OCR_PROVIDER_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS });
  const settings = { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE };
  const networks = NetworkRegistry.fromJson(config.NETWORKS);
  const providers = new ChainProviders();
  const { worker, connection } = await createWorker(settings, {
    orm, encryption, ocr, networks, providers, bundlers: new Bundlers(networks, providers, config.BUNDLER_PRIVATE_KEY),
    issuer: new CredentialIssuer(config.VC_ISSUER_KEY, config.VC_ISSUER_NAME), credentialValiditySeconds: config.VC_VALIDITY_SECONDS,
    bank: new BankClient({ baseUrl: config.BANK_API_URL, clientSecret: config.BANK_CLIENT_SECRET, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
  });
  // Ctrl-C reaches the whole process group and the launcher then sends SIGTERM too: shut down once.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      worker.shutdown();
    });
  }
  logger.info({ taskQueue: settings.taskQueue, temporal: settings.address }, 'worker started');
  await worker.run();
  await connection.close();
  providers.destroy();
  await orm.close();
  logger.info('worker stopped');
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
