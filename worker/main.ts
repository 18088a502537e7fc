/** The Temporal worker process: reads its configuration, builds every real client (composeWorker) and runs the worker. */
import { loadConfig, WORKER_CONFIG_KEYS, ConfigError, type WorkerConfig } from '../platform/config';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createLogger, type Logger } from '../platform/logger';
import { createOrm, onStatement } from '../db/orm';
import { followTestClock } from '../db/test-clock';
import { assertWorkflowBundle, createWorker } from './create-worker';
import { WorkerMetrics } from './metrics';
import { createMetricsRegistry, databaseStatementCounter, serveMetrics } from '../platform/metrics';
import { composeWorker, type WorkerDeps } from './composition';
import { rekeyAccountNumberHashes, sealLegacyPersonalData } from './data-upgrades';
import { createTemporalClient, type TemporalSettings } from '../platform/temporal';
import { sanctionsListState } from '../db/compliance';
import { OFAC_SDN } from '../integrations/sanctions';
import { ensureHousekeepingSchedule, ensureSanctionsListSchedule } from './schedules';
import { ensureFinalityWatches } from './watches';
import { workerRoles } from './worker-group';

async function main(): Promise<void> {
  const config = loadConfig(process.env, WORKER_CONFIG_KEYS);
  const roles = workerRoles(config.WORKER_CAPABILITIES);
  assertWorkflowBundle(config.WORKFLOW_BUNDLE);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'worker' });
  // The SDK's own logs go through the same structured logger.
  const sdkLog = logger.child({ component: 'temporal-sdk' });
  const sdkLevel = (
    {
      trace: 'TRACE',
      debug: 'DEBUG',
      info: 'INFO',
      warn: 'WARN',
      error: 'ERROR',
      fatal: 'ERROR',
      silent: 'ERROR',
    } as const
  )[config.LOG_LEVEL];
  Runtime.install({
    // The SDK's own metrics (task slots, polls, workflow and activity latencies and failures) in Prometheus format.
    ...(config.TEMPORAL_METRICS_PORT
      ? {
          telemetryOptions: {
            metrics: {
              prometheus: {
                bindAddress: `${config.METRICS_HOST}:${config.TEMPORAL_METRICS_PORT}`,
                countersTotalSuffix: true,
              },
            },
          },
        }
      : {}),
    logger: new DefaultLogger(sdkLevel as LogLevel, ({ level, message, meta }) => {
      const method = ({ TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const)[level];
      sdkLog[method](meta ?? {}, message);
    }),
  });
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true, applicationName: 'wallet-worker' });
  // The test clock (embedded stack and tests only): this process keeps to the shared offset.
  if (config.TEST_CLOCK_ENABLED) await followTestClock(orm);
  const settings = {
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  };
  const metrics = new WorkerMetrics(createMetricsRegistry('worker'));
  onStatement(orm, databaseStatementCounter(metrics.registry));
  const deps = composeWorker(config, orm, metrics.confirmations);
  const upgraded = {
    rekeyed: await rekeyAccountNumberHashes(orm, deps.encryption),
    sealed: await sealLegacyPersonalData(orm, deps.encryption),
  };
  if (upgraded.rekeyed || upgraded.sealed)
    logger.info(upgraded, 'stored data upgraded (keyed account-number hashes, sealed personal data)');
  const served =
    config.METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(metrics.registry, config.METRICS_HOST, config.METRICS_PORT);
  if (served) logger.info({ url: served.url }, 'metrics listening');
  const { worker, connection } = await createWorker(
    { ...settings, roles, ...(config.WORKFLOW_BUNDLE ? { workflowBundle: config.WORKFLOW_BUNDLE } : {}) },
    deps,
    metrics,
  );
  // The schedules and the finality watches are the workflows' (a process for capabilities alone starts none).
  if (roles.includes('workflows')) await ensureWorkflowsStarted(config, settings, deps, logger);
  // Ctrl-C reaches the whole process group and the launcher then sends SIGTERM too: shut down once.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      worker.shutdown();
    });
  }
  logger.info({ roles, taskQueues: worker.taskQueues, temporal: settings.address }, 'worker started');
  await worker.run();
  await connection.close();
  if (served) await new Promise<void>((resolve) => served.server.close(() => resolve()));
  deps.close();
  await orm.close();
  logger.info('worker stopped');
}

/** The sanctions list's and housekeeping's schedules and each network's finality watch, created once. */
async function ensureWorkflowsStarted(
  config: WorkerConfig,
  settings: TemporalSettings,
  deps: WorkerDeps,
  logger: Logger,
): Promise<void> {
  const orm = deps.orm;
  // The sanctions list's schedule (created once; read at once when no current list is stored).
  const client = await createTemporalClient(settings, deps.encryption);
  const list = await sanctionsListState(orm, OFAC_SDN.source);
  const listStored =
    list !== null && Date.now() - list.refreshedAt.getTime() < config.SANCTIONS_LIST_REFRESH_MINUTES * 60_000;
  const schedule = await ensureSanctionsListSchedule(client, {
    taskQueue: settings.taskQueue,
    everyMinutes: config.SANCTIONS_LIST_REFRESH_MINUTES,
    listStored,
  });
  logger.info(
    { schedule, listDate: list?.listDate ?? null, refreshNow: !listStored },
    'sanctions-list-refresh schedule ensured',
  );
  const housekeeping = await ensureHousekeepingSchedule(client, { taskQueue: settings.taskQueue });
  logger.info({ schedule: housekeeping }, 'housekeeping schedule ensured');
  const watches = await ensureFinalityWatches(client, {
    taskQueue: settings.taskQueue,
    networkIds: deps.networks.ids(),
  });
  logger.info({ watches }, 'finality watches ensured');
  await client.connection.close();
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
