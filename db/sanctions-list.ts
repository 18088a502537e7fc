import { Statement } from './statement';
import type { ResidentDatabase, Rows } from './resident';
import { clock } from '../platform/clock';
import type { SanctionsListRead } from '../integrations/sanctions';

/**
 * The stored sanctions list's state and its replacement by a new read, as SQL on the resident database
 * (db/resident.ts): the worker reads the state at start and replaces the list on its schedule without opening the ORM;
 * the api reads the state over the ORM's pool (db/sql.ts ormResidentDatabase). Screening's read is db/compliance.ts's.
 */

/** A datetime column as milliseconds: PostgreSQL's as epoch milliseconds, SQLite's as the ORM stores it (milliseconds). */
const msOf = (value: unknown): number =>
  typeof value === 'number' || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value))
    ? Math.round(Number(value))
    : new Date(value as string).getTime();

const LIST_STATE = new Statement<{
  list_date: string;
  refreshed_ms: number | string;
  address_count: number | string;
  sha256: string;
  source_url: string;
}>(
  'sanctions-list-state',
  'select list_date, (extract(epoch from refreshed_at) * 1000)::float8 as refreshed_ms, address_count, sha256, ' +
    'source_url from sanctions_lists where source = ?',
  'select list_date, refreshed_at as refreshed_ms, address_count, sha256, source_url from sanctions_lists where source = ?',
);

/** The stored list of a source: its date, when it was read, how many addresses. */
export async function sanctionsListState(db: Rows, source: string) {
  const [row] = await db.rows(LIST_STATE, [source]);
  return row
    ? {
        listDate: row.list_date,
        refreshedAt: new Date(msOf(row.refreshed_ms)),
        addressCount: Number(row.address_count),
        sha256: row.sha256,
        sourceUrl: row.source_url,
      }
    : null;
}

const LIST_SHA256 = new Statement<{ sha256: string }>(
  'sanctions-list-lock',
  'select sha256 from sanctions_lists where source = ? for update',
  'select sha256 from sanctions_lists where source = ?',
);
const LIST_REFRESHED = new Statement(
  'sanctions-list-refreshed',
  'update sanctions_lists set refreshed_at = ? where source = ?',
);
const LISTED_KEYS = new Statement<{ address_key: string }>(
  'sanctioned-address-keys',
  'select address_key from sanctioned_addresses where source = ?',
);
const UNLIST_ALL = new Statement('sanctioned-addresses-delete', 'delete from sanctioned_addresses where source = ?');
const LIST_UPSERT = new Statement(
  'sanctions-list-upsert',
  'insert into sanctions_lists (source, list_date, refreshed_at, address_count, sha256, source_url) ' +
    'values (?, ?, ?, ?, ?, ?) on conflict (source) do update set list_date = excluded.list_date, ' +
    'refreshed_at = excluded.refreshed_at, address_count = excluded.address_count, sha256 = excluded.sha256, ' +
    'source_url = excluded.source_url',
);

const INSERT_BATCH = 500;
/** The insert of `n` addresses at once, one statement per size (a list's batches have two sizes at most). */
const inserts = new Map<number, Statement>();
const insertOf = (n: number): Statement => {
  let statement = inserts.get(n);
  if (!statement) {
    statement = new Statement(
      `sanctioned-addresses-insert-${n}`,
      `insert into sanctioned_addresses (source, address_key, assets) values ${Array(n).fill('(?, ?, ?)').join(', ')}`,
    );
    inserts.set(n, statement);
  }
  return statement;
};

/**
 * Replaces a source's list in one transaction: every address of the new read in, every address it no longer names
 * out (lists shrink too: delistings), and the list's row updated. Screening reads either the old list or the new one,
 * never a mix. A read identical to the stored one (same digest) only moves refreshedAt.
 */
export async function replaceSanctionsList(
  db: ResidentDatabase,
  source: string,
  read: Pick<SanctionsListRead, 'listDate' | 'addresses' | 'sha256'>,
  sourceUrl: string,
): Promise<{ added: number; removed: number; unchanged: boolean }> {
  return db.transaction(async (tx) => {
    const [current] = await tx.rows(LIST_SHA256, [source]);
    const refreshedAt = clock.date();
    if (current && current.sha256 === read.sha256) {
      await tx.rows(LIST_REFRESHED, [refreshedAt, source]);
      return { added: 0, removed: 0, unchanged: true };
    }
    const before = new Set((await tx.rows(LISTED_KEYS, [source])).map((r) => r.address_key));
    await tx.rows(UNLIST_ALL, [source]);
    const rows = [...read.addresses].map(([addressKey, assets]) => [source, addressKey, [...assets].sort().join(',')]);
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      const batch = rows.slice(i, i + INSERT_BATCH);
      await tx.rows(insertOf(batch.length), batch.flat());
    }
    await tx.rows(LIST_UPSERT, [source, read.listDate, refreshedAt, rows.length, read.sha256, sourceUrl]);
    return {
      added: rows.filter(([, addressKey]) => !before.has(addressKey!)).length,
      removed: [...before].filter((key) => !read.addresses.has(key)).length,
      unchanged: false,
    };
  });
}
