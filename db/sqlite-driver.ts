import type { Configuration } from '@mikro-orm/core';
import {
  AbstractSqlDriver,
  BetterSqliteConnection,
  BetterSqliteKnexDialect,
  BetterSqlitePlatform,
} from '@mikro-orm/better-sqlite';

/** The part of knex's transaction this changes: how it begins (`_onAcquire` calls it for a top-level transaction). */
interface KnexTransaction {
  begin(connection: unknown): Promise<unknown>;
  query(connection: unknown, sql: string): Promise<unknown>;
}

/**
 * knex's better-sqlite3 client, whose top-level transactions begin IMMEDIATE (savepoints are unchanged).
 *
 * knex begins a plain (DEFERRED) transaction: it reads under a snapshot and asks for the write lock only at its first
 * write. On the embedded file the api and the worker are two processes; when the other one committed in between, that
 * write is refused at once, whatever the busy timeout (SQLITE_BUSY_SNAPSHOT), and the request answered 503 (seen in
 * npm-start.test's walk-through, CI of 2026-12-05: a transfer-key change while the worker recorded the deploy's
 * events). BEGIN IMMEDIATE takes the write lock first, waiting up to the busy timeout for the other process's
 * transaction to end, so a transaction that reads then writes is never refused halfway; and a row read "for update"
 * (db/sql.ts, which SQLite reads plainly) is then held by the transaction, as on PostgreSQL. Read-only transactions
 * wait too: the embedded file serves one writer at a time either way.
 */
class ImmediateTransactionsDialect extends BetterSqliteKnexDialect {
  transaction(...args: unknown[]): unknown {
    const trx = (super.transaction as (...a: unknown[]) => KnexTransaction)(...args);
    // The constructor only schedules the transaction (its connection is acquired on a later tick), so `begin` is
    // replaced before anything calls it.
    trx.begin = (connection) => trx.query(connection, 'BEGIN IMMEDIATE;');
    return trx;
  }
}

class ImmediateTransactionsConnection extends BetterSqliteConnection {
  override createKnex(): void {
    // createKnexClient takes knex's client class (declared as its name).
    this.client = this.createKnexClient(ImmediateTransactionsDialect as unknown as string);
    this.connected = true;
  }
}

/** MikroORM's better-sqlite driver (BetterSqliteDriver, whose constructor this is) over the connection above. */
export class SqliteDriver extends AbstractSqlDriver<ImmediateTransactionsConnection, BetterSqlitePlatform> {
  constructor(config: Configuration) {
    super(config, new BetterSqlitePlatform(), ImmediateTransactionsConnection, ['knex', 'better-sqlite3']);
  }
}
