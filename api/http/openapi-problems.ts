import type { TSchema } from '@sinclair/typebox';
import { PROBLEM_CATALOGUE } from './problem-catalogue';
import type { RouteSpec } from './route-table';
import { identityNeedsIdCard, presentedProofs, type PresentedProof } from './step-up';
import { validatePart } from './validation';

/**
 * The problem types an operation can answer, per error status, for the OpenAPI document's examples: what the tests
 * saw it answer (api/http/examples.json), and the refusals the router and the middleware give every route of a kind
 * (a Bearer route refuses a missing token whatever it does), the step-up's check gives every route whose policy takes
 * a proof, and the sanctions screening every route that declares it. Nothing a route's own handler may answer is
 * guessed from its source: those types are shown once a test has provoked them (`npm run examples:build`).
 */
export interface RouteProblem {
  type: string;
  status: number;
  /** The source file that answers it (test/unit/openapi-components.test.ts checks it names the type). */
  answeredIn: string;
  /** Whether a route of this kind can be answered it, whatever its handler does. */
  applies: (route: RouteSpec) => boolean;
}

/** Methods whose routes read a body (api/http/router.ts). */
const HAS_BODY = new Set(['post', 'put', 'patch', 'delete']);
const takesBody = (route: RouteSpec) => HAS_BODY.has(route.method) && Boolean(route.body || route.multipart);
/** Whether the validator refuses this value of a part: some request fails the part's schema with 400. */
const refuses = (schema: TSchema | undefined, value: Record<string, unknown>, part: 'path' | 'query' | 'header') => {
  if (!schema) return false;
  try {
    validatePart(schema, value, part);
    return false;
  } catch {
    return true;
  }
};
/** A path parameter, a query or the headers some request gets wrong (a pattern, an unknown member, a missing one). */
const validatesHead = (route: RouteSpec): boolean => {
  const params = Object.keys((route.params as { properties?: object } | undefined)?.properties ?? {});
  return (
    refuses(route.params, Object.fromEntries(params.map((name) => [name, '~'])), 'path') ||
    refuses(route.query, { '~': '~' }, 'query') ||
    refuses(route.headers, {}, 'header')
  );
};
/**
 * Routes that check a credential before their handler: a refused one counts against its address, whose budget then
 * answers 429.
 */
const checksCredential = (route: RouteSpec) => route.auth !== 'none';

/** Whether the route's step-up asks a proof its request presents (the PIN, a passkey, an identity check). */
const presents = (route: RouteSpec, proof?: PresentedProof): boolean => {
  const proofs = route.stepUp ? presentedProofs(route.stepUp) : [];
  return proof ? proofs.includes(proof) : proofs.length > 0;
};

/** Problem types a file answers with a status. */
const answeredIn = (file: string, status: number, ...types: string[]) =>
  types.map((type) => ({ type, status, answeredIn: file }));

/**
 * What the step-up's check (api/common/step-up.ts) answers a request of a route that takes each proof: the check of
 * the PIN, of a passkey's assertion, of an identity check. A route's policy says which it takes, so these are shown
 * wherever they apply, whether the router or the handler (`checkedBy`) runs the check.
 */
const PROOF_REFUSALS: Record<PresentedProof, Array<Pick<RouteProblem, 'type' | 'status' | 'answeredIn'>>> = {
  pin: [
    ...answeredIn('api/pin/service.ts', 409, 'pin-already-used', 'pin-not-set'),
    ...answeredIn(
      'api/pin/service.ts',
      422,
      'invalid-pin-encryption',
      'invalid-pin',
      'pin-not-bound',
      'pin-not-for-this-request',
      'wrong-pin',
    ),
    ...answeredIn('api/pin/service.ts', 423, 'pin-locked', 'pin-reset-required'),
  ],
  passkey: [
    ...answeredIn('api/passkeys/service.ts', 403, 'passkey-on-hold'),
    ...answeredIn('api/http/problems.ts', 404, 'not-found'),
    ...answeredIn('api/passkeys/service.ts', 409, 'challenge-used'),
    ...answeredIn('api/passkeys/service.ts', 410, 'challenge-expired'),
    ...answeredIn(
      'api/passkeys/service.ts',
      422,
      'passkey-approval-not-for-this-request',
      'unknown-passkey',
      'invalid-passkey-assertion',
    ),
  ],
  identity: [
    ...answeredIn('api/http/problems.ts', 404, 'not-found'),
    ...answeredIn('api/auth/identity-checks.ts', 409, 'identity-check-not-verified', 'identity-check-used'),
    ...answeredIn('api/auth/identity-checks.ts', 410, 'identity-check-expired'),
    ...answeredIn('api/auth/identity-checks.ts', 422, 'identity-check-not-for-this-request'),
  ],
};

