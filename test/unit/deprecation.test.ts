import { Type } from '@sinclair/typebox';
import { serveRoutes } from '../helpers/router-server';
import { buildOpenApi } from '../../api/http/openapi';
import type { RouteSpec } from '../../api/http/route-table';

/** A deprecated operation next to its successor, as CHANGELOG.md's policy says one is served. */
const since = new Date('2026-11-01T00:00:00Z');
const sunset = new Date('2027-05-01T00:00:00Z');
const routes: RouteSpec[] = [
  {
    method: 'get',
    path: '/v1/old/:id',
    operationId: 'oldThing',
    summary: 'The old way',
    tags: ['Test'],
    auth: 'none',
    params: Type.Object({ id: Type.String({ pattern: '^[a-z]+$' }) }),
    deprecated: { since, sunset, successor: '/v2/things/{id}' },
    responses: { 200: { description: 'The thing', schema: Type.Object({ id: Type.String() }) } },
    handler: async ({ params }) => ({ status: 200, body: { id: (params as { id: string }).id } }),
  },
  {
    method: 'get',
    path: '/v2/things/:id',
    operationId: 'thing',
    summary: 'The new way',
    tags: ['Test'],
    auth: 'none',
    responses: { 200: { description: 'The thing' } },
    handler: async () => ({ status: 200, body: {} }),
  },
];

describe('a deprecated operation', () => {
  let server: Awaited<ReturnType<typeof serveRoutes>>;
  let url: string;
  beforeAll(async () => {
    server = await serveRoutes(routes);
    url = server.url;
  });
  afterAll(() => {
    server.close();
  });

  it('says so on every answer, its refusals too: Deprecation (RFC 9745), Sunset (RFC 8594) and its successor', async () => {
    for (const [path, status] of [
      ['/v1/old/abc', 200],
      ['/v1/old/ABC', 400],
    ] as const) {
      const answer = await fetch(`${url}${path}`);
      expect(answer.status).toBe(status);
      expect(answer.headers.get('deprecation')).toBe(`@${since.getTime() / 1000}`);
      expect(answer.headers.get('sunset')).toBe('Sat, 01 May 2027 00:00:00 GMT');
      expect(answer.headers.get('link')).toBe('</v2/things/{id}>; rel="successor-version"');
    }
    const current = await fetch(`${url}/v2/things/abc`);
    expect(current.headers.get('deprecation')).toBeNull();
    expect(current.headers.get('sunset')).toBeNull();
  });

  it('is marked deprecated in the OpenAPI document, with its dates and the headers on each answer', () => {
    const document = buildOpenApi(routes, { version: 'test' }) as {
      paths: Record<
        string,
        Record<
          string,
          {
            deprecated?: boolean;
            description?: string;
            responses: Record<string, { headers: Record<string, unknown> }>;
          }
        >
      >;
    };
    const old = document.paths['/v1/old/{id}']!.get!;
    expect(old.deprecated).toBe(true);
    expect(old.description).toBe('Deprecated since 2026-11-01; answers until 2027-05-01; use /v2/things/{id} instead.');
    for (const response of Object.values(old.responses))
      expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['deprecation', 'sunset']));
    const current = document.paths['/v2/things/{id}']!.get!;
    expect(current.deprecated).toBeUndefined();
    expect(Object.keys(current.responses['200']!.headers)).not.toContain('sunset');
  });
});
