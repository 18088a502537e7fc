import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { CONTACT_REPRESENTATIVE } from './problems';
import { validatePart } from './validation';
import { EnvelopeErrorSchema, ProblemSchema, envelope } from '../common/schemas';
import { usesEnvelope, type ResponseSpec, type RouteSpec } from './route-table';
import type { OperationExample } from './examples';
import { RateLimits } from './rate-limits';
import { PROBLEM_CATALOGUE } from './problem-catalogue';
import { resolveNamedSchemas } from './openapi-schemas';
import { problemExample, problemExampleKey, problemName, problemTypesOf } from './openapi-problems';
import { presentedProofs, type PresentedProof } from './step-up';
import { constantsAsEnums } from './openapi-enums';
import { unionAsOneObject } from './openapi-unions';

type Json = Record<string, unknown>;

/** TypeBox schemas are JSON Schema; the round trip drops TypeBox's symbol markers. */
const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema)) as Json;

/**
 * The document's reusable parts, gathered while its operations are written: the named schemas
 * (api/http/openapi-schemas.ts) met in a body, each `$ref`erenced and defined once in `components.schemas`, and the
 * problem answers shown as examples, once each in `components.examples`. Only what is used is defined (an unused
 * component is a lint warning).
 */
class Components {
  private readonly names = resolveNamedSchemas().names;
  private readonly schemas = new Map<string, Json>();
  private readonly examples = new Map<string, Json>();

  /** A schema as JSON (as `plain` writes it), every named schema in it a `$ref`. */
  schema(schema: TSchema): Json {
    return this.convert(schema) as Json;
  }

  /** A `$ref` to the example of a problem answer, defined on first use; undefined for a type the catalogue lacks. */
  problemExample(type: string, status: number, envelope: boolean): Json | undefined {
    const key = problemExampleKey(type, status, envelope);
    if (!this.examples.has(key)) {
      const example = problemExample(type, status, envelope);
      if (!example) return undefined;
      this.examples.set(key, example);
    }
    return { $ref: `#/components/examples/${key}` };
  }

  /** `components.schemas` and `components.examples`, by name. */
  toJson(): { schemas: Json; examples: Json } {
    const sorted = (map: Map<string, Json>) => Object.fromEntries([...map].sort(([a], [b]) => (a < b ? -1 : 1)));
    return { schemas: sorted(this.schemas), examples: sorted(this.examples) };
  }

