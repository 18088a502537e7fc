import Koa from 'koa';
import cors from '@koa/cors';
import { routeTable } from './route-table';
import { authorizeRegistration } from './registration/guard';
import { requestContext } from './http/request-context';
import { errorHandler } from './http/error-handler';
import { Authenticator } from './http/authenticate';
import { IdempotencyStore } from './http/idempotency';
import { buildRouter } from './http/router';
import type { RouteSpec } from './http/route-table';
import type { RateLimits } from './http/rate-limits';
import type { AppDeps } from './deps';
import type { Services } from './services';

export type { AppDeps } from './deps';

export interface App {
  koa: Koa;
  routes: RouteSpec[];
  idempotency: IdempotencyStore;
  rateLimits: RateLimits;
}

/** On every answer: no sniffing, no framing, no referrer, no caching (a route may set its own cache-control). */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The Koa application, built only from the clients and services it is given (api/composition.ts builds them). */
export function createApp(deps: AppDeps & { services: Services }): App {
  const { config, orm, tokens, rateLimits } = deps;
  const idempotency = new IdempotencyStore(
    orm,
    deps.encryption,
    config.IDEMPOTENCY_RETENTION_SECONDS,
    config.IDEMPOTENCY_LOCK_SECONDS,
  );
  const routes = routeTable(deps, deps.services);
  const router = buildRouter(routes, {
    authenticator: new Authenticator(
      tokens,
      config.PASS_CALLBACK_API_KEY,
      orm,
      (params, passToken) =>
        params.signInId
          ? deps.services.signIns.authorizePassToken(params.signInId, passToken)
          : authorizeRegistration(orm, deps.encryption, params.regId!, passToken, { allowCompleted: true }),
      deps.operators,
      deps.sessions,
    ),
    idempotency,
    rateLimits,
    stepUp: deps.services.stepUp,
    jsonBodyMaxBytes: config.JSON_BODY_MAX_BYTES,
  });
  // Behind a reverse proxy (TRUST_PROXY), the client address comes from X-Forwarded-For; rate limits key on it.
  const koa = new Koa({ proxy: config.TRUST_PROXY });
  // Few layers on purpose (each is a promise and a dispatch on every request, health checks included): the request
  // context sets the security headers, the error handler counts dependency errors.
  koa.use(deps.metrics.requestsMiddleware());
  koa.use(requestContext(deps.logger, SECURITY_HEADERS));
  koa.use(errorHandler((error) => deps.metrics.countDependencyError(error)));
  const origins = (list: string) =>
    new Set(
      list
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    );
  const codecOrigins = origins(config.CODEC_CORS_ORIGINS);
  const codecCors = cors({
    // The Temporal UI's codec calls: only the UI's origins, with the operator's session cookie (credentials).
    origin: (ctx) => (codecOrigins.has(ctx.get('origin')) ? ctx.get('origin') : ''),
    credentials: true,
    allowMethods: ['POST'],
    allowHeaders: ['content-type', 'x-namespace', 'authorization'],
    maxAge: 600,
  });
  const corsOrigins = origins(config.CORS_ORIGINS);
  let appCors: Koa.Middleware | undefined;
  if (corsOrigins.size) {
    // Only configured browser origins get CORS headers; without CORS_ORIGINS no cross-origin browser call is allowed.
    appCors = cors({
      origin: (ctx) => (corsOrigins.has(ctx.get('origin')) ? ctx.get('origin') : ''),
      allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-device-id', 'x-pass-token'],
      exposeHeaders: [
        'location',
        'retry-after',
        'x-request-id',
        'idempotent-replayed',
        'deprecation',
        'sunset',
        'link',
        'ratelimit',
        'ratelimit-policy',
      ],
      maxAge: 600,
    });
  }
  // One layer for both: the codec's paths get the codec's CORS, the others the app's (none without CORS_ORIGINS).
  koa.use(async (ctx, next) =>
    ctx.path.startsWith('/codec/') ? codecCors(ctx, next) : appCors ? appCors(ctx, next) : next(),
  );
  // OPTIONS and methods a path does not have (TRACE, PATCH, …) are answered by the router: see buildRouter.
  koa.use(router.routes());
  return { koa, routes, idempotency, rateLimits };
}
