import type { SqlEntityManager } from '@mikro-orm/knex';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm';
import { ProcessNonceLock, type NonceLock } from '../integrations/evm/nonce-lock';

/**
 * Across worker processes on PostgreSQL: a transaction-scoped advisory lock per sending key (the recovery key) and network, held from
 * reading the nonce to the broadcast. Within the process a queue comes first, so a process holds at most one database
 * connection per key while it waits.
 */
export class PostgresNonceLock implements NonceLock {
  private readonly local = new ProcessNonceLock();

  constructor(private readonly orm: Orm) {}

  exclusive<T>(key: string, send: () => Promise<T>): Promise<T> {
    return this.local.exclusive(key, () =>
      this.orm.em.fork().transactional(async (em) => {
        await (em as SqlEntityManager).execute('select pg_advisory_xact_lock(hashtextextended(?, 0))', [
          `bundler-nonce:${key}`,
        ]);
        return send();
      }),
    );
  }
}

/** The nonce lock a worker process needs: shared through the database on PostgreSQL, in-process on SQLite. */
export const nonceLockFor = (orm: Orm): NonceLock =>
  orm.em.getDriver() instanceof PostgreSqlDriver ? new PostgresNonceLock(orm) : new ProcessNonceLock();