  /** JSON.stringify's reading of a value (undefined and functions dropped), named schemas but `self` as `$ref`s. */
  private convert(value: unknown, self?: object): unknown {
    if (value === null || typeof value !== 'object') return value;
    const name = value === self ? undefined : this.names.get(value);
    if (name) {
      if (!this.schemas.has(name)) {
        this.schemas.set(name, {}); // taken before its own members are written
        this.schemas.set(name, this.convert(value, value) as Json);
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
    if (Array.isArray(value)) return value.map((v: unknown) => (skipped(v) ? null : this.convert(v)));
    const json: Json = {};
    for (const [key, v] of Object.entries(value)) if (!skipped(v)) json[key] = this.convert(v);
    return json;
  }
}

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const parametersOf = (route: RouteSpec): Json[] => {
  const parameters: Json[] = [];
  const add = (where: 'path' | 'query' | 'header', schema?: TSchema) => {
    const object = schema ? plain(schema) : undefined;
    const required = new Set((object?.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((object?.properties as Record<string, Json> | undefined) ?? {})) {
      const { description, ...rest } = property;
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: rest,
        ...(description ? { description } : {}),
      });
    }
  };
  add('path', route.params);
  add('query', route.query);
  add('header', route.headers);
  if (route.idempotency && !parameters.some((p) => p.name === 'idempotency-key')) {
    parameters.push({
      name: 'idempotency-key',
      in: 'header',
      required: route.idempotency.required,
      schema: { type: 'string', format: 'uuid' },
      description: 'Optional Idempotency-Key (UUID)',
    });
  }
  return parameters;
};

const acceptsEmpty = (schema: TSchema): boolean => {
  try {
    validatePart(schema, {}, 'body');
    return true;
  } catch {
    return false;
  }
};

/**
 * The request body as the document writes it. A route that takes a JSON body and a multipart form (eKYC, as the
 * interface names it) is documented with the form alone, and its JSON form under `x-json-body`: an operation with two
 * body types is one that common generators cannot express (openapi-python-client's module for it does not import, its
 * issue #1451; openapi-generator keeps the first and drops the other). The service accepts both, as before.
 */
const requestBodyOf = (
  route: RouteSpec,
  components: Components,
  example?: OperationExample,
): { requestBody?: Json; 'x-json-body'?: Json } => {
  const json = route.body
    ? {
        'application/json': {
          schema: unionAsOneObject(components.schema(route.body)),
          ...(example?.request !== undefined ? { example: example.request } : {}),
        },
      }
    : undefined;
  if (route.multipart) {
    const form = {
      'multipart/form-data': {
        schema: components.schema(route.multipart.documentAs),
        ...(route.multipart.example ? { example: route.multipart.example } : {}),
        encoding: { [route.multipart.file.field]: { contentType: route.multipart.file.contentTypes.join(', ') } },
      },
    };
    return {
      requestBody: { required: true, content: form },
      ...(json ? { 'x-json-body': { required: true, content: json } } : {}),
    };
  }
  if (!json) return {};
  // A JSON body whose every field is optional may be left out (the router validates a missing body as {}).
  return { requestBody: { required: !acceptsEmpty(route.body!), content: json } };
};

const deprecationNote = (d: NonNullable<RouteSpec['deprecated']>): string =>
  `Deprecated since ${d.since.toISOString().slice(0, 10)}; answers until ${d.sunset.toISOString().slice(0, 10)}${d.successor ? `; use ${d.successor} instead` : ''}.`;

const DEPRECATION_HEADERS: Json = {
  deprecation: {
    description: 'RFC 9745: when this operation was deprecated (`@` and Unix seconds)',
    schema: { type: 'string' },
  },
  sunset: {
    description: 'RFC 8594: when it stops answering (an HTTP date); see CHANGELOG.md for its successor',
    schema: { type: 'string' },
  },
};

const RETRY_AFTER = { description: 'seconds to wait before retrying', schema: Type.Integer({ minimum: 0 }) };

/** The RateLimit fields of a route with limits of its own (draft-ietf-httpapi-ratelimit-headers-11). */
const RATE_LIMIT_HEADERS = {
  'ratelimit-policy': {
    description:
      'The route\'s limits (IETF draft-ietf-httpapi-ratelimit-headers-11): per policy, its quota of requests `q` in a window of `w` seconds, e.g. `"market-price";q=60;w=60`',
    schema: Type.String(),
  },
  ratelimit: {
    description:
      'What is left of each: `r` requests for `t` more seconds, e.g. `"market-price";r=59;t=60` (a 429 says `r=0` and when the window ends)',
    schema: Type.String(),
  },
};

/**
 * What a route's step-up proof can answer, where its request presents one (the router or the handler checks it): its
 * own responses say more where they have more to say.
 */
const stepUpResponses = (policy: NonNullable<RouteSpec['stepUp']>): Record<number, ResponseSpec | undefined> => {
  const takes = (proof: PresentedProof) => presentedProofs(policy).includes(proof);
  if (!presentedProofs(policy).length) return {};
  return {
    ...(takes('passkey')
      ? { 403: { description: 'The approving passkey is still in its new-passkey hold (passkey-on-hold)' } }
      : {}),
    ...(takes('passkey') || takes('identity')
      ? { 404: { description: 'Unknown approval challenge or identity check' } }
      : {}),
    409: { description: 'The approval was used already, no PIN is set, or the identity check is not verified yet' },
    ...(takes('passkey') || takes('identity')
      ? { 410: { description: 'The approval challenge or the identity check expired' } }
      : {}),
    422: {
      description:
        'No proof beyond the access token (step-up-required: stepUp.request and stepUp.accepts say what to send), a wrong PIN, or an approval that does not verify or names another request',
    },
    ...(takes('pin')
      ? {
          423: {
            description:
              'PIN locked after too many wrong PINs: for PIN_LOCK_SECONDS (pin-locked, Retry-After), or until a reset (pin-reset-required)',
          },
        }
      : {}),
  };
};

/** The step-up extension of an operation: the machine-readable form of docs/security.md's table row. */
const stepUpExtension = (policy: NonNullable<RouteSpec['stepUp']>): Json => ({
  'x-step-up': {
    action: policy.action,
    anyOf: policy.anyOf,
    hold: policy.hold,
    notice: policy.notice,
    ...(policy.checkedBy ? { checkedBy: policy.checkedBy } : {}),
  },
});

/** An error status's description, with the problem types the operation answers with it. */
const withProblemTypes = (description: string, types: string[] | undefined): string =>
  types?.length
    ? `${description.replace(/\.$/, '')}. Problem types: ${types.map((t) => `\`${t}\``).join(', ')}`
    : description;

const responsesOf = (
  route: RouteSpec,
  components: Components,
  links: Record<number, Record<string, unknown>> = {},
  example: OperationExample = {},
): Json => {
  const envelopes = usesEnvelope(route.path);
  /** An error answer's body: the problem schema, and an example of each problem type it may carry, by name. */
  const errorContent = (status: number, types: string[]): Json => {
    const examples: Json = {};
    for (const type of types) {
      const ref = components.problemExample(type, status, envelopes);
      if (ref) examples[problemName(type)] = ref;
    }
    return {
      [envelopes ? 'application/json' : 'application/problem+json']: {
        schema: components.schema(envelopes ? EnvelopeErrorSchema : ProblemSchema),
        ...(Object.keys(examples).length ? { examples } : {}),
      },
    };
  };
  const responses: Json = {};
  const all: Record<string, ResponseSpec> = {
    400: { description: 'The request does not match the schema (errors[] lists JSON pointers)' },
    ...(route.auth === 'bearer' ? { 401: { description: 'Missing, invalid or expired access token' } } : {}),
    ...(route.auth === 'operator' ? { 401: { description: 'Missing or invalid operator token or session' } } : {}),
    ...(route.idempotency
      ? {
          409: {
            description: 'A request with this Idempotency-Key is still running (Retry-After)',
            headers: { 'retry-after': RETRY_AFTER },
          },
          422: { description: 'This Idempotency-Key was used with another payload' },
        }
      : {}),
    ...(route.credentials !== false || route.rateLimits?.length
      ? {
          429: {
            description:
              'Too many requests: a rate limit of this route, or too many refused credentials from this address (Retry-After)',
            headers: { 'retry-after': RETRY_AFTER },
          },
        }
      : {}),
    ...((route.body || route.multipart) && route.method !== 'get'
      ? {
          413: {
            description: route.multipart
              ? 'The body is over its limit (JSON_BODY_MAX_BYTES; the file UPLOAD_MAX_BYTES)'
              : 'The JSON body is over JSON_BODY_MAX_BYTES',
          },
          415: {
            description: route.multipart
              ? 'Content-Type is not application/json or multipart/form-data, or the file is not of an accepted type'
              : 'Content-Type is not application/json',
          },
        }
      : {}),
    ...(route.credentials !== false
      ? {
          503: {
            description:
              'A dependency (the database, the workflow service, a chain node or a provider) is unavailable: retry after Retry-After',
            headers: { 'retry-after': RETRY_AFTER },
          },
        }
      : {}),
    ...(route.stepUp ? stepUpResponses(route.stepUp) : {}),
    ...(route.stepUp?.hold
      ? {
          403: {
            description: `This device is in its new-device hold (device-on-hold: holdUntil says until when; a passkey older than the sign-in releases it, POST /v1/account/devices/{deviceId}/release)${route.stepUp.anyOf.some((set) => set.includes('passkey')) ? ', or the approving passkey is in its own hold (passkey-on-hold)' : ''}`,
          },
        }
      : {}),
    ...route.responses,
    500: { description: CONTACT_REPRESENTATIVE },
  };
  // A route's own 409/422 also covers the Idempotency-Key cases.
  if (route.idempotency && route.responses[409])
    all[409] = {
      ...route.responses[409],
      description: `${route.responses[409].description}; or a request with this Idempotency-Key is still running (Retry-After)`,
    };
  // Every 429 carries Retry-After, a route's own too.
  if (all[429]) all[429] = { ...all[429], headers: { 'retry-after': RETRY_AFTER, ...all[429].headers } };
  if (route.idempotency && route.responses[422])
    all[422] = {
      ...route.responses[422],
      description: `${route.responses[422].description}; or this Idempotency-Key was used with another payload`,
    };
  const shownLimits = (route.rateLimits ?? []).some((limit) => RateLimits.shown(limit.rule));
  const problemTypes = problemTypesOf(route, Object.keys(all), example.problems);
  for (const [status, spec] of Object.entries(all)) {
    const ok = Number(status) < 400;
    const schema = spec.schema ? (envelopes ? envelope(spec.schema) : spec.schema) : undefined;
    const answered = example.responses?.[status];
    const types = problemTypes[status] ?? [];
    responses[status] = {
      description: ok ? spec.description : withProblemTypes(spec.description, types),
      ...(ok && schema
        ? {
            content: {
              'application/json': {
                schema: components.schema(schema),
                ...(answered !== undefined ? { example: answered } : {}),
              },
            },
          }
        : {}),
      ...(!ok ? { content: errorContent(Number(status), types) } : {}),
      ...(links[Number(status)] ? { links: links[Number(status)] } : {}),
      headers: {
        'x-request-id': { description: 'Request id, also in logs', schema: { type: 'string' } },
        ...(route.deprecated ? DEPRECATION_HEADERS : {}),
        // A retry with an Idempotency-Key answered from the first request's record says so.
        ...(route.idempotency && ok
          ? {
              'idempotent-replayed': {
                description:
                  '`true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing ran again)',
                schema: { type: 'string', enum: ['true'] },
              },
            }
          : {}),
        // Answers after the route's limits were counted (any but a refusal before them: 400, 401, 415...).
        ...(shownLimits && Number(status) !== 401 && Number(status) !== 400
          ? Object.fromEntries(
              Object.entries(RATE_LIMIT_HEADERS).map(([n, h]) => [
                n,
                { description: h.description, schema: plain(h.schema) },
              ]),
            )
          : {}),
        ...Object.fromEntries(
          Object.entries(spec.headers ?? {}).map(([n, h]) => [
            n,
            { description: h.description, schema: plain(h.schema) },
          ]),
        ),
      },
    };
  }
  return responses;
};

