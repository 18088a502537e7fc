/**
 * The Temporal worker process: reads its configuration, builds the clients its settings name and what it runs at rest
 * (composeResident), and runs the worker; the ORM and every other activity (composeWorker) are opened on first use.
 */
import { loadConfig, WORKER_CONFIG_KEYS, ConfigError, type WorkerConfig } from '../platform/config';
import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import { createLogger, type Logger } from '../platform/logger';
import { followTestClock } from '../db/clock-offset';
import { assertCurrentSchema, dialectOf } from '../db/migrations';
import { pgResidentDatabase, type ResidentDatabase } from '../db/resident';
import { dataUpgradesDue } from '../db/legacy-data';
import { assertWorkflowBundle, createWorkerOf } from './create-worker';
import { WorkerMetrics } from './metrics';
import { createMetricsRegistry, databaseStatementCounter, serveMetrics } from '../platform/metrics';
import { createTemporalClient, type TemporalSettings } from '../platform/temporal';
import { sanctionsListState } from '../db/sanctions-list';
import { OFAC_SDN } from '../integrations/sanctions';
import { createResidentActivities } from '../activities/resident';
import type { FinalityLooks } from '../activities/resident';
import type { Activities } from '../activities';
import { activitiesByUse, composeResident, openedOnce, type ResidentParts } from './resident';
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
  const metrics = new WorkerMetrics(createMetricsRegistry('worker'));
  const countStatement = databaseStatementCounter(metrics.registry);
  // The ORM and every activity but the resident ones are opened on first use (worker/resident.ts): a worker at rest on
  // PostgreSQL reads through a pool of its own and holds no ORM. On SQLite the ORM's connection is the resident one.
  const orm = openedOnce(async () => {
    const { createOrm, onStatement } = await import('../db/orm');
    const opened = await createOrm(config.DATABASE_URL, { applicationName: 'wallet-worker' });
    onStatement(opened, countStatement);
    return opened;
  });
  const dialect = dialectOf(config.DATABASE_URL);
  const resident: ResidentDatabase =
    dialect === 'postgresql'
      ? pgResidentDatabase(config.DATABASE_URL, {
          applicationName: 'wallet-worker',
          onStatement: countStatement,
          onError: (error) => logger.warn({ err: error }, 'a resident database connection failed while idle'),
        })
      : (await import('../db/sql')).ormResidentDatabase(await orm());
  await assertCurrentSchema(resident, dialect);
  // The test clock (embedded stack and tests only): this process keeps to the shared offset.
  if (config.TEST_CLOCK_ENABLED) await followTestClock(resident);
  const settings = {
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
  };
  const parts = composeResident(config, resident, orm);
  const full = openedOnce(async () => {
    const started = performance.now();
    const [{ composeWorker }, { createActivities, createFinalityLooks }] = await Promise.all([
      import('./composition'),
      import('../activities'),
    ]);
    const deps = composeWorker(config, await orm(), metrics.confirmations, parts);
    const looks = createFinalityLooks(deps);
    const loaded = { deps, activities: createActivities(deps, looks), looks };
    logger.info({ ms: Math.round(performance.now() - started) }, 'activities opened (their first use)');
    return loaded;
  });
  if (await dataUpgradesDue(resident, parts.encryption)) {
    const { deps } = await full();
    const { rekeyAccountNumberHashes, sealLegacyPersonalData } = await import('./data-upgrades');
    const upgraded = {
      rekeyed: await rekeyAccountNumberHashes(deps.orm, deps.encryption),
      sealed: await sealLegacyPersonalData(deps.orm, deps.encryption),
    };
    logger.info(upgraded, 'stored data upgraded (keyed account-number hashes, sealed personal data)');
  }
  const served =
    config.METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(metrics.registry, config.METRICS_HOST, config.METRICS_PORT);
  if (served) logger.info({ url: served.url }, 'metrics listening');
  const activities = activitiesByUse(
    createResidentActivities({ ...parts, finalityLooks: async (): Promise<FinalityLooks> => (await full()).looks }),
    async (): Promise<Activities> => (await full()).activities,
  );
  const { worker, connection } = await createWorkerOf(
    {
      ...settings,
      roles,
      workflowTaskSlots: config.WORKFLOW_TASK_SLOTS,
      ...(config.WORKFLOW_BUNDLE ? { workflowBundle: config.WORKFLOW_BUNDLE } : {}),
    },
    { activities, encryption: parts.encryption },
    metrics,
  );
  // The schedules and the finality watches are the workflows' (a process for capabilities alone starts none).
  if (roles.includes('workflows')) await ensureWorkflowsStarted(config, settings, parts, logger);
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
  // What the first use opened (the chains' providers, the mailer), else the mailer built at start.
  const opened = full.opened();
  if (opened) opened.deps.close();
  else parts.mail.close();
  await orm.opened()?.close();
  await resident.close();
  logger.info('worker stopped');
}

/** The sanctions list's and housekeeping's schedules and each network's finality watch, created once. */
async function ensureWorkflowsStarted(
  config: WorkerConfig,
  settings: TemporalSettings,
  parts: ResidentParts,
  logger: Logger,
): Promise<void> {
  // The sanctions list's schedule (created once; read at once when no current list is stored).
  const client = await createTemporalClient(settings, parts.encryption);
  const list = await sanctionsListState(parts.resident, OFAC_SDN.source);
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
    networkIds: parts.networks.ids(),
  });
  logger.info({ watches }, 'finality watches ensured');
  await client.connection.close();
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
