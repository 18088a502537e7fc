import type { Context, Next } from 'koa';
import { HttpError, problems } from './problems';
import { ConnectionException, DeadlockException, LockWaitTimeoutException } from '@mikro-orm/core';
import { httpErrorFromWorkflow } from './workflow-errors';
import { httpErrorFromDomain } from './domain-problems';

/** Error codes of an unreachable or failing dependency (node sockets, ethers), which a retry may get past. */
export const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'TIMEOUT',
  'SERVER_ERROR',
  'NETWORK_ERROR',
  'UND_ERR_SOCKET',
  'PROVIDER_UNAVAILABLE',
]);

/** PostgreSQL's connection-exception (08…) and operator-intervention (57P…) SQLSTATEs: the server went away or is starting. */
const DATABASE_GONE_STATE = /^(08|57P)/;
/**
 * What node-postgres says when the server closed a connection under it (a restart), and what knex says of a
 * transaction whose connection failed before the statement could run in it (found by the cluster drill: a flush that
 * began while PostgreSQL restarted answered 500).
 */
const DATABASE_GONE_MESSAGE =
  /Connection terminated|not queryable|terminating connection|Transaction query already complete/i;

const dependencyUnavailable = (error: unknown): HttpError | undefined => {
  if (error instanceof ConnectionException) return problems.unavailable('The database is unreachable; retry shortly');
  // Rolled back, nothing written: SQLite's "database is locked" (another process's write held the file past the busy
  // timeout, or a read transaction could not become a write one after another committed), PostgreSQL's deadlock or
  // serialization failure (40P01, 40001). The same request succeeds when sent again.
  if (error instanceof LockWaitTimeoutException || error instanceof DeadlockException)
    return problems.unavailable('The database is busy; retry shortly');
  for (
    let current: unknown = error, depth = 0;
    current && depth < 4;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const { code, sqlState, message } = current as { code?: unknown; sqlState?: unknown; message?: unknown };
    if (
      (typeof sqlState === 'string' && DATABASE_GONE_STATE.test(sqlState)) ||
      (typeof code === 'string' && DATABASE_GONE_STATE.test(code)) ||
      (typeof message === 'string' && DATABASE_GONE_MESSAGE.test(message))
    ) {
      return problems.unavailable('The database is restarting or unreachable; retry shortly');
    }
  }
  for (
    let current: unknown = error, depth = 0;
    current && depth < 4;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code))
      return problems.unavailable('A dependency (chain node or provider) is unreachable; retry shortly');
  }
  return undefined;
};
import { usesEnvelope } from './route-table';

/**
 * The one place errors become responses: RFC 9457 problem+json on /v1/*, the error envelope on /api/v1/*. `onError`
 * sees each error as thrown, before it is mapped (the metrics count dependency errors there).
 */
export const errorHandler =
  (onError: (error: unknown) => void = () => undefined) =>
  async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw problems.notFound(`${ctx.method} ${ctx.path}`);
    } catch (error) {
      onError(error);
      const known =
        error instanceof HttpError
          ? error
          : (httpErrorFromDomain(error) ?? httpErrorFromWorkflow(error) ?? dependencyUnavailable(error));
      const problem = known ?? problems.internal();
      if (!known) ctx.state.log?.error({ err: error }, 'unhandled error');
      else if (problem.status >= 500) ctx.state.log?.warn({ err: error, status: problem.status }, 'request failed');
      const body = {
        ...problem.extensions,
        type: `/problems/${problem.type}`,
        title: problem.title,
        status: problem.status,
        ...(problem.detail ? { detail: problem.detail } : {}),
        ...(ctx.state.requestId ? { instance: `urn:request:${ctx.state.requestId}` } : {}),
        ...(problem.errors ? { errors: problem.errors } : {}),
      };
      ctx.status = problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      if (usesEnvelope(ctx.path)) {
        ctx.body = { status: 'error', error: body };
      } else {
        ctx.body = body;
        ctx.type = 'application/problem+json';
      }
    }
  };