/** Every tag an operation may carry, in the order the reference shows them, with what its operations are for. */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'System', description: 'Health, the signing keys of our tokens, this document and its rendered reference.' },
  {
    name: 'Registration',
    description:
      'A new account in steps: identity verification (PASS), the ID card (eKYC), the wallet backup, then tokens (docs/registration.md).',
  },
  { name: 'Identity provider', description: "The identity provider's callback with a verification's result." },
  { name: 'Auth', description: 'Access and refresh tokens: refresh, sign out.' },
  {
    name: 'Sign-in',
    description: 'An existing account on a new device: identity verification, then a passkey or the ID card on file.',
  },
  {
    name: 'Identity checks',
    description:
      'Step-up proofs by a fresh identity verification and the ID card, for requests a token alone cannot do.',
  },
  { name: 'Devices', description: "The account's signed-in devices: list, release a new-device hold, sign one out." },
  { name: 'Backup', description: 'The encrypted wallet backup: read it back, replace it.' },
  {
    name: 'Recovery',
    description:
      'A lost owner key replaced after a delay by the recovery key, the account upgrade it needs, cancelation.',
  },
  { name: 'Account', description: 'The profile, email, KYC renewal and closing the account.' },
  { name: 'KYC', description: 'The basic information of the KYC credential.' },
  { name: 'Passkeys', description: 'WebAuthn passkeys: enrol, list, remove; approvals of risky requests.' },
  {
    name: 'Wallet',
    description:
      'Smart accounts per network (ERC-4337): deploy, signing slots, the transfer key and its caps, gas sponsorship.',
  },
  { name: 'Key rotation', description: 'A new owner key on every network the account is deployed on, per network.' },
  { name: 'Decentralized identity', description: "The account's DID keys and its verifiable credentials." },
  { name: 'Bank', description: 'Bank accounts: 1 KRW verification, the consent at the bank (KFTC open banking).' },
  { name: 'Charge', description: 'Charging won from a connected bank account, the balance and its ledger.' },
  { name: 'PIN', description: 'The transfer PIN: its encryption key, set, change, reset, and whether it is locked.' },
  {
    name: 'Transfer',
    description:
      'Crypto transfers: prepare, execute with the PIN, follow; limits, the address book and the Travel Rule.',
  },
  { name: 'Assets', description: 'Market prices, other assets, securities and exchange accounts.' },
  { name: 'Exchange', description: 'Quotes between tokens from the exchange pools.' },
  { name: 'Events', description: 'The feed of events in commit order, for operators and webhooks.' },
  { name: 'Webhooks', description: 'Signed event deliveries (Standard Webhooks): endpoints, secrets, replays.' },
  {
    name: 'Compliance',
    description: 'For operators: the sanctions list, review cases and their decisions, the records kept five years.',
  },
  {
    name: 'Travel Rule',
    description:
      "Other VASPs' TRP v3 messages on the TRP listener (mutual TLS): inquiries, resolutions, confirmations.",
  },
  { name: 'Test clock', description: "The embedded stack's test clock (TEST_CLOCK_ENABLED only)." },
  { name: 'Operators', description: "Operators' sign-in for the Temporal UI's codec and the operator routes." },
  { name: 'Problems', description: problemCatalogueMarkdown() },
];

