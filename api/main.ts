/** The API process: reads its configuration from the environment, builds real clients (composeApi), serves HTTP. */
import { loadConfig, API_CONFIG_KEYS, ConfigError } from '../platform/config';
import { createLogger } from '../platform/logger';
import { createOrm } from '../db/orm';
import { composeApi } from './composition';
import { createApp } from './app';
import { serveMetrics } from '../platform/metrics';
import { followTestClock } from '../db/test-clock';
import { providerTransport } from '../platform/provider-settings';
import { serveTravelRuleListener, trpIdentity } from './http/trp-listener';

const IDEMPOTENCY_SWEEP_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfig(process.env, API_CONFIG_KEYS);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true });
  // The test clock (embedded stack and tests only): this process keeps to the shared offset.
  const testClock = config.TEST_CLOCK_ENABLED ? await followTestClock(orm) : undefined;
  const deps = await composeApi(config, orm, logger);
  const app = createApp(deps);
  // Prometheus metrics on their own (private) address, when METRICS_PORT is set.
  const metrics =
    config.METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(deps.metrics.registry, config.METRICS_HOST, config.METRICS_PORT);
  if (metrics) logger.info({ url: metrics.url }, 'metrics listening');
  const server = app.koa.listen(config.API_PORT, config.API_HOST, () =>
    logger.info({ port: config.API_PORT }, 'api listening'),
  );
  server.requestTimeout = 60_000;
  // Other VASPs' TRP messages on their own port, over mutual TLS (TRAVEL_RULE_PORT, TRAVEL_RULE_TLS_*).
  const trpTls = providerTransport(config, 'TRAVEL_RULE').tls;
  const trp =
    config.TRAVEL_RULE_PORT === undefined
      ? undefined
      : await serveTravelRuleListener(app.koa.callback(), {
          host: config.TRAVEL_RULE_HOST,
          port: config.TRAVEL_RULE_PORT,
          tls: trpIdentity(trpTls),
        });
  if (trp) logger.info({ port: config.TRAVEL_RULE_PORT }, 'trp listening');
  const sweep = setInterval(
    () => void app.idempotency.sweepExpired().catch((e) => logger.warn({ err: e }, 'idempotency sweep failed')),
    IDEMPOTENCY_SWEEP_MS,
  );
  sweep.unref();

  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return; // SIGINT to the process group, then SIGTERM from the launcher
    stopping = true;
    logger.info('api stopping');
    clearInterval(sweep);
    testClock?.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (trp) await new Promise<void>((resolve) => trp.close(() => resolve()));
    if (metrics) await new Promise<void>((resolve) => metrics.server.close(() => resolve()));
    await deps.close();
    await orm.close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
