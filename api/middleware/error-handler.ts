import type { Context, Next } from 'koa';
import { HttpError, problems } from '../errors';
import { httpErrorFromWorkflow } from '../workflow-errors';
import { usesEnvelope } from '../route-table';

/** The one place errors become responses: RFC 9457 problem+json on /v1/*, the error envelope on /api/v1/*. */
export const errorHandler = () => async (ctx: Context, next: Next): Promise<void> => {
  try {
    await next();
    if (ctx.status === 404 && ctx.body === undefined) throw problems.notFound(`${ctx.method} ${ctx.path}`);
    if (ctx.status === 405 && ctx.body === undefined) throw new HttpError(405, 'method-not-allowed', 'Method not allowed', `${ctx.method} is not supported on ${ctx.path}`);
  } catch (error) {
    const known = error instanceof HttpError ? error : httpErrorFromWorkflow(error) ?? undefined;
    const problem = known ?? problems.internal();
    if (!known) ctx.state.log?.error({ err: error }, 'unhandled error');
    else if (problem.status >= 500) ctx.state.log?.warn({ err: error, status: problem.status }, 'request failed');
    const body = {
      type: `/problems/${problem.type}`, title: problem.title, status: problem.status,
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
