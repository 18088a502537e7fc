import { Health, OpenApiDocument, Readiness } from './schemas';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { HttpError } from '../http/problems';
import type { Logger } from '../../platform/logger';
import { JwksResponse } from '../auth/schemas';
import type { TokenService } from '../auth/tokens';
import { DOCS_CSP, DOCS_PAGE, scalarBundle } from '../http/docs-page';

export interface SystemRouteDeps {
  orm: Orm;
  temporal: Client;
  tokens: TokenService;
  openApi: () => unknown;
}

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref())]);

export function systemRoutes({ orm, temporal, tokens, openApi }: SystemRouteDeps): RouteSpec[] {
  const tags = ['System'];
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      credentials: false,
      operationId: 'health',
      tags,
      auth: 'none',
      summary: 'Liveness: the process answers',
      description:
        'For a liveness probe: answers 200 `{"status":"ok"}` whenever the process can answer, without asking the ' +
        'database or Temporal (GET /readyz checks those). No credential.',
      responses: { 200: { description: 'Alive', schema: Health } },
      handler: async () => ({ status: 200, body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      credentials: false,
      operationId: 'readiness',
      tags,
      auth: 'none',
      summary: 'Readiness: the database and Temporal are reachable',
      description:
        'Public, so it says only which check failed; why (error texts that may name internal addresses or logins) goes to the log.',
      responses: {
        200: { description: 'Ready', schema: Readiness },
        503: { description: 'A dependency is unreachable: `checks` says which' },
      },
      handler: async (_input, ctx) => {
        const check = async (name: string, probe: () => Promise<unknown>) =>
          withTimeout(probe(), 2000).then(
            () => 'ok' as const,
            (error: Error) => {
              (ctx.state.log as Logger).warn({ check: name, err: error }, 'readiness check failed');
              return 'unreachable' as const;
            },
          );
        const checks = {
          database: await check('database', () => orm.em.getConnection().execute('select 1')),
          temporal: await check('temporal', () => temporal.workflowService.getSystemInfo({})),
        };
        if (checks.database !== 'ok' || checks.temporal !== 'ok') {
          const failed = Object.entries(checks)
            .filter(([, v]) => v !== 'ok')
            .map(([k]) => k);
          throw new HttpError(
            503,
            'not-ready',
            'Service unavailable',
            `Not ready: ${failed.join(' and ')} unreachable`,
            undefined,
            { 'retry-after': '5' },
            false,
            { checks },
          );
        }
        return { status: 200, body: { status: 'ready', checks } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/.well-known/jwks.json',
      credentials: false,
      operationId: 'jwks',
      tags,
      auth: 'none',
      summary: 'Public keys that verify access tokens',
      description:
        'The ES256 (P-256) public key of JWT_PRIVATE_JWK, with the `kid` every access token names in its header: a ' +
        'server that accepts our access tokens verifies them with it, checking issuer, audience, expiry and `typ: ' +
        'at+jwt` as well. Cacheable for 5 minutes (Cache-Control: public, max-age=300); no credential.',
      responses: { 200: { description: 'JSON Web Key Set', schema: JwksResponse } },
      handler: async () => ({ status: 200, body: tokens.jwks(), headers: { 'cache-control': 'public, max-age=300' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      credentials: false,
      operationId: 'openApiDocument',
      tags,
      auth: 'none',
      summary: 'This OpenAPI 3.1 document',
      description:
        'Generated from the route table the router itself runs: paths, schemas, statuses, each step-up policy ' +
        '(`x-step-up`), examples recorded from real answers, and every event type as a webhook. `servers` names ' +
        'PUBLIC_BASE_URL when it is set; the same document without `servers` is committed as ' +
        'clients/typescript/openapi.json, which the typed client is generated from.',
      responses: { 200: { description: 'OpenAPI document', schema: OpenApiDocument } },
      handler: async () => ({ status: 200, body: openApi() }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      credentials: false,
      operationId: 'docsPage',
      tags,
      auth: 'none',
      summary: 'Readable API documentation (HTML)',
      description:
        'The API reference of GET /openapi.json, rendered by Scalar from GET /docs/scalar.js: no CDN, fonts or ' +
        'telemetry, and a Content-Security-Policy that keeps every request on this origin, so it works without ' +
        'internet access.',
      responses: { 200: { description: 'HTML page' } },
      handler: async (_input, ctx) => {
        ctx.type = 'text/html';
        return { status: 200, body: DOCS_PAGE, headers: { 'content-security-policy': DOCS_CSP } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/scalar.js',
      credentials: false,
      operationId: 'docsRenderer',
      tags,
      auth: 'none',
      summary: "The docs page's renderer (Scalar's standalone bundle, from its npm package)",
      description:
        'The script GET /docs loads: the standalone browser bundle of the installed @scalar/api-reference package ' +
        '(about 4 MB), read from disk once per process. Cacheable for a day (Cache-Control: public, ' +
        'max-age=86400); an app has no use for it.',
      responses: { 200: { description: 'JavaScript' } },
      handler: async (_input, ctx) => {
        ctx.type = 'text/javascript';
        return { status: 200, body: scalarBundle(), headers: { 'cache-control': 'public, max-age=86400' } };
      },
    }),
  ];
}
