import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { NotFoundError, type EntityDictionary, type EntityManager, type EntityName } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Orm } from './orm';
import { Statement, pgValue, runOnPg, sqliteValue, type PgClient } from './statement';
import type { ResidentDatabase, Rows } from './resident';

/**
 * A hot statement written as SQL, run on the ORM's own pool without its query builder, unit of work or identity map:
 * for the few statements every request of a hot path runs (the session check, a quote's account, a charge start's
 * writes; see bench/NOTES.md, issue 28). PostgreSQL runs it as a named statement, parsed and planned once per pooled
 * connection; SQLite (the embedded mode, in process) runs it as it is. Everything else keeps the ORM. The SQL's
 * placeholders and values are db/statement.ts's.
 */
export class HotStatement<Row = Record<string, unknown>> extends Statement<Row> {
  /**
   * The rows it answers (INSERT … RETURNING included), within the entity manager's transaction when it has one. A
   * failure is the ORM's exception for it, as its own queries throw (UniqueConstraintViolationException,
   * DeadlockException, LockWaitTimeoutException…: the api answers a busy database 503, not 500), the driver's `code`
   * kept.
   */
  async rows(em: EntityManager, params: readonly unknown[]): Promise<Row[]> {
    return runStatement(this, em, params);
  }

  /** The first row, or undefined. */
  async row(em: EntityManager, params: readonly unknown[]): Promise<Row | undefined> {
    return (await this.rows(em, params))[0];
  }

  /**
   * The first row (a `select *` of the entity's table) as the entity manager's own find would answer it: mapped and
   * merged by the ORM (`em.map`: column names, dates, JSON, custom types), so a change to it is flushed as usual.
   * Without the query builder, which is most of a find's CPU.
   */
  async entity<T extends object>(
    em: EntityManager,
    entity: EntityName<T>,
    params: readonly unknown[],
  ): Promise<T | null> {
    const row = await this.row(em, params);
    return row ? em.map(entity, row as unknown as EntityDictionary<T>) : null;
  }

  /** Every row, mapped and merged as `entity` maps one. */
  async entities<T extends object>(em: EntityManager, entity: EntityName<T>, params: readonly unknown[]): Promise<T[]> {
    return (await this.rows(em, params)).map((row) => em.map(entity, row as unknown as EntityDictionary<T>));
  }
}

/**
 * A row locked for the rest of the transaction, as the ORM's `findOneOrFail(…, { lockMode: PESSIMISTIC_WRITE })`
 * locks it (NotFoundError when there is none), with a prepared statement: `select … for update` on PostgreSQL; on
 * SQLite, where a write transaction holds the whole database, the row is only read (as the ORM does there).
 */
export class RowLock {
  private readonly statement: HotStatement;

  constructor(
    name: string,
    private readonly entity: string,
    table: string,
    private readonly keys: readonly string[],
  ) {
    const where = keys.map((key) => `${key} = ?`).join(' and ');
    this.statement = new HotStatement(
      name,
      `select 1 as locked from ${table} where ${where} for update`,
      `select 1 as locked from ${table} where ${where}`,
    );
  }

  /** Locks the row of these key values (in the order of the keys given). */
  async lock(tx: EntityManager, ...values: unknown[]): Promise<void> {
    if (!tx.isInTransaction())
      throw new Error(`${this.statement.name}: a row lock outside a transaction holds nothing`);
    if (!(await this.statement.row(tx, values)))
      throw NotFoundError.findOneFailed(this.entity, Object.fromEntries(this.keys.map((key, i) => [key, values[i]])));
  }
}

/**
 * The user's row, locked: what orders a user's limits and budgets (the day's transfers, sponsored gas). What it guards
 * is read by a statement of its own after the lock, never joined into the locking one: on PostgreSQL a `select … for
 * update` that waited for the lock re-checks only the locked row, and would count the other rows as of its start,
 * without what the transaction it waited for recorded.
 */
export const USER_LOCK = new RowLock('user-lock', 'User', 'users', ['id']);

export const isPostgres = (em: EntityManager): boolean => em.getDriver() instanceof PostgreSqlDriver;

interface KnexClient {
  emit(event: 'query', query: { sql: string; method: string; bindings: unknown[] }): boolean;
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}

const knexClientOf = (em: EntityManager): KnexClient =>
  ((em.getConnection() as unknown as AbstractSqlConnection).getKnex() as unknown as { client: KnexClient }).client;

/**
 * Runs a statement on the ORM's pool, within the entity manager's transaction when it has one. A failure is the ORM's
 * exception for it, as its own queries throw (UniqueConstraintViolationException, DeadlockException,
 * LockWaitTimeoutException…: the api answers a busy database 503, not 500), the driver's `code` kept.
 */
async function runStatement<Row>(
  statement: Statement<Row>,
  em: EntityManager,
  params: readonly unknown[],
): Promise<Row[]> {
  try {
    const transaction = em.getTransactionContext<unknown>();
    if (!isPostgres(em)) {
      return (await em
        .getConnection()
        .execute(statement.sqliteSql, params.map(sqliteValue), 'all', transaction)) as unknown as Row[];
    }
    const values = params.map(pgValue);
    // Inside a transaction, knex's transaction client answers its own connection (and releasing it does nothing).
    const client = transaction ? (transaction as { client: KnexClient }).client : knexClientOf(em);
    const connection = await client.acquireConnection();
    // Told as knex tells its own statements, so one listener counts both (db/orm.ts onStatement).
    client.emit('query', { sql: statement.pgText, method: 'raw', bindings: values });
    try {
      return await runOnPg(connection, statement, values, Boolean(transaction));
    } finally {
      await client.releaseConnection(connection);
    }
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

/**
 * The worker's resident database (db/resident.ts) over the ORM's own pool: what the worker uses on SQLite (the
 * embedded mode, one file the ORM already holds open) and what the in-process test stack's worker uses.
 */
export function ormResidentDatabase(orm: Orm): ResidentDatabase {
  const over = (em: EntityManager): Rows => ({
    rows: <Row>(statement: Statement<Row>, params: readonly unknown[]) => runStatement(statement, em, params),
  });
  return {
    ...over(orm.em),
    dialect: isPostgres(orm.em) ? 'postgresql' : 'sqlite',
    transaction: (work) => orm.em.fork().transactional((tx) => work(over(tx))),
    close: async () => undefined,
  };
}
