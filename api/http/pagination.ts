import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/core';
import { problems } from './problems';

/**
 * One pagination for every list that can grow (docs/api-conventions.md, "Lists"): the request names `limit` and the
 * `cursor` of the previous page; the answer carries the page, its cursor (`nextCursor` on /v1, `next_cursor` on
 * /api/v1, null on the last page), `hasMore`/`has_more`, and a `Link: <…>; rel="next"` (RFC 8288) to the next page.
 *
 * Pages are keyset pages: the cursor holds the list's name and the sort key of the last item answered, so an item
 * added or removed between two pages never makes another one skipped or repeated, and a cursor of another list is
 * refused. Clients treat it as opaque (base64url JSON, not a promise of its form).
 */
export interface PageRequest {
  cursor?: string;
  limit?: number;
}

export type KeyKind = 'date' | 'string' | 'number';
type KeyValue = string | number | Date;
type Encoded = string | number | { t: number };

/**
 * A list's keyset order: its name (in every cursor it makes), the fields that make the order total (a time, then the
 * row's unique id), their kinds, and the direction.
 */
export interface KeysetOrder<F extends string> {
  list: string;
  fields: readonly F[];
  kinds: readonly KeyKind[];
  order: 'asc' | 'desc';
}

export const INVALID_CURSOR_DETAIL = 'cursor is not one this API returned for this list; start again without it';
const invalidCursor = () => problems.unprocessable('invalid-cursor', INVALID_CURSOR_DETAIL);
/** JavaScript's (and so the stored) time range: ±100,000,000 days from 1970. */
const MAX_TIME = 8.64e15;
/** What a key's string may hold: ids, network names, EVM and base58 addresses (no NUL, no quote, nothing to escape). */
const KEY_STRING = /^[A-Za-z0-9_.:-]{1,128}$/;

export function encodeCursor(list: string, values: readonly KeyValue[]): string {
  const encoded: Encoded[] = values.map((v) => (v instanceof Date ? { t: v.getTime() } : v));
  return Buffer.from(JSON.stringify([list, ...encoded])).toString('base64url');
}

/** The key a cursor holds, checked against the list's own: its name, length, and each value of its field's kind. */
export function decodeCursor(text: string, list: string, kinds: readonly KeyKind[]): KeyValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== kinds.length + 1 || parsed[0] !== list) throw invalidCursor();
  return parsed.slice(1).map((value: unknown, i) => {
    const kind = kinds[i];
    if (kind === 'date') {
      const t = (value as { t?: unknown } | null)?.t;
      if (typeof t !== 'number' || !Number.isInteger(t) || Math.abs(t) > MAX_TIME) throw invalidCursor();
      return new Date(t);
    }
    if (kind === 'number') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalidCursor();
      return value;
    }
    if (typeof value !== 'string' || !KEY_STRING.test(value)) throw invalidCursor();
    return value;
  });
}

/**
 * The filter for rows after the cursor in keyset order: (a, b, c) > (A, B, C) as
 * `a >= A and (a > A or (a = A and b > B) or (a = A and b = B and c > C))` (`<` for a descending order); the bound on
 * the first field alone lets the database start its index scan at the cursor instead of filtering from the top.
 */
export function afterCursor<F extends string>(
  order: KeysetOrder<F>,
  cursor: string | undefined,
): Record<string, unknown> {
  if (!cursor) return {};
  const key = decodeCursor(cursor, order.list, order.kinds);
  const [beyond, from] = order.order === 'asc' ? (['$gt', '$gte'] as const) : (['$lt', '$lte'] as const);
  const branches = order.fields.map((field, i) => ({
    ...Object.fromEntries(order.fields.slice(0, i).map((f, j) => [f, key[j]])),
    [field]: { [beyond]: key[i] },
  }));
  return { $and: [{ [order.fields[0]!]: { [from]: key[0] } }, { $or: branches }] };
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
export function pageOf<T, F extends string>(rows: T[], limit: number, order: KeysetOrder<F>): Page<T> {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = items.at(-1) as Record<string, KeyValue> | undefined;
  return {
    items,
    hasMore,
    nextCursor:
      hasMore && last
        ? encodeCursor(
            order.list,
            order.fields.map((f) => last[f]!),
          )
        : null,
  };
}

/**
 * One page of an entity's rows matching `where`, in the list's keyset order. `whole: true` keeps 1.0.0's answer for a
 * list that was answered whole then: a request that names neither `limit` nor `cursor` gets every row (one page).
 */
export async function findPage<T, F extends string>(
  em: EntityManager,
  entity: unknown,
  where: Record<string, unknown>,
  order: KeysetOrder<F>,
  page: PageRequest,
  options: { defaultLimit: number; whole?: boolean },
): Promise<Page<T>> {
  const whole = options.whole && page.limit === undefined && page.cursor === undefined;
  const limit = page.limit ?? options.defaultLimit;
  const rows = (await em.find(
    entity as never,
    { ...where, ...afterCursor(order, page.cursor) } as never,
    { orderBy: orderBy(order), ...(whole ? {} : { limit: limit + 1 }) } as never,
  )) as T[];
  return whole ? { items: rows, hasMore: false, nextCursor: null } : pageOf(rows, limit, order);
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
