import { Wallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { bearer } from '../helpers/wallet';
import { enrolPasskey } from '../helpers/passkeys';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';

/**
 * Every list pages the same way (docs/api-conventions.md, "Lists"): `limit` and `cursor` in; the page, its next
 * cursor, `hasMore` and a `Link: <…>; rel="next"` out. Walked one item at a time through lists that hold several
 * items, following the Link as a client would, against the whole list read at once.
 */
describe.each(testDatabases())('pagination on $name', (kind) => {
  let stack: TestStack;
  let owner: RegisteredUser;
  let stranger: RegisteredUser;
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  const PIN = '582046';

  beforeAll(async () => {
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        OPERATOR_TOKENS: JSON.stringify({ app: operatorTokenHash(operatorToken) }),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    [owner, stranger] = [await registerUser(stack, undefined, { pin: PIN }), await registerUser(stack)];
    for (let i = 0; i < 3; i += 1) {
      const added = await callApi(stack, '/api/v1/transfer/address-book', owner, {
        json: { network: 'ETHEREUM', address: Wallet.createRandom().address },
      });
      expect(added.status).toBe(201);
      const endpoint = await call(`${stack.apiUrl}/v1/webhooks/endpoints`, {
        headers: asOperator,
        json: { url: `${stack.sandboxUrl}/receiver/v1/page-${i}`, eventTypes: ['charge.completed'] },
      });
      expect(endpoint.status).toBe(201);
    }
    for (let i = 0; i < 2; i += 1) await enrolPasskey(stack, owner, { pin: PIN });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** The list's items and paging members, in either API style. */
  const read = async (path: string, headers: Record<string, string>) => {
    const answer = await call(`${stack.apiUrl}${path}`, { headers });
    expect([path, answer.status]).toEqual([path, 200]);
    const envelope = path.startsWith('/api/');
    const body = envelope ? answer.body.data : answer.body;
    return {
      items: (body.items ?? body.transactions) as unknown[],
      nextCursor: (envelope ? body.next_cursor : body.nextCursor) as string | null,
      hasMore: (envelope ? body.has_more : body.hasMore) as boolean,
      link: answer.headers.get('link'),
    };
  };

  /** Walks the list one item at a time by its Link headers; checks each page says the same as its link. */
  const walk = async (path: string, headers: Record<string, string>) => {
    const walked: unknown[] = [];
    let next: string | null = `${path}?limit=1`;
    for (let pages = 0; next; pages += 1) {
      expect(pages).toBeLessThan(50);
      const page = await read(next, headers);
      expect(page.items.length).toBeLessThanOrEqual(1);
      walked.push(...page.items);
      if (page.hasMore) {
        const target = /^<([^>]+)>; rel="next"$/.exec(page.link ?? '')?.[1];
        expect(target).toBeDefined();
        const url = new URL(target!, stack.apiUrl);
        expect([url.pathname, Object.fromEntries(url.searchParams)]).toEqual([
          path,
          { limit: '1', cursor: page.nextCursor },
        ]);
        next = `${url.pathname}${url.search}`;
      } else {
        expect([page.nextCursor, page.link]).toEqual([null, null]);
        next = null;
      }
    }
    return walked;
  };

  const LISTS: Array<{ path: string; who: 'owner' | 'operator'; atLeast: number }> = [
    { path: '/api/v1/transfer/address-book', who: 'owner', atLeast: 3 },
    { path: '/v1/auth/passkeys', who: 'owner', atLeast: 2 },
    { path: '/v1/webhooks/endpoints', who: 'operator', atLeast: 3 },
    { path: '/v1/account/devices', who: 'owner', atLeast: 1 },
    { path: '/v1/did/vcs', who: 'owner', atLeast: 1 },
    { path: '/v1/asset/cex-accounts', who: 'owner', atLeast: 0 },
    { path: '/api/v1/transactions', who: 'owner', atLeast: 0 },
    { path: '/v1/compliance/cases', who: 'operator', atLeast: 0 },
  ];

  it.each(LISTS)('walks $path one item at a time: every item once, in the order of the whole list', async (list) => {
    const headers = list.who === 'owner' ? bearer(owner) : asOperator;
    const whole = await read(`${list.path}?limit=100`, headers);
    expect(whole.hasMore).toBe(false);
    expect(whole.items.length).toBeGreaterThanOrEqual(list.atLeast);
    expect(await walk(list.path, headers)).toEqual(whole.items);
  });

  it('answers a list 1.0.0 answered whole still whole when the request pages neither way, unknown parameters let through', async () => {
    for (const path of ['/api/v1/transfer/address-book', '/v1/auth/passkeys', '/v1/account/devices', '/v1/did/vcs']) {
      const whole = await read(`${path}?_=1732700000`, bearer(owner));
      expect([path, whole.hasMore, whole.nextCursor, whole.link]).toEqual([path, false, null, null]);
      expect(whole.items).toEqual((await read(`${path}?limit=100`, bearer(owner))).items);
    }
    const endpoints = await read('/v1/webhooks/endpoints?_=1', asOperator);
    expect(endpoints.items.length).toBeGreaterThanOrEqual(3);
    // With a cursor alone, a page of the default size (50) follows.
    const first = await read('/api/v1/transfer/address-book?limit=1', bearer(owner));
    const rest = await read(`/api/v1/transfer/address-book?cursor=${first.nextCursor}`, bearer(owner));
    expect(rest.items.length).toBe(2);
  });

  it("gives nothing of another user's list for their cursor, and refuses a cursor it did not make", async () => {
    const first = await read('/api/v1/transfer/address-book?limit=1', bearer(owner));
    expect(first.hasMore).toBe(true);
    // The stranger replays the owner's cursor: the cursor is a position, the user is the token's.
    const replayed = await read(`/api/v1/transfer/address-book?limit=100&cursor=${first.nextCursor}`, bearer(stranger));
    expect(replayed.items).toEqual([]);
    // Another list's cursor (of another shape, or of the same one), forged ones, and garbage: 422 invalid-cursor,
    // never a 500 or a page.
    const passkeys = await read('/v1/auth/passkeys?limit=1', bearer(owner));
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const [path, cursor] of [
      ['/api/v1/transfer/address-book', passkeys.nextCursor!],
      ['/v1/account/devices', passkeys.nextCursor!],
      ['/v1/auth/passkeys', forged([{ t: 'x' }, 1])],
      ['/v1/auth/passkeys', forged(['passkeys', { t: 9_000_000_000_000_000 }, 'pk_x'])],
      ['/v1/auth/passkeys', forged(['passkeys', { t: 0 }, 'pk\u0000'])],
      ['/v1/auth/passkeys', forged(['passkeys', { t: 0 }, { $ne: null }])],
      ['/api/v1/transactions', forged({ t: 1e300, k: 'transfer', id: 'x' })],
      ['/api/v1/transactions', forged({ t: 0, k: 'ledger', id: '1 or 1=1' })],
      ['/v1/account/devices', 'AAAA'],
      ['/v1/did/vcs', 'bm90LWpzb24'],
    ] as const) {
      const refused = await call(`${stack.apiUrl}${path}?cursor=${cursor}`, { headers: bearer(owner) });
      const problem = path.startsWith('/api/') ? refused.body.error : refused.body;
      expect([path, cursor, refused.status, problem.type]).toEqual([path, cursor, 422, '/problems/invalid-cursor']);
    }
    // An events position beyond the events table's 32 bits is a validation error, not a database error.
    const beyond = await call(`${stack.apiUrl}/v1/events?cursor=3000000000`, { headers: asOperator });
    expect([beyond.status, JSON.stringify(beyond.body.errors)]).toEqual([400, expect.stringContaining('/cursor')]);
    // Out-of-range limits and malformed cursors are validation errors with a pointer.
    for (const query of ['limit=0', 'limit=101', 'cursor=%3Cscript%3E']) {
      const refused = await call(`${stack.apiUrl}/v1/auth/passkeys?${query}`, { headers: bearer(owner) });
      expect([query, refused.status]).toEqual([query, 400]);
    }
  });
});
