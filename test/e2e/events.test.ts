import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { connectBankAccount, openBankAccount } from '../helpers/bank';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { ChargeEntity, EventEntity } from '../../db/entities';

interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  resource: { type: string; id: string };
  sequence: number;
  userId: string | null;
  data: Record<string, unknown>;
}

/** The outbox and the events API: every committed change of state once, in commit order, with a per-resource sequence. */
describe.each(testDatabases())('events on $name', (kind) => {
  let stack: TestStack;
  let user: RegisteredUser;
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      env: { OPERATOR_TOKENS: JSON.stringify({ app: operatorTokenHash(operatorToken) }) },
    });
    user = await registerUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  });

  const events = async (query: Record<string, string>) => {
    const answer = await call(`${stack.apiUrl}/v1/events?${new URLSearchParams(query)}`, { headers: asOperator });
    expect(answer.status).toBe(200);
    return answer.body as { items: EventBody[]; nextCursor: string; hasMore: boolean };
  };
  /** Waits until the charge's workflow has written its last state. */
  const settled = async (chargeId: string) => {
    for (let i = 0; i < 100; i += 1) {
      const charge = await stack.orm.em.fork().findOne(ChargeEntity, { chargeId });
      if (charge && charge.status !== 'processing') return charge;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`charge ${chargeId} did not settle`);
  };

  it('tells a registration step by step, then its completion and the KYC credential, each once', async () => {
    const regEvents = (await events({ userId: user.userId })).items;
    const completed = regEvents.find((e) => e.type === 'registration.completed')!;
    expect(completed.data).toEqual({ regId: completed.resource.id, userId: user.userId });
    const registration = (await events({ resourceId: completed.resource.id })).items;
    expect(registration.map((e) => [e.type, e.data.step ?? null, e.sequence])).toEqual([
      ['registration.step_changed', 'pass', 1],
      ['registration.step_changed', 'ekyc', 2],
      ['registration.step_changed', 'backup', 3],
      ['registration.completed', null, 4],
    ]);
    expect(regEvents.filter((e) => e.type === 'credential.issued').map((e) => e.data.credentialType)).toEqual([
      'KycCredential',
    ]);
  });

  it('tells a charge from processing to completed with growing sequence numbers, in commit order, and pages by cursor', async () => {
    const account = await openBankAccount(stack, user.person, 1_000_000);
    await connectBankAccount(stack, user, account);
    const chargeIds: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const key = randomUUID();
      const execute = () =>
        call(`${stack.apiUrl}/api/v1/charge/execute`, {
          headers: { authorization: `Bearer ${user.accessToken}`, 'idempotency-key': key },
          json: { source: account.bankCode, amount: '1000', currency: 'KRW' },
        });
      const accepted = await execute();
      expect(accepted.status).toBe(202);
      // A retry with the same key is the same charge: no second charge.processing.
      expect((await execute()).body.data.charge_id).toBe(accepted.body.data.charge_id);
      chargeIds.push(accepted.body.data.charge_id);
      await settled(accepted.body.data.charge_id);
    }
    for (const chargeId of chargeIds) {
      const { items } = await events({ resourceId: chargeId });
      expect(items.map((e) => [e.type, e.sequence])).toEqual([
        ['charge.processing', 1],
        ['charge.completed', 2],
      ]);
      expect(items[1]!.data).toEqual({ chargeId, amount: '1000', currency: 'KRW' });
      expect(new Set(items.map((e) => e.id)).size).toBe(2);
    }
    const verified = (await events({ userId: user.userId, type: 'bank_verification.verified' })).items;
    expect(verified).toHaveLength(1);

    // Paging one at a time from the start finds every event of the user once, in the order of the whole list; the
    // Link header names the same next page as nextCursor.
    const all = (await events({ userId: user.userId, limit: '500' })).items.map((e) => e.id);
    const paged: string[] = [];
    let cursor = '0';
    for (;;) {
      const answer = await call(
        `${stack.apiUrl}/v1/events?${new URLSearchParams({ userId: user.userId, cursor, limit: '3' })}`,
        { headers: asOperator },
      );
      const page = answer.body as { items: EventBody[]; nextCursor: string; hasMore: boolean };
      paged.push(...page.items.map((e) => e.id));
      expect(answer.headers.get('deprecation')).toBeNull();
      if (page.hasMore) {
        const next = new URL(/^<([^>]+)>; rel="next"$/.exec(answer.headers.get('link') ?? '')![1]!, stack.apiUrl);
        expect(Object.fromEntries(next.searchParams)).toEqual({
          userId: user.userId,
          cursor: page.nextCursor,
          limit: '3',
        });
      } else expect(answer.headers.get('link')).toBeNull();
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect(paged).toEqual(all);
    expect((await events({ userId: user.userId, cursor })).items).toEqual([]);
    expect((await events({ userId: user.userId, cursor })).nextCursor).toBe(cursor);

    // `after`, the deprecated former name of `cursor`, still pages the same, and says it is deprecated.
    const old = await call(
      `${stack.apiUrl}/v1/events?${new URLSearchParams({ userId: user.userId, after: '0', limit: '3' })}`,
      {
        headers: asOperator,
      },
    );
    expect(old.body.items.map((e: EventBody) => e.id)).toEqual(all.slice(0, 3));
    expect(old.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(new Date(old.headers.get('sunset')!).toISOString()).toBe('2027-05-31T00:00:00.000Z');
    expect(new URL(/^<([^>]+)>/.exec(old.headers.get('link')!)![1]!, stack.apiUrl).searchParams.has('after')).toBe(
      false,
    );
  });

  it("writes a failed charge's event once, when the bank refuses it, and no event for a change that did not happen", async () => {
    const account = await openBankAccount(stack, user.person, 10); // too little for the charge
    // The user's second account at this bank: named by its id (the bank's code alone is ambiguous now).
    const connected = await connectBankAccount(stack, user, account);
    const accepted = await call(`${stack.apiUrl}/api/v1/charge/execute`, {
      headers: { authorization: `Bearer ${user.accessToken}`, 'idempotency-key': randomUUID() },
      json: { source: connected.bank_account_id, amount: '5000', currency: 'KRW' },
    });
    const chargeId = accepted.body.data.charge_id as string;
    const charge = await settled(chargeId);
    const { items } = await events({ resourceId: chargeId });
    expect(items.map((e) => e.type)).toEqual(['charge.processing', `charge.${charge.status}`]);
    // Every event row belongs to a state the database holds: the outbox never runs ahead of the change.
    const rows = await stack.orm.em
      .fork()
      .find(EventEntity, { resourceId: chargeId }, { orderBy: { sequence: 'asc' } });
    expect(rows.at(-1)!.type).toBe(`charge.${charge.status}`);
  });

  it('is for operators only, and refuses malformed queries with a pointer', async () => {
    expect((await call(`${stack.apiUrl}/v1/events`)).status).toBe(401);
    expect(
      (await call(`${stack.apiUrl}/v1/events`, { headers: { authorization: `Bearer ${user.accessToken}` } })).status,
    ).toBe(401);
    for (const [query, pointer] of [
      ['after=-1', '/after'],
      ['cursor=-1', '/cursor'],
      ['cursor=5&after=6', '/after'],
      ['type=charge.exploded', '/type'],
      ['limit=0', '/limit'],
      ['limit=501', '/limit'],
      ['sort=desc', '/sort'],
      ['type=DROP TABLE', '/type'],
    ] as const) {
      const refused = await call(`${stack.apiUrl}/v1/events?${query}`, { headers: asOperator });
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body.errors)).toContain(pointer);
    }
    expect((await call(`${stack.apiUrl}/v1/events/evt_${randomUUID()}`, { headers: asOperator })).status).toBe(404);
    const one = (await events({ limit: '1' })).items[0]!;
    expect((await call(`${stack.apiUrl}/v1/events/${one.id}`, { headers: asOperator })).body).toEqual(one);
  });
});
