import type { Configuration } from '@mikro-orm/core';
import {
  AbstractSqlDriver,
  BetterSqliteConnection,
  BetterSqliteExceptionConverter,
  BetterSqliteKnexDialect,
  BetterSqlitePlatform,
} from '@mikro-orm/better-sqlite';

/** The part of knex's transaction this changes: how it begins (`_onAcquire` calls it for a top-level transaction). */
interface KnexTransaction {
  begin(connection: unknown): Promise<unknown>;
  /** The transaction's own client, made before `begin` is called; its `query` rejects when the statement fails. */
  trxClient: { query(connection: unknown, sql: string): Promise<unknown> };
}

const converter = new BetterSqliteExceptionConverter();

/**
 * A failure of the driver as MikroORM converts its statements' ("database is locked": LockWaitTimeoutException).
 * Anything with a message is converted, not only an `instanceof Error`: better-sqlite3's native addon builds its
 * errors with the SqliteError class of the first realm that loaded it, so in another realm (a second jest test file in
 * the same worker, as in CI on 2026-12-06) they are not `instanceof Error` there and went through unconverted.
 */
export function driverException(error: unknown): unknown {
  return typeof (error as { message?: unknown } | null)?.message === 'string'
    ? converter.convertException(error as Error)
    : error;
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
 * wait too: the embedded file serves one writer at a time either way. The price, in the embedded run only: the lock
 * is held for the whole transaction, including what a transaction awaits inside it (a transfer's balance check
 * reads the chain under its row lock, a PIN check runs scrypt), and better-sqlite3 waits synchronously, so the other
 * process stands still while it waits (at most the busy timeout, 5 s; local chains answer in milliseconds).
 */
class ImmediateTransactionsDialect extends BetterSqliteKnexDialect {
  transaction(...args: unknown[]): unknown {
    const trx = (super.transaction as (...a: unknown[]) => KnexTransaction)(...args);
    // The constructor only schedules the transaction (its connection is acquired on a later tick), so `begin` is
    // replaced before anything calls it. Through the transaction's client, not knex's `trx.query`: that one swallows a
    // failed BEGIN and hands out the transaction anyway, whose first statement then fails "Transaction query already
    // complete" (answered as a database gone). A BEGIN that waited out the busy timeout fails the transaction here,
    // converted as MikroORM converts its statements' errors ("database is locked": LockWaitTimeoutException, which
    // the api answers 503 "busy"), before anything ran in it.
    trx.begin = (connection) =>
      trx.trxClient.query(connection, 'BEGIN IMMEDIATE;').catch((error: unknown) => {
        throw driverException(error);
      });
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
