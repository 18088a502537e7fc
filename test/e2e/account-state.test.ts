import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { UserEntity } from '../../db/entities';

interface Operation {
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; schema?: { pattern?: string; format?: string } }>;
  requestBody?: unknown;
}

/** A value its pattern admits, so the request reaches the route rather than a 404 of the router. */
function sampleParameter(schema: { pattern?: string; format?: string } = {}): string {
  const prefixed = /^\^([a-z]+)_\[0-9a-f-\]\{36\}\$$/.exec(schema.pattern ?? '');
  if (prefixed) return `${prefixed[1]}_${randomUUID()}`;
  if (schema.pattern?.startsWith('^[A-Z]')) return 'ETHEREUM';
  return schema.format === 'uuid' ? randomUUID() : 'x';
}

describe('a user who is no longer active', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const setStatus = (user: RegisteredUser, status: 'active' | 'suspended' | 'closed') =>
    stack.orm.em.fork().nativeUpdate(UserEntity, { id: user.userId }, { status });

  it('is refused on every Bearer route of the route table, the same way (problem+json or envelope by path family), before anything else happens', async () => {
    const [active, suspended, closed] = [
      await registerUser(stack),
      await registerUser(stack),
      await registerUser(stack),
    ];
    await setStatus(suspended, 'suspended');
    await setStatus(closed, 'closed');
    const document = (await call(`${stack.apiUrl}/openapi.json`)).body as {
      paths: Record<string, Record<string, Operation>>;
    };
    const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.security?.some((s) => 'bearerAuth' in s))
        .map(([method, op]) => ({
          method: method.toUpperCase(),
          url: `${stack.apiUrl}${path.replace(/\{(\w+)\}/g, (_, name: string) => sampleParameter(op.parameters?.find((p) => p.in === 'path' && p.name === name)?.schema))}`,
          body: op.requestBody ? {} : undefined,
        })),
    );
    expect(routes.length).toBeGreaterThan(40);
    // Signing out ends the active user's device: tried last, so every other route is tried with a live token.
    routes.sort((a, b) => Number(a.url.endsWith('/sign-out')) - Number(b.url.endsWith('/sign-out')));
    const answers: string[] = [];
    for (const route of routes) {
      for (const [user, expected] of [
        [suspended, 401],
        [closed, 401],
        [active, 'reached'],
      ] as const) {
        const answer = await call(route.url, {
          method: route.method,
          headers: {
            authorization: `Bearer ${user.accessToken}`,
            'idempotency-key': randomUUID(),
            'x-device-id': user.deviceId,
          },
          ...(route.body ? { json: route.body } : {}),
        });
        const got =
          expected === 'reached'
            ? answer.status === 401
              ? 'refused'
              : 'reached'
            : `${answer.status} ${answer.body?.type ?? answer.body?.error?.type}`;
        const want = expected === 'reached' ? 'reached' : '401 /problems/invalid-token';
        if (got !== want)
          answers.push(
            `${route.method} ${route.url.slice(stack.apiUrl.length)} as ${user === active ? 'active' : user === closed ? 'closed' : 'suspended'}: ${got}`,
          );
      }
    }
    expect(answers).toEqual([]);
  });

  it('gets no new tokens by refresh or by the registration grant, and keeps the refresh token for when it is active again', async () => {
    const user = await registerUser(stack);
    const refresh = () =>
      call(`${stack.apiUrl}/v1/auth/token`, {
        headers: { 'x-device-id': user.deviceId },
        json: { grantType: 'refresh_token', refreshToken: user.refreshToken },
      });
    const registrationGrant = () =>
      call(`${stack.apiUrl}/v1/auth/token`, {
        headers: { 'x-device-id': user.deviceId, 'x-pass-token': user.passToken },
        json: { grantType: 'registration', regId: user.regId },
      });
    await setStatus(user, 'suspended');
    const refused = await refresh();
    expect([refused.status, refused.body.type]).toEqual([401, '/problems/invalid-token']);
    expect((await registrationGrant()).status).toBe(401);
    await setStatus(user, 'active');
    const renewed = await refresh();
    expect(renewed.status).toBe(200);
    expect(renewed.body.accessToken).toEqual(expect.any(String));
  });
});
