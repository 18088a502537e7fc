import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { buildRouter } from '../../api/http/router';
import { errorHandler } from '../../api/http/error-handler';
import { requestContext } from '../../api/http/request-context';
import { Screening, type ScreeningContext } from '../../api/compliance/screening';
import type { RouteSpec } from '../../api/http/route-table';
import { createLogger } from '../../platform/logger';

/**
 * A route says which sanctions screening its handler does (RouteSpec.screens), and the OpenAPI document lists that
 * screening's refusals on it (test/unit/step-up-policy.test.ts): a screening its route does not declare fails the
 * request, so no route screens without the document saying so.
 */
describe('the sanctions screening a route declares', () => {
  const screened: string[] = [];
  const screening = new Screening({
    orm: undefined as never,
    screening: {
      screen: async (address: string) => {
        screened.push(address);
        return { listed: false };
      },
    } as never,
  });
  /** A route that screens `address` as `context`, declaring `screens`. */
  const route = (operationId: string, screens: ScreeningContext | undefined, context: ScreeningContext) =>
    ({
      method: 'post',
      path: `/${operationId}`,
      operationId,
      summary: operationId,
      tags: ['Test'],
      auth: 'none',
      ...(screens ? { screens } : {}),
      responses: { 204: { description: 'Screened' } },
      handler: async () => {
        await screening.assertNotSanctioned('usr_1', 'ETHEREUM', operationId, { context });
        return { status: 204 };
      },
    }) as unknown as RouteSpec;

  let server: Server;
  let url: string;
  beforeAll(async () => {
    const koa = new Koa();
    koa.use(requestContext(createLogger({ level: 'silent', name: 'test' })));
    koa.use(errorHandler());
    const routes = [
      route('declared', 'deploy', 'deploy'),
      route('undeclared', undefined, 'recovery'),
      route('another', 'deploy', 'recovery'),
    ];
    const none = undefined as never;
    const router = buildRouter(routes, {
      authenticator: none,
      idempotency: none,
      rateLimits: none,
      stepUp: none,
      jsonBodyMaxBytes: 1024,
    });
    koa.use(router.routes());
    server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  const post = async (path: string) => {
    const answer = await fetch(`${url}/${path}`, { method: 'POST' });
    return `${answer.status} ${answer.status === 204 ? '' : ((await answer.json()) as { type: string }).type}`.trim();
  };

  it('screens where the route declares it', async () => {
    expect(await post('declared')).toBe('204');
    expect(screened).toEqual(['declared']);
  });

  it('fails a screening its route does not declare, or of another kind, before anything is screened', async () => {
    expect(await post('undeclared')).toBe('500 /problems/internal-error');
    expect(await post('another')).toBe('500 /problems/internal-error');
    expect(screened).toEqual(['declared']);
  });

  it('screens outside a request (nothing to declare) as asked', async () => {
    await screening.assertNotSanctioned('usr_1', 'ETHEREUM', 'outside', { context: 'recovery' });
    expect(screened).toContain('outside');
  });
});
