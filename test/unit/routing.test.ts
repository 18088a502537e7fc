import Koa from 'koa';
import { Type } from '@sinclair/typebox';
import { serveRoutes } from '../helpers/router-server';
import type { RouteSpec } from '../../api/http/route-table';

const route = (method: RouteSpec['method'], path: string, operationId: string, params?: RouteSpec['params']) =>
  ({
    method,
    path,
    operationId,
    summary: operationId,
    tags: ['Test'],
    auth: 'none',
    ...(params ? { params } : {}),
    responses: { 200: { description: 'ok' } },
    handler: async (input: { params: unknown }, ctx: Koa.Context) => ({
      status: 200,
      body: {
        operationId,
        params: input.params,
        matched: (ctx as Koa.Context & { _matchedRoute?: string })._matchedRoute,
      },
    }),
  }) as unknown as RouteSpec;

/** A route table shaped like the service's: a static path beside a parametric one of another method. */
const routes: RouteSpec[] = [
  route('post', '/api/v1/charge/execute', 'executeCharge'),
  route('get', '/api/v1/charge/:chargeId', 'getCharge', Type.Object({ chargeId: Type.String({ pattern: '^chg_' }) })),
  route('get', '/v1/things/:id', 'getThing', Type.Object({ id: Type.String() })),
  route('delete', '/v1/things/:id', 'deleteThing', Type.Object({ id: Type.String() })),
  route('get', '/healthz', 'health'),
];

/**
 * The API's router (a radix tree in front of the route table) keeps the matching rules of Koa's router the service
 * used before: case-insensitive paths, an optional trailing slash, percent-decoded parameters, HEAD by the GET route,
 * 405 with Allow (OPTIONS: Allow) for a path other methods take, 404 for a path nothing takes.
 */
describe('routing', () => {
  let server: Awaited<ReturnType<typeof serveRoutes>>;
  let url: string;
  beforeAll(async () => {
    server = await serveRoutes(routes);
    url = server.url;
  });
  afterAll(() => {
    server.close();
  });

  it('finds a route by method and path, with its template for metrics and its decoded parameters', async () => {
    const answer = await fetch(`${url}/v1/things/a%20b`);
    expect(await answer.json()).toEqual({ operationId: 'getThing', params: { id: 'a b' }, matched: '/v1/things/:id' });
    const removed = await fetch(`${url}/v1/things/x`, { method: 'DELETE' });
    expect(((await removed.json()) as { operationId: string }).operationId).toBe('deleteThing');
  });

  it('matches paths whatever their case and with a trailing slash, keeping the parameters as sent', async () => {
    expect(((await (await fetch(`${url}/V1/Things/AbC/`)).json()) as { params: unknown }).params).toEqual({
      id: 'AbC',
    });
    expect((await fetch(`${url}/HEALTHZ`)).status).toBe(200);
  });

  it('answers HEAD through the GET route, without a body', async () => {
    const head = await fetch(`${url}/healthz`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
  });

  it('answers 405 with Allow of the methods whose routes take the path, their parameters checked', async () => {
    const patch = await fetch(`${url}/v1/things/x`, { method: 'PATCH' });
    expect([patch.status, patch.headers.get('allow')]).toEqual([405, 'HEAD, GET, DELETE']);
    // GET /charge/:chargeId would take /charge/execute but for its pattern: only POST is offered.
    const get = await fetch(`${url}/api/v1/charge/execute`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const options = await fetch(`${url}/api/v1/charge/execute`, { method: 'OPTIONS' });
    expect([options.status, options.headers.get('allow')]).toEqual([200, 'POST']);
    expect((await fetch(`${url}/api/v1/charge/chg_1`)).status).toBe(200);
  });

  it('answers 404 for a path no route takes, whatever the method', async () => {
    expect((await fetch(`${url}/v1/nothing`)).status).toBe(404);
    expect((await fetch(`${url}/v1/nothing`, { method: 'OPTIONS' })).status).toBe(404);
    expect((await fetch(`${url}/v1/things`, { method: 'PATCH' })).status).toBe(404);
  });
});
