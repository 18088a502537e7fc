import type { Context, Middleware } from 'koa';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { bodyParser } from '@koa/bodyparser';
import Bourne from '@hapi/bourne';
import { Type, type TSchema } from '@sinclair/typebox';
import { HttpError, problems } from './problems';
import { validatePart } from './validation';
import { isMultipart, parseMultipart } from './multipart';
import type { Authenticator } from './authenticate';
import { requestFingerprint, type IdempotencyStore } from './idempotency';
import { RateLimits, rateLimitFields, type RateLimitReading } from './rate-limits';
import { stepUpRequestOf, type StepUpPolicy, type StepUpVerifier } from './step-up';
import { keepDeclaredScreening } from './request-context';
import {
  usesEnvelope,
  type AuthMode,
  type Caller,
  type RouteInput,
  type RouteResult,
  type RouteSpec,
} from './route-table';
import { clock } from '../../platform/clock';

export interface RouterDeps {
  authenticator: Authenticator;
  idempotency: IdempotencyStore;
  rateLimits: RateLimits;
  /** Checks the proofs of a route's step-up (the PIN, a passkey, an identity check). */
  stepUp: StepUpVerifier;
  jsonBodyMaxBytes: number;
}

const EMPTY = Type.Object({});
const IDEMPOTENCY_KEY = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** Methods whose routes may read a body (DELETE only where its route declares one: revoking another device's proof). */
const HAS_BODY = new Set(['post', 'put', 'patch', 'delete']);
/** Responses a retry must be able to re-run rather than replay. */
const NOT_REPLAYED = new Set([409, 429, 503]);

const pickHeaders = (ctx: Context, route: RouteSpec): Record<string, string> => {
  const wanted = Object.keys((route.headers as { properties?: object } | undefined)?.properties ?? {});
  const picked: Record<string, string> = {};
  for (const name of wanted) {
    const value = ctx.get(name);
    if (value !== '') picked[name] = value;
  }
  return picked;
};

async function readBody(
  ctx: Context,
  route: RouteSpec,
  parseJson: ReturnType<typeof bodyParser>,
): Promise<Pick<RouteInput<never, never, never, never>, 'body' | 'file'>> {
  if (!HAS_BODY.has(route.method) || (!route.body && !route.multipart)) return { body: undefined as never };
  if (route.multipart && isMultipart(ctx)) {
    const { fields, file } = await parseMultipart(ctx, route.multipart);
    const body = validatePart<Record<string, unknown>>(route.multipart.fields, fields, 'body');
    if (!file)
      throw problems.validation([
        {
          in: 'body',
          pointer: `/${route.multipart.file.field}`,
          detail: `${route.multipart.file.field} (file) is required`,
        },
      ]);
    return { body: body as never, file };
  }
  if (!route.body) throw problems.unsupportedMedia('This endpoint accepts multipart/form-data only');
  const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
  if (hasBody && !ctx.is('application/json', 'application/*+json')) {
    throw problems.unsupportedMedia(
      route.multipart ? 'Send application/json or multipart/form-data' : 'Send application/json',
    );
  }
  await parseJson(ctx, async () => undefined);
  const raw = (ctx.request as unknown as { body?: unknown }).body;
  return { body: validatePart(route.body, raw ?? {}, 'body') as never };
}

/** The API's routing: one middleware that dispatches to the route table, and what a path offers (OPTIONS, 405). */
export interface ApiRouter {
  /** The middleware that dispatches requests (named as Koa routers name it). */
  routes(): Middleware;
  /** The methods of the routes whose path parameters the path satisfies (HEAD with GET), in route-table order. */
  allowFor: (path: string) => string[];
}

/**
 * Builds the API's router from the route table: auth, parsing, validation, idempotency, handler, response.
 *
 * Routes are found in a radix tree (find-my-way, the router of Fastify) by method and path, in time that grows with
 * the path's length, not the number of routes: a path is matched once per request, where a list of routers tries each
 * route's regular expression in turn. Matching keeps Koa's router's rules: case-insensitive, an optional trailing
 * slash, percent-decoded parameters, HEAD served by the GET route. A path no route of its method takes answers 405
 * with `Allow` (OPTIONS: 200 with `Allow`) when other methods' routes take it, else falls through to 404.
 */
export function buildRouter(routes: RouteSpec[], deps: RouterDeps): ApiRouter {
  const tree = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, maxParamLength: 1000 });
  const methods: HTTPMethod[] = [];
  for (const route of routes) {
    const method = route.method.toUpperCase() as HTTPMethod;
    if (!methods.includes(method)) methods.push(method);
    tree.on(method === 'GET' ? ['GET', 'HEAD'] : method, route.path, () => undefined, route);
  }
  /** The route of a method and path; null for a method the tree does not know (it throws for, e.g., TRACE). */
  const find = (method: string, path: string) => {
    try {
      return tree.find(method as HTTPMethod, path);
    } catch {
      return null;
    }
  };
  const allowFor = (path: string): string[] => {
    const allowed: Array<{ index: number; methods: string[] }> = [];
    for (const method of methods) {
      const found = find(method, path);
      const spec = found?.store as RouteSpec | undefined;
      if (!found || !spec) continue;
      try {
        if (spec.params) validatePart(spec.params, { ...found.params }, 'path');
      } catch {
        continue;
      }
      allowed.push({ index: routes.indexOf(spec), methods: method === 'GET' ? ['HEAD', 'GET'] : [method] });
    }
    return allowed.sort((a, b) => a.index - b.index).flatMap((a) => a.methods);
  };
  const parseJson = bodyParser({
    enableTypes: ['json'],
    jsonLimit: deps.jsonBodyMaxBytes,
    encoding: 'utf-8',
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
    onError: (error, ctx) => {
      const status = (error as { status?: number }).status;
      if (status === 413) throw problems.tooLarge(`JSON bodies are limited to ${deps.jsonBodyMaxBytes} bytes`);
      const raw = (error as { body?: unknown }).body;
      if (/forbidden prototype property/.test((error as Error).message) && typeof raw === 'string') {
        // Valid JSON with a "__proto__" key: the key is dropped (it could poison prototypes), the rest is validated as usual.
        (ctx.request as unknown as { body?: unknown }).body = Bourne.parse(raw, { protoAction: 'remove' });
        return;
      }
      throw new HttpError(400, 'malformed-json', 'Malformed JSON', 'The request body is not valid JSON');
    },
  });

  /** Auth, parsing, validation, the step-up's hold, the route's own limits, idempotency, the step-up's proof, the handler. */
  const handle = async (route: RouteSpec, ctx: Context): Promise<void> => {
    keepDeclaredScreening(route.screens ?? null);
    const user = route.auth === 'bearer' ? await deps.authenticator.bearer(ctx) : undefined;
    if (route.auth === 'apiKey') deps.authenticator.apiKey(ctx);
    const operator = route.auth === 'operator' ? await deps.authenticator.operator(ctx) : undefined;
    const params = pathParams(ctx, route, allowFor);
    // A pass token (a registration's, a sign-in's) is checked before the body (an ID-card image) is read.
    if (route.auth === 'passToken') await deps.authenticator.passToken(ctx, params as Record<string, string>);
    const policy = route.stepUp?.appliesTo?.({ params, user } as never) === false ? undefined : route.stepUp;
    const held = policy?.hold && user?.session?.holdUntil;
    if (held && held.getTime() > clock.now()) throw problems.deviceOnHold(held, policy!.does);
    const head = {
      params,
      // Nothing to validate (no query string, no declared headers) is the empty object, without a validator's call.
      query: (!route.query && ctx.querystring === ''
        ? {}
        : validatePart(route.query ?? EMPTY, { ...ctx.query }, 'query')) as never,
      headers: (route.headers ? validatePart(route.headers, pickHeaders(ctx, route), 'header') : {}) as never,
      // The handler of a Bearer route gets its user, of an operator route its operator (RouteInput's Caller).
      ...((user ? { user } : operator !== undefined ? { operator } : {}) as Caller<AuthMode>),
    };
    // The route's own limits, counted; what is left of each is told in RateLimit fields (a guess budget never is).
    const readings: RateLimitReading[] = [];
    for (const limit of route.rateLimits ?? []) {
      const reading = await deps.rateLimits.consume(limit.rule, limit.key(head, ctx), true);
      if (RateLimits.shown(limit.rule)) readings.push(reading);
    }
    for (const [name, value] of Object.entries(rateLimitFields(readings))) ctx.set(name, value);
    const input: RouteInput<never, never, never, never> = { ...head, ...(await readBody(ctx, route, parseJson)) };
    const run = approved(route, policy, deps.stepUp);
    const result = route.idempotency
      ? await runIdempotently(ctx, route, input, deps.idempotency, run)
      : await run(input, ctx);
    respond(ctx, route, result);
  };

  /** One route's request: deprecation headers, then `handle`; a refused credential counts against its address. */
  const serve = async (route: RouteSpec, ctx: Context): Promise<void> => {
    if (route.deprecated) setDeprecationHeaders(ctx, route.deprecated);
    try {
      await handle(route, ctx);
    } catch (error) {
      // A refused credential is a guess: an address over its budget of them gets 429 (Retry-After) instead of the
      // answer, and every refusal is counted. A valid credential is served whatever others behind the same address
      // (a carrier's NAT puts thousands of phones behind one) have guessed: every credential the service issues has
      // at least 128 random bits, so the budget slows and flags an address; it never has to stand between a user and
      // their own account.
      if (error instanceof HttpError && error.credentialRefused && route.credentials !== false) {
        await deps.rateLimits.assertUnder('failed-credentials', ctx.ip);
        await deps.rateLimits.count('failed-credentials', ctx.ip);
      }
      throw error;
    }
  };

  const middleware: Middleware = async (ctx, next) => {
    const found = find(ctx.method, ctx.path);
    const route = found?.store as RouteSpec | undefined;
    if (found && route) {
      ctx.params = found.params as Record<string, string>;
      // The route template, for metrics and logs (never the raw path, whose ids would make every request its own),
      // and its operation (the tests' exchange recorder names examples by it).
      Object.assign(ctx, { _matchedRoute: route.path, _matchedRouteName: route.operationId });
      return serve(route, ctx);
    }
    const allow = allowFor(ctx.path);
    if (!allow.length) return next();
    if (ctx.method === 'OPTIONS') {
      ctx.status = 200;
      ctx.body = '';
      ctx.set('allow', allow.join(', '));
      return;
    }
    throw problems.methodNotAllowed(ctx.method, allow);
  };
  return { routes: () => middleware, allowFor };
}

