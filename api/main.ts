/** The API process: reads its configuration from the environment, builds real clients (composeApi), serves HTTP. */
import { readFileSync } from 'node:fs';
import { loadConfig, API_CONFIG_KEYS, ConfigError } from '../platform/config';
import { createLogger } from '../platform/logger';
import { createOrm, onStatement } from '../db/orm';
import { composeApi } from './composition';
import { createApp } from './app';
import { databaseStatementCounter, serveMetrics } from '../platform/metrics';
import { followTestClock } from '../db/clock-offset';
import { ormResidentDatabase } from '../db/sql';
import { providerTransport } from '../platform/provider-settings';
import { serveTravelRuleListener, trpIdentity } from './http/trp-listener';
import { codeResponseApp, serveCodeListener } from './http/code-listener';

const IDEMPOTENCY_SWEEP_MS = 10 * 60 * 1000;

async function main(): Promise<void> {
  const config = loadConfig(process.env, API_CONFIG_KEYS);
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'api' });
  const orm = await createOrm(config.DATABASE_URL, { requireCurrentSchema: true, applicationName: 'wallet-api' });
  // The test clock (embedded stack and tests only): this process keeps to the shared offset.
  const testClock = config.TEST_CLOCK_ENABLED ? await followTestClock(ormResidentDatabase(orm)) : undefined;
  const deps = await composeApi(config, orm, logger);
  onStatement(orm, databaseStatementCounter(deps.metrics.registry));
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
  // CODE's Response API on its own port, for CODE's addresses only (TRAVEL_RULE_CODE_*).
  const codeIdentity = deps.codeIdentity;
  const code =
    codeIdentity && deps.services.codeInbound && config.TRAVEL_RULE_CODE_PORT !== undefined
      ? await serveCodeListener(
          codeResponseApp({
            inbound: deps.services.codeInbound,
            vasps: deps.codeVasps,
            publicKey: codeIdentity.publicKey,
            allowed: codeIdentity.allowed,
            logger,
          }),
          {
            host: config.TRAVEL_RULE_CODE_HOST,
            port: config.TRAVEL_RULE_CODE_PORT,
            tls: codeServerTls(config),
            allowed: codeIdentity.allowed,
          },
        )
      : undefined;
  if (code) logger.info({ port: config.TRAVEL_RULE_CODE_PORT }, 'code response api listening');
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
    if (code) await new Promise<void>((resolve) => code.close(() => resolve()));
    if (metrics) await new Promise<void>((resolve) => metrics.server.close(() => resolve()));
    await deps.close();
    await orm.close();
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop());
}

/** TRAVEL_RULE_CODE_SERVER_CERT_FILE and _KEY_FILE: the Response API's own certificate, when it serves HTTPS. */
function codeServerTls(config: {
  TRAVEL_RULE_CODE_SERVER_CERT_FILE?: string;
  TRAVEL_RULE_CODE_SERVER_KEY_FILE?: string;
}): { cert: string; key: string } | undefined {
  const { TRAVEL_RULE_CODE_SERVER_CERT_FILE: certFile, TRAVEL_RULE_CODE_SERVER_KEY_FILE: keyFile } = config;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile)
    throw new ConfigError(['TRAVEL_RULE_CODE_SERVER_CERT_FILE and TRAVEL_RULE_CODE_SERVER_KEY_FILE go together']);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
