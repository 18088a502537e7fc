/**
 * `npm run temporal:cluster`: the production Temporal server on PostgreSQL, in the foreground until Ctrl-C.
 *   TEMPORAL_POSTGRES_URL=postgresql://user:password@host:port  use that PostgreSQL server (its role must be able to
 *                                                              create the databases temporal and temporal_visibility)
 *   otherwise                                                   a PostgreSQL server of its own, data in .data/temporal-cluster/postgresql
 * The frontend listens on 127.0.0.1:$TEMPORAL_PORT (7233): point TEMPORAL_ADDRESS of the api and worker there.
 * `--build-only` builds the server binaries into .tools/bin (once) and exits: what CI does before the tests.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgresInstance, POSTGRES_SUPERUSER, type PostgresInstance } from './postgres-instance';
import { ensureTemporalServer, startTemporalCluster, type ClusterDatabase } from './temporal-cluster';
import { resolveTemporalCli } from './temporal-cli';

const DIR = join(__dirname, '..', '.data', 'temporal-cluster');

async function main(): Promise<void> {
  if (process.argv.includes('--build-only')) {
    const { server, sql } = ensureTemporalServer((line) => console.error(line));
    console.log(`${server} ${sql}`);
    return;
  }
  mkdirSync(DIR, { recursive: true });
  chmodSync(DIR, 0o755);
  let postgres: PostgresInstance | undefined;
  let database: ClusterDatabase;
  const url = process.env.TEMPORAL_POSTGRES_URL;
  if (url) {
    const parsed = new URL(url);
    database = {
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      user: decodeURIComponent(parsed.username),
      password: decodeURIComponent(parsed.password) || undefined,
    };
  } else {
    postgres = startPostgresInstance(join(DIR, 'postgresql'), Number(process.env.TEMPORAL_POSTGRES_PORT ?? 5433));
    console.log(`PostgreSQL of the cluster: ${postgres.url}`);
    database = { host: '127.0.0.1', port: postgres.port, user: POSTGRES_SUPERUSER };
  }
  const cluster = await startTemporalCluster(
    {
      database,
      frontendPort: Number(process.env.TEMPORAL_PORT ?? 7233),
      dir: join(DIR, 'server'),
      log: (line) => console.log(line),
    },
    resolveTemporalCli({ build: true, log: (line) => console.log(line) }),
  );
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await cluster.stop();
    postgres?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  cluster.process.once('exit', (code) => {
    if (stopping) return;
    postgres?.stop();
    console.error(`Temporal server exited (${code})`);
    process.exit(1);
  });
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