/** Deprecation (RFC 9745: `@` and Unix seconds), Sunset (RFC 8594: an HTTP date) and the successor, on every answer. */
export function deprecationHeaders(deprecated: NonNullable<RouteSpec['deprecated']>): Record<string, string> {
  return {
    deprecation: `@${Math.floor(deprecated.since.getTime() / 1000)}`,
    sunset: deprecated.sunset.toUTCString(),
    ...(deprecated.successor ? { link: `<${deprecated.successor}>; rel="successor-version"` } : {}),
  };
}

function setDeprecationHeaders(ctx: Context, deprecated: NonNullable<RouteSpec['deprecated']>): void {
  for (const [name, value] of Object.entries(deprecationHeaders(deprecated))) ctx.set(name, value);
}

/** The path parameters; a path that only another method's route can take (GET /charge/execute) is 405, not 400. */
function pathParams(ctx: Context, route: RouteSpec, allowFor: (path: string) => string[]): never {
  if (!route.params && Object.keys(ctx.params).length === 0) return {} as never;
  try {
    return validatePart(route.params ?? EMPTY, { ...ctx.params }, 'path') as never;
  } catch (error) {
    const allow = allowFor(ctx.path);
    if (allow.length && !allow.includes(ctx.method)) {
      throw problems.methodNotAllowed(ctx.method, allow);
    }
    throw error;
  }
}

