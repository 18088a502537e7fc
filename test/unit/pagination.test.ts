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
  '/api/v1/bank/consent': 'a consent and the accounts it covers (as the bank answered them)',
  '/api/v1/bank/consent/callback': 'the same consent, as the bank called back',
  '/v1/wallet/networks/:networkId/wallet': "one wallet and its balance per token of the network's settings",
};

const LIST_MEMBERS = new Set(['items', 'transactions', 'accounts', 'assets', 'balances', 'keys']);
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
  const order: KeysetOrder<'at' | 'id'> = { fields: ['at', 'id'], order: 'desc' };

  it('round-trips a key and refuses anything it did not make', () => {
    const at = new Date('2026-11-27T01:02:03.456Z');
    expect(decodeCursor(encodeCursor([at, 'a']), ['date', 'string'])).toEqual([at, 'a']);
    for (const bad of [
      'not-json',
      encodeCursor(['a', 'b']), // a string where a time belongs
      encodeCursor([at]), // another list's key (its length)
      encodeCursor([at, 'x'.repeat(201)]),
      Buffer.from('{"t":1}').toString('base64url'),
    ])
      expect(() => decodeCursor(bad, ['date', 'string'])).toThrow(/cursor is not one this API returned/);
  });

  it('reads the rows after the cursor in the order of its fields', () => {
    const at = new Date(1000);
    expect(afterCursor(order, ['date', 'string'], encodeCursor([at, 'k']))).toEqual({
      $or: [{ at: { $lt: at } }, { at, id: { $lt: 'k' } }],
    });
    expect(afterCursor(order, ['date', 'string'], undefined)).toEqual({});
  });

  it('says there is more only when the extra row came, and points past the last item answered', () => {
    const rows = [1, 2, 3].map((n) => ({ at: new Date(n), id: `r${n}` }));
    const page = pageOf(rows, 2, order);
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(page.hasMore).toBe(true);
    expect(decodeCursor(page.nextCursor!, ['date', 'string'])).toEqual([new Date(2), 'r2']);
    expect(pageOf(rows, 3, order)).toEqual({ items: rows, hasMore: false, nextCursor: null });
  });
});
