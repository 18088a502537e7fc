import { Pool, type PoolClient } from 'pg';
import { pgValue, runOnPg, type PgClient, type Statement } from './statement';
import type { Dialect } from './migrations';

/** Runs statements (db/statement.ts), within a transaction when it is one's. */
export interface Rows {
  rows<Row>(statement: Statement<Row>, params: readonly unknown[]): Promise<Row[]>;
}

/**
 * What the worker reads and writes before (and without) its ORM: the schema check at start, the test clock, the
 * sanctions list's state and replacement, the data upgrades' check and the finality watches' look every second. A
 * worker at rest runs only these, so on PostgreSQL it holds no ORM (about 25 MiB resident, issue 52): the ORM is opened by
 * the first activity that needs it (worker/main.ts). On SQLite (the embedded mode) it is the ORM's own connection
 * (db/sql.ts ormResidentDatabase).
 */
export interface ResidentDatabase extends Rows {
  readonly dialect: Dialect;
  /** `work` in one transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Rows) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** At most this many connections: the watches' reads (one a second per network) and the list's replacement. */
const RESIDENT_POOL_MAX = 4;

/** How long a statement waits for a connection (a new one, or one of the pool's while all are busy). */
const RESIDENT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The resident database on PostgreSQL: a pool of its own (node-postgres), each statement named and prepared once per
 * connection, as the ORM's hot statements are. `onStatement` is told of every statement (the worker's
 * db_statements_total); `onError` of a connection's failure (a database restart, a reset socket), idle or in use:
 * the statement running on it fails (its activity is retried), the connection is dropped and the next statement opens
 * a new one. Without a listener on each connection, node-postgres would raise a failure in use as an uncaught error.
 */
export function pgResidentDatabase(
  url: string,
  options: { applicationName?: string; onStatement?: () => void; onError?: (error: Error) => void } = {},
): ResidentDatabase {
  const pool = new Pool({
    connectionString: url,
    max: RESIDENT_POOL_MAX,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: RESIDENT_CONNECT_TIMEOUT_MS,
    keepAlive: true,
    ...(options.applicationName ? { application_name: options.applicationName } : {}),
  });
  const failed = (error: Error) => options.onError?.(error);
  pool.on('error', failed);
  pool.on('connect', (client) => client.on('error', failed));
  const on = (client: PoolClient, inTransaction: boolean): Rows => ({
    rows: <Row>(statement: Statement<Row>, params: readonly unknown[]) => {
      options.onStatement?.();
      return runOnPg(client as unknown as PgClient, statement, params.map(pgValue), inTransaction);
    },
  });
  return {
    dialect: 'postgresql',
    rows: async (statement, params) => {
      const client = await pool.connect();
      try {
        return await on(client, false).rows(statement, params);
      } finally {
        client.release();
      }
    },
    transaction: async (work) => {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        options.onStatement?.();
        await client.query('begin');
        const result = await work(on(client, true));
        options.onStatement?.();
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        // A connection whose rollback failed is not given back to the pool.
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