async function runIdempotently(
  ctx: Context,
  route: RouteSpec,
  input: RouteInput<never, never, never, never>,
  store: IdempotencyStore,
  handler: RouteSpec['handler'],
): Promise<RouteResult> {
  const key = ctx.get('idempotency-key');
  // A header sent empty is a malformed key, not a missing one.
  if (!key && ctx.headers['idempotency-key'] === undefined) {
    if (route.idempotency!.required)
      throw problems.badHeader('Idempotency-Key', 'The Idempotency-Key header is required (a fresh UUID per request)');
    return handler(input, ctx);
  }
  if (!IDEMPOTENCY_KEY.test(key))
    throw problems.badHeader('Idempotency-Key', 'The Idempotency-Key header must be a UUID');
  const fingerprint = requestFingerprint({
    method: route.method,
    path: ctx.path,
    body: input.body,
    file: input.file ? requestFingerprint(input.file.buffer.toString('base64')) : undefined,
  });
  const begun = await store.begin(route.idempotency!.scope(input), key.toLowerCase(), fingerprint);
  if (begun.kind === 'replay') {
    ctx.set('idempotent-replayed', 'true');
    return { status: begun.status, body: begun.body, headers: begun.headers };
  }
  let result: RouteResult;
  try {
    result = await handler(input, ctx);
  } catch (error) {
    await store.release(begun.recordId);
    throw error;
  }
  if (NOT_REPLAYED.has(result.status) || result.status >= 500) await store.release(begun.recordId);
  else await store.complete(begun.recordId, result.status, result.body, result.headers ?? {});
  return result;
}

/**
 * The route's handler behind its step-up's proof: the request must carry a proof of one of the policy's sets, naming
 * this very request, or nothing runs (422 step-up-required). Checked inside the Idempotency-Key record, so a retry of
 * an answered request is replayed without a second proof, and a refused one can be sent again with a proof.
 */
function approved(route: RouteSpec, policy: RouteSpec['stepUp'], verifier: StepUpVerifier): RouteSpec['handler'] {
  if (!policy || !policy.anyOf.length) return route.handler;
  const verify = (input: RouteInput<TSchema, TSchema, TSchema, TSchema>, ctx: Context) =>
    verifier.verify(
      input.user!,
      policy as StepUpPolicy<unknown>,
      stepUpRequestOf(policy, input as never, ctx),
      (input.body ?? {}) as Record<string, unknown>,
      // A proof presented again is taken as the same request's retry only where the route keeps its record.
      route.idempotency ? ctx.get('idempotency-key') || null : null,
    );
  // The handler checks it where it must (after checks that come first, or only for the sensitive kind of request).
  if (policy.checkedBy) return (input, ctx) => route.handler({ ...input, stepUp: () => verify(input, ctx) }, ctx);
  return async (input, ctx) => route.handler({ ...input, approval: await verify(input, ctx) }, ctx);
}

function respond(ctx: Context, route: RouteSpec, result: RouteResult): void {
  ctx.status = result.status;
  for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
  if (result.body !== undefined)
    ctx.body = usesEnvelope(route.path) ? { status: 'ok', data: result.body } : result.body;
}
