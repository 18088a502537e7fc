import { appendFileSync } from 'node:fs';
import type { Context, Next } from 'koa';

/**
 * What the test stacks' API answered, one JSON line per request, when RECORD_EXCHANGES names a file: the operation
 * (the router's route name is its operationId), status, JSON request and response bodies and the problem type.
 * `npm run examples:build` turns a recording into the OpenAPI document's examples and problem types
 * (api/http/examples.json); nothing of it runs outside the tests.
 */
export interface RecordedExchange {
  operationId: string;
  method: string;
  status: number;
  /** The parsed JSON request body, when the request sent JSON. */
  request?: unknown;
  /** The JSON answer (problem or not). */
  response?: unknown;
}

export function exchangeRecorder(file: string) {
  return async (ctx: Context, next: Next): Promise<void> => {
    try {
      await next();
    } finally {
      const operationId = (ctx as Context & { _matchedRouteName?: string })._matchedRouteName;
      const json = (value: unknown) =>
        value !== null && typeof value === 'object' && !Buffer.isBuffer(value) && !('pipe' in value)
          ? value
          : undefined;
      if (operationId) {
        const entry: RecordedExchange = {
          operationId,
          method: ctx.method,
          status: ctx.status,
          request: ctx.request.is('json') ? json((ctx.request as { body?: unknown }).body) : undefined,
          response: json(ctx.body),
        };
        appendFileSync(file, `${JSON.stringify(entry)}\n`);
      }
    }
  };
}
