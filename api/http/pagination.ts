import type { Context } from 'koa';
import { problems } from './problems';

/**
 * One pagination for every list that can grow (docs/api-conventions.md, "Lists"): the request names `limit` and the
 * `cursor` of the previous page; the answer carries the page, its cursor (`nextCursor` on /v1, `next_cursor` on
 * /api/v1, null on the last page), `hasMore`/`has_more`, and a `Link: <…>; rel="next"` (RFC 8288) to the next page.
 *
 * Pages are keyset pages: the cursor is the sort key of the last item answered, so an item added or removed between
 * two pages never makes another one skipped or repeated. The cursor is opaque to clients (base64url JSON).
 */
export interface PageRequest {
  cursor?: string;
  limit?: number;
}

type KeyValue = string | number | Date;
type Encoded = string | number | { t: number };

/** Rows in keyset order: the fields that make the order total (a time, then the row's unique id), and its direction. */
export interface KeysetOrder<F extends string> {
  fields: readonly F[];
  order: 'asc' | 'desc';
}

export const INVALID_CURSOR_DETAIL = 'cursor is not one this API returned for this list; start again without it';
const invalidCursor = () => problems.unprocessable('invalid-cursor', INVALID_CURSOR_DETAIL);

export function encodeCursor(values: readonly KeyValue[]): string {
  const encoded: Encoded[] = values.map((v) => (v instanceof Date ? { t: v.getTime() } : v));
  return Buffer.from(JSON.stringify(encoded)).toString('base64url');
}

/** The key a cursor holds, checked against the list's own key (same length, each value of its field's kind). */
export function decodeCursor(text: string, sample: readonly ('date' | 'string' | 'number')[]): KeyValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== sample.length) throw invalidCursor();
  return parsed.map((value: unknown, i) => {
    const kind = sample[i];
    if (kind === 'date') {
      const t = (value as { t?: unknown } | null)?.t;
      if (typeof t !== 'number' || !Number.isSafeInteger(t)) throw invalidCursor();
      return new Date(t);
    }
    if (typeof value !== kind) throw invalidCursor();
    if (typeof value === 'string' && value.length > 200) throw invalidCursor();
    return value as string | number;
  });
}

/**
 * The filter for rows after the cursor in keyset order: (a, b, c) > (A, B, C) as
 * `a > A or (a = A and b > B) or (a = A and b = B and c > C)` (`<` for a descending order), which every database
 * the service runs on plans from the same index as the ORDER BY.
 */
export function afterCursor<F extends string>(
  order: KeysetOrder<F>,
  kinds: readonly ('date' | 'string' | 'number')[],
  cursor: string | undefined,
): Record<string, unknown> {
  if (!cursor) return {};
  const key = decodeCursor(cursor, kinds);
  const beyond = order.order === 'asc' ? '$gt' : '$lt';
  const branches = order.fields.map((field, i) => ({
    ...Object.fromEntries(order.fields.slice(0, i).map((f, j) => [f, key[j]])),
    [field]: { [beyond]: key[i] },
  }));
  return { $or: branches };
}

/** The ORDER BY of a keyset order. */
export const orderBy = <F extends string>(order: KeysetOrder<F>): Record<F, 'asc' | 'desc'> =>
  Object.fromEntries(order.fields.map((f) => [f, order.order])) as Record<F, 'asc' | 'desc'>;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** A page from rows read with `limit + 1`: the extra row only says there is more. */
export function pageOf<T, F extends string>(
  rows: T[],
  limit: number,
  order: KeysetOrder<F>,
  keyOf: (row: T) => KeyValue[] = (row) => order.fields.map((f) => (row as Record<string, KeyValue>)[f]!),
): Page<T> {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { items, hasMore, nextCursor: hasMore ? encodeCursor(keyOf(items.at(-1)!)) : null };
}

/**
 * `Link: <…>; rel="next"` (RFC 8288) to the next page: this request's own path and query with the cursor replaced
 * (and a deprecated alias of it left out), relative to the service, as the answer's `nextCursor` says.
 */
export function nextLink(
  ctx: Context,
  nextCursor: string | null,
  replaces: readonly string[] = [],
): Record<string, string> {
  if (!nextCursor) return {};
  const query = new URLSearchParams(ctx.querystring);
  for (const name of replaces) query.delete(name);
  query.set('cursor', nextCursor);
  return { link: `<${ctx.path}?${query.toString()}>; rel="next"` };
}
