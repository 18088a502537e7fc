import { offlineRoutes } from '../../api/openapi-document';
import { afterCursor, decodeCursor, encodeCursor, pageOf, type KeysetOrder } from '../../api/http/pagination';
import type { RouteSpec } from '../../api/http/route-table';

type Json = Record<string, unknown>;
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema ?? {})) as Json;

/**
 * Lists that answer everything at once, each for a reason that keeps it small; any other list must page. A new list
 * route fails this test until it pages or is added here with its reason.
 */
const WHOLE_LISTS: Record<string, string> = {
  '/problems': 'the problem catalogue: a fixed document of the service',
  '/.well-known/jwks.json': 'the signing keys: one or two during a rotation',
  '/api/v1/transfer/vasps': 'the configured Travel Rule counterparts: settings, the same for every user',
  '/api/v1/bank/accounts': "the bank's own answer of the user's accounts (open banking lists them whole)",
  '/api/v1/other-assets': 'fixed by the interface: {totalValue, assets}, a total over every asset',
  '/api/v1/balance': 'one balance per currency the service holds',
  '/v1/compliance/users/:userId/records': "an export: a regulator's request is answered whole, in one document",
  '/api/v1/bank/consent': 'a consent and the accounts it covers (as the bank answered them)',
  '/api/v1/bank/consent/callback': 'the same consent, as the bank called back',
  '/v1/wallet/networks/:networkId/wallet': "one wallet and its balance per token of the network's settings",
};

const LIST_MEMBERS = new Set([
  'items',
  'transactions',
  'accounts',
  'assets',
  'balances',
  'keys',
  'cases',
  'travelRule',
]);
const arraysOf = (schema: Json): string[] =>
  Object.entries((schema.properties as Record<string, Json> | undefined) ?? {})
    // The collection members a list answers (a resource's own arrays, such as a profile's methods, are not lists).
    .filter(([name, property]) => property.type === 'array' && LIST_MEMBERS.has(name))
    .map(([name]) => name);

describe('one pagination for every list that can grow', () => {
  const routes: RouteSpec[] = offlineRoutes();
  const lists = routes.filter((route) => {
    if (route.method !== 'get') return false;
    // An /api/v1 route declares its `data` (the router puts it in the envelope).
    return arraysOf(plain(route.responses[200]?.schema)).length > 0 && !/:[A-Za-z]+$/.test(route.path);
  });

  it('finds the lists', () => {
    expect(lists.length).toBeGreaterThanOrEqual(15);
  });

  it('pages every list not answered whole for a stated reason: cursor and limit in, the cursor and a Link out', () => {
    const unpaged: string[] = [];
    for (const route of lists) {
      if (route.path in WHOLE_LISTS) continue;
      const query = plain(route.query).properties as Record<string, Json> | undefined;
      const body = plain(route.responses[200]!.schema);
      const snake = route.path.startsWith('/api/');
      const members = body.properties as Record<string, Json>;
      const problems = [
        !query?.cursor && 'no cursor parameter',
        !query?.limit && 'no limit parameter',
        !members[snake ? 'next_cursor' : 'nextCursor'] && 'no next cursor',
        !members[snake ? 'has_more' : 'hasMore'] && 'no has-more flag',
        !route.responses[200]!.headers?.link && 'no Link header declared',
        // A keyset cursor the list did not make (the events feed's is a position: a malformed one is a 400).
        route.path !== '/v1/events' && !route.responses[422] && 'no 422 invalid-cursor declared',
        // The other style's names must not leak in.
        members[snake ? 'nextCursor' : 'next_cursor'] && "the other style's cursor name",
      ].filter(Boolean);
      if (problems.length) unpaged.push(`${route.path}: ${problems.join(', ')}`);
    }
    expect(unpaged).toEqual([]);
  });

  it('keeps the list of whole answers true: each is a list route', () => {
    expect(Object.keys(WHOLE_LISTS).filter((path) => !lists.some((r) => r.path === path))).toEqual([]);
  });
});

describe('keyset cursors', () => {
  const order: KeysetOrder<'at' | 'id'> = {
    list: 'things',
    fields: ['at', 'id'],
    kinds: ['date', 'string'],
    order: 'desc',
  };
  const at = new Date('2026-11-27T01:02:03.456Z');

  it("round-trips a key and refuses anything it did not make, or another list's", () => {
    expect(decodeCursor(encodeCursor('things', [at, 'a']), 'things', order.kinds)).toEqual([at, 'a']);
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const bad of [
      'not-json',
      encodeCursor('things', ['a', 'b']), // a string where a time belongs
      encodeCursor('things', [at]), // a key of another length
      encodeCursor('others', [at, 'a']), // another list's cursor of the same shape
      encodeCursor('things', [at, 'x'.repeat(129)]),
      encodeCursor('things', [at, 'a\u0000']), // PostgreSQL refuses NUL in text: never sent
      encodeCursor('things', [at, { $ne: null } as never]), // an operator where a value belongs
      forged(['things', { t: 9_000_000_000_000_000 }, 'a']), // beyond any Date
      forged(['things', { t: 1.5 }, 'a']),
      forged(['things', { t: 1 }]),
    ])
      expect(() => decodeCursor(bad, 'things', order.kinds)).toThrow(/cursor is not one this API returned/);
  });

  it('reads the rows after the cursor in the order of its fields, bounded on the first for the index', () => {
    const t = new Date(1000);
    expect(afterCursor(order, encodeCursor('things', [t, 'k']))).toEqual({
      $and: [{ at: { $lte: t } }, { $or: [{ at: { $lt: t } }, { at: t, id: { $lt: 'k' } }] }],
    });
    expect(afterCursor(order, undefined)).toEqual({});
  });

  it('says there is more only when the extra row came, and points past the last item answered', () => {
    const rows = [1, 2, 3].map((n) => ({ at: new Date(n), id: `r${n}` }));
    const page = pageOf(rows, 2, order);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(decodeCursor(page.nextCursor!, 'things', order.kinds)).toEqual([new Date(2), 'r2']);
    expect(pageOf(rows, 3, order)).toEqual({ items: rows, hasMore: false, nextCursor: null });
  });
});
