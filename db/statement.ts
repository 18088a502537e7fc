import { createHash } from 'node:crypto';

/** PostgreSQL's longest name (NAMEDATALEN - 1). */
const PG_NAME_BYTES = 63;

/**
 * A statement written as SQL, for both dialects: what db/sql.ts's HotStatement runs on the ORM's pool and
 * db/resident.ts runs on the worker's own pool at rest. This module loads no ORM (a worker at rest holds none).
 *
 * The SQL uses `?` placeholders for both dialects. Values: a Date is given as each dialect's ORM stores it (SQLite:
 * milliseconds), a plain object or array as JSON text, the rest as they are. Where the dialects differ (a row lock,
 * a list of values as one parameter) SQLite's text is given apart.
 */
export class Statement<Row = Record<string, unknown>> {
  readonly pgText: string;
  /**
   * The name PostgreSQL keeps it under: the name itself up to 63 bytes, PostgreSQL's limit. A longer one is cut to
   * its start and a hash of the whole (PostgreSQL would cut it at 63 bytes itself, and two names alike that far would
   * be one statement there: the second one's prepare fails with "prepared statement already exists").
   */
  readonly pgName: string;
  /** Only for the type: the rows it answers. */
  declare readonly rowType?: Row;

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
}

/** PostgreSQL's feature_not_supported, which "cached plan must not change result type" is. */
const STALE_PLAN = '0A000';

/** A node-postgres client (a pooled connection), as both pools hand them out. */
export interface PgClient {
  query(query: { name?: string; text: string; values: unknown[] } | string): Promise<{ rows: unknown[] }>;
  /** node-postgres's connection: the names it has prepared on it, which it would not prepare again. */
  connection?: { parsedStatements: Record<string, string> };
}

/**
 * Runs a statement on one PostgreSQL connection as a named statement (parsed and planned once per connection). A
 * table altered since this connection prepared it (a migration adding a column, with this process running):
 * PostgreSQL refuses the kept plan for good ("cached plan must not change result type"); outside a transaction (which
 * the error has aborted) the statement is prepared again and run once more.
 */
export async function runOnPg<Row>(
  connection: PgClient,
  statement: Statement<Row>,
  values: unknown[],
  inTransaction: boolean,
): Promise<Row[]> {
  const query = { name: statement.pgName, text: statement.pgText, values };
  try {
    return (await connection.query(query)).rows as Row[];
  } catch (error) {
    if ((error as { code?: string }).code !== STALE_PLAN || inTransaction) throw error;
    await connection.query(`deallocate "${statement.pgName}"`);
    delete connection.connection?.parsedStatements[statement.pgName];
    return (await connection.query(query)).rows as Row[];
  }
}

const isJson = (value: unknown): boolean =>
  value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value);

export const pgValue = (value: unknown): unknown => (isJson(value) ? JSON.stringify(value) : value);

export const sqliteValue = (value: unknown): unknown =>
  value instanceof Date ? value.getTime() : typeof value === 'boolean' ? Number(value) : pgValue(value);