/** The problem catalogue as the reference page shows it: one row per problem type. */
function problemCatalogueMarkdown(): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = Object.keys(PROBLEM_CATALOGUE)
    .sort()
    .map((name) => {
      const entry = PROBLEM_CATALOGUE[name]!;
      const status = Array.isArray(entry.status) ? entry.status.join(', ') : String(entry.status);
      return `| \`${name}\` | ${status} | ${cell(entry.meaning)} ${cell(entry.when)} | ${cell(entry.action)} |`;
    });
  return [
    'Every error answer names its problem type (`type: "/problems/<name>"`, RFC 9457), which resolves against the ' +
      "API's origin to its entry (GET /problems/{name}). The catalogue:",
    '',
    '| Problem type | Status | What it means, and when | What to do |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The API's version (info.version): CHANGELOG.md says what changed in each. */
export const API_VERSION = '1.0.0';

/** The OpenAPI 3.1 document, generated from the same route table that drives the router and the validator. */
/** An outbound event, as the OpenAPI document's `webhooks` declares it. */
export interface WebhookSpec {
  name: string;
  summary: string;
  schema: TSchema;
  /** A payload of this event, as a delivery carries it. */
  example?: unknown;
}

/** The Standard Webhooks headers every delivery carries (https://www.standardwebhooks.com). */
const WEBHOOK_HEADERS: Json[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: "The event's id: the same on every retry and replay of it (drop one you processed)",
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
    description: 'Unix seconds of this attempt: refuse one more than five minutes off',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the endpoint's secret; during a secret rotation, one per secret, space-separated",
  },
];

