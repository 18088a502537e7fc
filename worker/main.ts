/** The Temporal worker process: the only place (with api/main.ts) that builds real clients. */
import { loadConfig, WORKER_CONFIG_KEYS, ConfigError } from '../platform/config';
import { createLogger } from '../platform/logger';
import { DataEncryption } from '../platform/data-encryption';
import { createOrm } from '../db/orm';
import { OcrProviderClient } from '../activities/ocr';
import { createWorker } from './create-worker';

async function main(): Promise<void> {
  const config = loadConfig(process.env, WORKER_CONFIG_KEYS);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  const encryption = new DataEncryption(config.DATA_ENCRYPTION_KEY);
  const orm = await createOrm(config.DATABASE_URL, { migrate: true });
  const ocr = new OcrProviderClient({ baseUrl: config.OCR_PROVIDER_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS });
  const settings = { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE };
  const { worker, connection } = await createWorker(settings, { orm, encryption, ocr });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  logger.info({ taskQueue: settings.taskQueue, temporal: settings.address }, 'worker started');
  await worker.run();
  await connection.close();
  await orm.close();
  logger.info('worker stopped');
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
