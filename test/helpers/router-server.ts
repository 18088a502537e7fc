import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { buildRouter } from '../../api/http/router';
import { errorHandler } from '../../api/http/error-handler';
import type { RouteSpec } from '../../api/http/route-table';

/**
 * The API's router over a route table of a test's own, behind the API's error handler, on a loopback port: for routes
 * that need no auth, idempotency or rate limits.
 */
export async function serveRoutes(routes: RouteSpec[]): Promise<{ url: string; close(): void }> {
  const koa = new Koa();
  koa.use(errorHandler());
  const router = buildRouter(routes, {
    authenticator: undefined as never,
    idempotency: undefined as never,
    rateLimits: undefined as never,
    stepUp: undefined as never,
    jsonBodyMaxBytes: 1024,
  });
  koa.use(router.routes());
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
