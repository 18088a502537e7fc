import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { RequestContext } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import type { Logger } from '../../platform/logger';

const REQUEST_ID = /^[A-Za-z0-9\-_.]{8,128}$/;

/** Request id (echoed as X-Request-Id), a child logger, an entity-manager fork, and one access-log line. */
export const requestContext = (orm: Orm, logger: Logger) => async (ctx: Context, next: Next): Promise<void> => {
  const incoming = ctx.get('x-request-id');
  const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
  const log = logger.child({ requestId });
  ctx.state.requestId = requestId;
  ctx.state.log = log;
  ctx.set('x-request-id', requestId);
  const started = process.hrtime.bigint();
  try {
    await RequestContext.create(orm.em, next);
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // Only the route pattern is logged, never ids in the path, bodies or credentials.
    log.info({ method: ctx.method, route: ctx._matchedRoute ?? 'unmatched', status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
  }
};
