import { createHash } from 'node:crypto';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { NotFoundError, type EntityDictionary, type EntityManager, type EntityName } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';

/** PostgreSQL's longest name (NAMEDATALEN - 1). */
const PG_NAME_BYTES = 63;

/**
 * A hot statement written as SQL, run on the ORM's own pool without its query builder, unit of work or identity map:
 * for the few statements every request of a hot path runs (the session check, a quote's account, a charge start's
 * writes; see bench/NOTES.md, issue 28). PostgreSQL runs it as a named statement, parsed and planned once per pooled
 * connection; SQLite (the embedded mode, in process) runs it as it is. Everything else keeps the ORM.
 *
 * The SQL uses `?` placeholders for both dialects. Values: a Date is given as each dialect's ORM stores it (SQLite:
 * milliseconds), a plain object or array as JSON text, the rest as they are. Where the dialects differ (a row lock,
 * a list of values as one parameter) SQLite's text is given apart.
 */
export class HotStatement<Row = Record<string, unknown>> {
  private readonly pgText: string;
  /**
   * The name PostgreSQL keeps it under: the name itself up to 63 bytes, PostgreSQL's limit. A longer one is cut to
   * its start and a hash of the whole (PostgreSQL would cut it at 63 bytes itself, and two names alike that far would
   * be one statement there: the second one's prepare fails with "prepared statement already exists").
   */
  private readonly pgName: string;

  constructor(
    readonly name: string,
    readonly sql: string,
    /** SQLite's text, where it differs (SQLite has no `for update`: a write transaction there is the database's). */
    readonly sqliteSql: string = sql,
  ) {
    let n = 0;
    this.pgText = sql.replace(/\?/g, () => `$${++n}`);
    this.pgName =
      Buffer.byteLength(name) <= PG_NAME_BYTES
        ? name
        : `${name.slice(0, 40)}#${createHash('sha256').update(name).digest('hex').slice(0, 16)}`;
  }

  /**
   * The rows it answers (INSERT … RETURNING included), within the entity manager's transaction when it has one. A
   * failure is the ORM's exception for it, as its own queries throw (UniqueConstraintViolationException,
   * DeadlockException, LockWaitTimeoutException…: the api answers a busy database 503, not 500), the driver's `code`
   * kept.
   */
  async rows(em: EntityManager, params: readonly unknown[]): Promise<Row[]> {
    try {
      return await this.run(em, params);
    } catch (error) {
      throw em.getDriver().convertException(error as Error);
    }
  }

  private async run(em: EntityManager, params: readonly unknown[]): Promise<Row[]> {
    const transaction = em.getTransactionContext<unknown>();
    if (!isPostgres(em)) {
      return (await em
        .getConnection()
        .execute(this.sqliteSql, params.map(sqliteValue), 'all', transaction)) as unknown as Row[];
    }
    const values = params.map(pgValue);
    // Inside a transaction, knex's transaction client answers its own connection (and releasing it does nothing).
    const client = transaction ? (transaction as { client: KnexClient }).client : knexClientOf(em);
    const connection = await client.acquireConnection();
    // Told as knex tells its own statements, so one listener counts both (db/orm.ts onStatement).
    client.emit('query', { sql: this.pgText, method: 'raw', bindings: values });
    const query = { name: this.pgName, text: this.pgText, values };
    try {
      return (await connection.query(query)).rows as Row[];
    } catch (error) {
      // A table altered since this connection prepared the statement (a migration adding a column, with this process
      // running): PostgreSQL refuses the kept plan for good ("cached plan must not change result type"). Outside a
      // transaction (which the error has aborted) the statement is prepared again and run once more.
      if ((error as { code?: string }).code !== STALE_PLAN || transaction) throw error;
      await connection.query(`deallocate "${this.pgName}"`);
      delete connection.connection?.parsedStatements[this.pgName];
      return (await connection.query(query)).rows as Row[];
    } finally {
      await client.releaseConnection(connection);
    }
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

/** PostgreSQL's feature_not_supported, which "cached plan must not change result type" is. */
const STALE_PLAN = '0A000';

interface PgClient {
  query(query: { name: string; text: string; values: unknown[] } | string): Promise<{ rows: unknown[] }>;
  /** node-postgres's connection: the names it has prepared on it, which it would not prepare again. */
  connection?: { parsedStatements: Record<string, string> };
}
interface KnexClient {
  emit(event: 'query', query: { sql: string; method: string; bindings: unknown[] }): boolean;
  acquireConnection(): Promise<PgClient>;
  releaseConnection(connection: PgClient): Promise<void>;
}

const knexClientOf = (em: EntityManager): KnexClient =>
  ((em.getConnection() as unknown as AbstractSqlConnection).getKnex() as unknown as { client: KnexClient }).client;

const isJson = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value);

const pgValue = (value: unknown): unknown => (isJson(value) ? JSON.stringify(value) : value);

const sqliteValue = (value: unknown): unknown =>
  value instanceof Date ? value.getTime() : typeof value === 'boolean' ? Number(value) : pgValue(value);
