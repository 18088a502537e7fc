import { randomUUID } from 'node:crypto';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, Next } from 'koa';
import type { Orm } from '../../db/orm';
import type { Logger } from '../../platform/logger';

const REQUEST_ID = /^[A-Za-z0-9\-_.]{8,128}$/;

/** The request's entity manager, forked on first use (health checks and documents never need one). */
const requestScope = new AsyncLocalStorage<{
  em?: ReturnType<Orm['em']['fork']>;
  sessionUser?: { userId: string; row: Record<string, unknown> };
  screens?: string | null;
}>();

/**
 * The entity manager of the request under way (one per request, so a row read twice in a request is read once), or a
 * fork of its own outside a request.
 */
export const requestEntityManager = (orm: Orm): ReturnType<Orm['em']['fork']> => {
  const scope = requestScope.getStore();
  if (!scope) return orm.em.fork();
  return (scope.em ??= orm.em.fork());
};

/** Keeps the caller's user row the session check read, for the request's handler (see activeUser). */
export const keepSessionUser = (userId: string, row: Record<string, unknown>): void => {
  const scope = requestScope.getStore();
  if (scope) scope.sessionUser = { userId, row };
};

/** The caller's user row kept by the session check, once (it then lives in the request's entity manager). */
export const takeSessionUser = (userId: string): Record<string, unknown> | undefined => {
  const scope = requestScope.getStore();
  const kept = scope?.sessionUser;
  if (!kept || kept.userId !== userId) return undefined;
  scope.sessionUser = undefined;
  return kept.row;
};

/** Keeps the screening the route being served declares (RouteSpec.screens; null: none), for the screening's check. */
export const keepDeclaredScreening = (screens: string | null): void => {
  const scope = requestScope.getStore();
  if (scope) scope.screens = screens;
};

/** The screening the route being served declares: null for none, undefined outside a route's request. */
export const declaredScreening = (): string | null | undefined => requestScope.getStore()?.screens;

/**
 * Request id (echoed as X-Request-Id), a child logger, the request's entity manager, and one access-log line; `headers`
 * are set on every answer (the security headers). The child
 * logger (`ctx.state.log`) is made on first use: with the access log off (LOG_LEVEL above info) a request that logs
 * nothing does not pay for it.
 */
export const requestContext =
  (logger: Logger, headers: Record<string, string> = {}) =>
  async (ctx: Context, next: Next): Promise<void> => {
    for (const name in headers) ctx.res.setHeader(name, headers[name]!);
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    let log: Logger | undefined;
    const requestLog = (): Logger => (log ??= logger.child({ requestId }));
    ctx.state.requestId = requestId;
    Object.defineProperty(ctx.state, 'log', { get: requestLog, enumerable: true, configurable: true });
    ctx.set('x-request-id', requestId);
    const started = process.hrtime.bigint();
    try {
      await requestScope.run({}, next);
    } finally {
      if (logger.isLevelEnabled('info')) {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        // Only the route pattern is logged, never ids in the path, bodies or credentials.
        requestLog().info(
          {
            method: ctx.method,
            route: ctx._matchedRoute ?? 'unmatched',
            status: ctx.status,
            ms: Math.round(ms * 10) / 10,
          },
          'request',
        );
      }
    }
  };