/** The refusals of the step-up's check and of the sanctions screening a route declares (RouteSpec.screens). */
const STEP_UP_AND_SCREENING: RouteProblem[] = [
  { type: 'step-up-required', status: 422, answeredIn: 'api/common/step-up.ts', applies: (r) => presents(r) },
  // Only where a request can present two proofs at once: its body has the fields of each (test/unit/step-up-policy).
  {
    type: 'step-up-ambiguous',
    status: 422,
    answeredIn: 'api/common/step-up.ts',
    applies: (r) => !!r.stepUp && presentedProofs(r.stepUp).length > 1,
  },
  ...Object.entries(PROOF_REFUSALS).flatMap(([proof, refusals]) =>
    refusals.map((refusal) => ({ ...refusal, applies: (r: RouteSpec) => presents(r, proof as PresentedProof) })),
  ),
  {
    type: 'identity-check-needs-id-card',
    status: 422,
    answeredIn: 'api/auth/identity-checks.ts',
    applies: (r) => presents(r, 'identity') && identityNeedsIdCard(r.stepUp!),
  },
  { type: 'recipient-sanctioned', status: 422, answeredIn: 'api/http/workflow-errors.ts', applies: (r) => !!r.screens },
  {
    type: 'screening-unavailable',
    status: 503,
    answeredIn: 'api/http/workflow-errors.ts',
    applies: (r) => !!r.screens,
  },
];

export const ROUTE_PROBLEMS: readonly RouteProblem[] = [
  {
    type: 'validation-error',
    status: 400,
    answeredIn: 'api/http/problems.ts',
    applies: (route) =>
      takesBody(route) || Boolean(route.idempotency) || route.auth === 'passToken' || validatesHead(route),
  },
  { type: 'malformed-json', status: 400, answeredIn: 'api/http/router.ts', applies: (r) => takesBody(r) && !!r.body },
  {
    type: 'unauthorized',
    status: 401,
    answeredIn: 'api/http/problems.ts',
    applies: (r) => r.auth === 'bearer' || r.auth === 'operator',
  },
  { type: 'invalid-token', status: 401, answeredIn: 'api/auth/tokens.ts', applies: (r) => r.auth === 'bearer' },
  { type: 'token-expired', status: 401, answeredIn: 'api/auth/tokens.ts', applies: (r) => r.auth === 'bearer' },
  {
    type: 'device-signed-out',
    status: 401,
    answeredIn: 'api/common/active-user.ts',
    applies: (r) => r.auth === 'bearer',
  },
  {
    type: 'invalid-operator-token',
    status: 401,
    answeredIn: 'api/http/authenticate.ts',
    applies: (r) => r.auth === 'operator',
  },
  {
    type: 'invalid-operator-session',
    status: 401,
    answeredIn: 'api/auth/tokens.ts',
    applies: (r) => r.auth === 'operator',
  },
  { type: 'invalid-api-key', status: 401, answeredIn: 'api/http/authenticate.ts', applies: (r) => r.auth === 'apiKey' },
  {
    type: 'device-on-hold',
    status: 403,
    answeredIn: 'api/http/problems.ts',
    applies: (r) => r.auth === 'bearer' && Boolean(r.stepUp?.hold),
  },
  {
    type: 'idempotency-request-in-progress',
    status: 409,
    answeredIn: 'api/http/idempotency.ts',
    applies: (r) => Boolean(r.idempotency),
  },
  {
    type: 'idempotency-key-reused',
    status: 422,
    answeredIn: 'api/http/idempotency.ts',
    applies: (r) => Boolean(r.idempotency),
  },
  { type: 'payload-too-large', status: 413, answeredIn: 'api/http/problems.ts', applies: takesBody },
  { type: 'unsupported-media-type', status: 415, answeredIn: 'api/http/problems.ts', applies: takesBody },
  {
    type: 'rate-limited',
    status: 429,
    answeredIn: 'api/http/rate-limits.ts',
    applies: (r) => Boolean(r.rateLimits?.length) || (checksCredential(r) && r.credentials !== false),
  },
  { type: 'internal-error', status: 500, answeredIn: 'api/http/problems.ts', applies: () => true },
  // What the router itself reads from the database before any handler: the session of a Bearer route's token, the
  // counters of the route's limits and of refused credentials, the Idempotency-Key records.
  {
    type: 'service-unavailable',
    status: 503,
    answeredIn: 'api/http/problems.ts',
    applies: (r) =>
      r.credentials !== false && (checksCredential(r) || Boolean(r.rateLimits?.length) || Boolean(r.idempotency)),
  },
  ...STEP_UP_AND_SCREENING,
];

