import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import { ALL_ENTITIES } from './entities';
import { assertCurrentSchema, dialectOf, migrationsFor } from './migrations';

export { dialectOf };
import { ormResidentDatabase } from './sql';

export type Orm = MikroORM;

/**
 * MikroORM options for a DATABASE_URL: `sqlite:<file>` (embedded) or `postgresql://...` (production). Only that
 * dialect's driver is loaded: a process on PostgreSQL never loads SQLite's (about 10 MiB at rest, issue 52). The
 * migrator and the dialect's migrations only with `migrator: true` (what migrates: `db:migrate`, the embedded
 * launcher, tests); the api and the worker check the schema without them (see createOrm).
 */
export async function ormOptions(
  databaseUrl: string,
  { migrator = false, applicationName }: { migrator?: boolean; applicationName?: string } = {},
): Promise<Options> {
  const dialect = dialectOf(databaseUrl);
  const common: Options = {
    entities: ALL_ENTITIES,
    ...(migrator
      ? {
          extensions: [(await import('@mikro-orm/migrations')).Migrator],
          migrations: {
            migrationsList: await migrationsFor(dialect),
            transactional: true,
            allOrNothing: true,
            silent: true,
          },
        }
      : {}),
    discovery: { warnWhenNoEntities: true },
    allowGlobalContext: false,
    // Tables owned by a library rather than an entity (created by migrations all the same).
    schemaGenerator: { skipTables: ['rate_limits'] },
    debug: false,
  };
  if (dialect === 'sqlite') {
    const file = databaseUrl.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const { SqliteDriver } = await import('./sqlite-driver');
    return { ...common, driver: SqliteDriver, dbName: file, pool: { min: 1, max: 1 } } as Options;
  }
  const { PostgreSqlDriver } = await import('@mikro-orm/postgresql');
  return {
    ...common,
    driver: PostgreSqlDriver,
    clientUrl: databaseUrl,
    pool: { min: 0, max: 10 },
    // Who each connection is, in pg_stat_activity and the server's log (`%a`): the api, the worker, a tool.
    ...(applicationName ? { driverOptions: { connection: { application_name: applicationName } } } : {}),
  } as Options;
}

/**
 * Opens the database. `migrate: true` applies pending migrations (tests, the embedded launcher, `db:migrate`);
 * `migrator: true` loads the migrator without running it; `requireCurrentSchema: true` refuses to start a process
 * against a schema that is behind the code (the applied migrations read from MikroORM's table, compared by name).
 * `applicationName` names the connections on PostgreSQL (`wallet-api`, `wallet-worker`).
 */
export async function createOrm(
  databaseUrl: string,
  options: { migrate?: boolean; migrator?: boolean; requireCurrentSchema?: boolean; applicationName?: string } = {},
): Promise<Orm> {
  const orm = await MikroORM.init(
    await ormOptions(databaseUrl, {
      migrator: Boolean(options.migrate || options.migrator),
      applicationName: options.applicationName,
    }),
  );
  if (dialectOf(databaseUrl) === 'sqlite') {
    // WAL lets the API and the worker (separate processes) share the embedded file safely.
    const connection = orm.em.getConnection();
    await connection.execute('pragma journal_mode = WAL');
    await connection.execute('pragma busy_timeout = 5000');
  }
  if (options.migrate) await orm.getMigrator().up();
  if (options.requireCurrentSchema) {
    try {
      await assertCurrentSchema(ormResidentDatabase(orm), dialectOf(databaseUrl));
    } catch (error) {
      await orm.close();
      throw error;
    }
  }
  return orm;
}

/**
 * Calls `listener` for every statement the ORM's connection sends (knex's `query` event: the ORM's statements, BEGIN
 * and COMMIT, and the hot statements of db/sql.ts, which tell the same event).
 */
export function onStatement(orm: Orm, listener: () => void): void {
  (orm.em.getConnection() as unknown as { getKnex(): { on(event: 'query', listener: () => void): void } })
    .getKnex()
    .on('query', listener);
}