const webhookOf = (hook: WebhookSpec, components: Components): Json => ({
  post: {
    operationId: `webhook:${hook.name}`,
    summary: hook.summary,
    tags: ['Webhooks'],
    description: `Sent to each webhook endpoint subscribed to \`${hook.name}\` (POST /v1/webhooks/endpoints), in commit order per endpoint; verify it before acting on it (the client's verifyWebhook, or any Standard Webhooks library).`,
    parameters: WEBHOOK_HEADERS,
    // We send it: no credential of the receiver's is asked (the signature headers prove it is ours).
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: components.schema(hook.schema),
          ...(hook.example !== undefined ? { example: hook.example } : {}),
        },
      },
    },
    responses: {
      '2XX': { description: 'Received: the delivery is done' },
      default: {
        description:
          'Anything else (or no answer within WEBHOOK_TIMEOUT_MS) is retried with backoff, later events of the endpoint waiting, until WEBHOOK_GIVE_UP_SECONDS',
      },
    },
  },
});

export function buildOpenApi(
  routes: RouteSpec[],
  info: {
    version: string;
    serverUrl?: string;
    webhooks?: WebhookSpec[];
    links?: Record<string, Record<number, Record<string, unknown>>>;
    examples?: Record<string, OperationExample>;
  },
): Json {
  const paths: Record<string, Json> = {};
  const components = new Components();
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    const security =
      route.auth === 'bearer'
        ? [{ bearerAuth: [] }]
        : route.auth === 'apiKey'
          ? [{ apiKey: [] }]
          : route.auth === 'operator'
            ? [{ operatorToken: [] }, { operatorSession: [] }]
            : [];
    const body = requestBodyOf(route, components, info.examples?.[route.operationId]);
    paths[path] = {
      ...paths[path],
      [route.method]: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.description || route.deprecated
          ? {
              description: [route.description, route.deprecated && deprecationNote(route.deprecated)]
                .filter(Boolean)
                .join('\n\n'),
            }
          : {}),
        tags: route.tags,
        security,
        parameters: parametersOf(route),
        ...(route.deprecated ? { deprecated: true } : {}),
        ...(route.stepUp ? stepUpExtension(route.stepUp) : {}),
        ...body,
        responses: responsesOf(route, components, info.links?.[route.operationId], info.examples?.[route.operationId]),
      },
    };
  }
  const webhooks = Object.fromEntries((info.webhooks ?? []).map((hook) => [hook.name, webhookOf(hook, components)]));
  const { schemas, examples } = components.toJson();
  return constantsAsEnums({
    openapi: '3.1.0',
    info: {
      title: 'Wallet, identity and banking service',
      version: info.version,
      description:
        '/v1/* answers bare objects and RFC 9457 problem+json errors; /api/v1/* answers {status:"ok", data} and {status:"error", error}.',
      license: { name: 'Proprietary: all rights reserved', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'The team operating this deployment (its support channel, as agreed with it)' },
    },
    tags: TAGS.map((tag) => ({ ...tag })),
    servers: [
      info.serverUrl
        ? { url: info.serverUrl }
        : {
            url: '/',
            description:
              'The origin this document is served from (GET /openapi.json): PUBLIC_BASE_URL in a deployment, http://127.0.0.1:3000 with npm start',
          },
    ],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        operatorToken: { type: 'http', scheme: 'bearer', bearerFormat: 'op_ token (npm run operator:token)' },
        operatorSession: { type: 'apiKey', in: 'cookie', name: 'wallet_operator' },
      },
      schemas,
      ...(Object.keys(examples).length ? { examples } : {}),
    },
  });
}