/**
 * The problem types of an operation per error status it documents: the recorded ones and those of its kind, sorted
 * (`/problems/<name>`, as the answers' `type` says).
 */
export function problemTypesOf(
  route: RouteSpec,
  documented: Iterable<string>,
  recorded: Record<string, string[]> = {},
): Record<string, string[]> {
  const statuses = new Set([...documented].filter((status) => Number(status) >= 400));
  const types: Record<string, Set<string>> = {};
  const add = (status: string, type: string) => {
    if (statuses.has(status)) (types[status] ??= new Set()).add(type);
  };
  for (const [status, list] of Object.entries(recorded)) for (const type of list) add(status, type);
  for (const rule of ROUTE_PROBLEMS) if (rule.applies(route)) add(String(rule.status), `/problems/${rule.type}`);
  return Object.fromEntries(
    Object.entries(types)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, set]) => [status, [...set].sort()]),
  );
}

/** The request id an example answer names (`instance`; every answer carries its own). */
const EXAMPLE_INSTANCE = 'urn:request:8a4c1d2e-5b6f-4a7b-9c8d-0e1f2a3b4c5d';

/** The name of a problem type (`/problems/rate-limited` is `rate-limited`). */
export const problemName = (type: string): string => type.replace(/^\/problems\//, '');

/** The key of a problem answer in `components.examples`: per answer style, and per status for a type with several. */
export const problemExampleKey = (type: string, status: number, envelope: boolean): string => {
  const name = problemName(type);
  const entry = PROBLEM_CATALOGUE[name];
  const several = Array.isArray(entry?.status) && entry.status.length > 1;
  return `${envelope ? 'EnvelopeError' : 'Problem'}.${name}${several ? `.${status}` : ''}`;
};

/**
 * The Example Object of a problem answer, as the error handler writes it (api/http/error-handler.ts): the catalogue's
 * title and detail, RFC 9457 on /v1, the error envelope on /api/v1. Undefined for a type the catalogue lacks.
 */
export function problemExample(type: string, status: number, envelope: boolean): Record<string, unknown> | undefined {
  const name = problemName(type);
  const entry = Object.hasOwn(PROBLEM_CATALOGUE, name) ? PROBLEM_CATALOGUE[name] : undefined;
  if (!entry) return undefined;
  const problem = {
    type: `/problems/${name}`,
    title: entry.title,
    status,
    detail: entry.example,
    instance: EXAMPLE_INSTANCE,
  };
  return {
    summary: entry.meaning,
    value: envelope ? { status: 'error', error: problem } : problem,
  };
}
