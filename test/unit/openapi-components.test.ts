import Koa from 'koa';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { TSchema } from '@sinclair/typebox';
import { offlineOpenApi, offlineRoutes } from '../../api/openapi-document';
import { NAMED_SCHEMAS, resolveNamedSchemas } from '../../api/http/openapi-schemas';
import { ROUTE_PROBLEMS, problemTypesOf } from '../../api/http/openapi-problems';
import { constantsAsEnums } from '../../api/http/openapi-enums';
import { unionAsOneObject } from '../../api/http/openapi-unions';
import { PROBLEM_CATALOGUE } from '../../api/http/problem-catalogue';
import { OPERATION_EXAMPLES } from '../../api/http/examples';
import { usesEnvelope, type AuthenticatedUser, type RouteSpec } from '../../api/http/route-table';
import { buildRouter } from '../../api/http/router';
import { errorHandler } from '../../api/http/error-handler';
import { Authenticator } from '../../api/http/authenticate';
import type { RateLimits } from '../../api/http/rate-limits';
import type { IdempotencyStore } from '../../api/http/idempotency';
import { StepUp } from '../../api/common/step-up';
import { presentedProofs, proofField } from '../../api/http/step-up';
import { Operators, operatorTokenHash } from '../../api/operators/operators';
import { EVENT_TYPE_NAMES } from '../../platform/events';
import { EVENT_EXAMPLES } from '../../platform/event-examples';
import { schemaValidator } from '../../scripts/examples';

type Json = Record<string, any>;
const ROOT = join(__dirname, '..', '..');

/**
 * The OpenAPI document's reusable parts: the main resources' schemas named in components.schemas (the same JSON
 * Schema the validator checks, only referenced), every error status's examples of the problem types the operation
 * answers, and an example payload for every webhook.
 */
describe('the OpenAPI document’s components', () => {
  const document = offlineOpenApi() as Json;
  const routes = offlineRoutes();
  const validator = schemaValidator(document);
  const schemas = document.components.schemas as Record<string, Json>;
  const examples = (document.components.examples ?? {}) as Record<string, Json>;
  const operations = new Map<string, { path: string; method: string; op: Json }>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>))
    for (const [method, op] of Object.entries(item)) operations.set(op.operationId, { path, method, op });

  /** A schema with every `$ref` to a named schema replaced by that schema: what it says in full. */
  const expand = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(expand);
    if (value === null || typeof value !== 'object') return value;
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
      return expand(schemas[ref.slice('#/components/schemas/'.length)]);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)]));
  };
  const plain = (schema: TSchema) => JSON.parse(JSON.stringify(schema)) as unknown;

  describe('named schemas', () => {
    it('finds every named schema, and the document uses each of them (no other is defined)', () => {
      expect(resolveNamedSchemas().unresolved).toEqual([]);
      expect(Object.keys(schemas).sort()).toEqual(NAMED_SCHEMAS.map(([name]) => name).sort());
      expect(Object.keys(schemas).length).toBeGreaterThan(40);
    });

    it('says, once its references are followed, exactly what the schemas the validator checks say (sets of constants as enum)', () => {
      const differ: string[] = [];
      for (const route of routes) {
        const { op } = operations.get(route.operationId)!;
        if (
          route.body &&
          JSON.stringify(expand((op['x-json-body'] ?? op.requestBody).content['application/json'].schema)) !==
            JSON.stringify(constantsAsEnums(unionAsOneObject(plain(route.body))))
        )
          differ.push(`${route.operationId} request`);
        for (const [status, spec] of Object.entries(route.responses)) {
          if (!spec.schema) continue;
          const schema = op.responses[status].content['application/json'].schema;
          const data = usesEnvelope(route.path) ? (expand(schema) as Json).properties.data : expand(schema);
          if (JSON.stringify(data) !== JSON.stringify(constantsAsEnums(plain(spec.schema))))
            differ.push(`${route.operationId} ${status}`);
        }
      }
      expect(differ).toEqual([]);
    });

    it('names the main resources where the operations answer them', () => {
      const answered = (id: string, status: string) => {
        const { path, op } = operations.get(id)!;
        const schema = op.responses[status].content['application/json'].schema;
        return (usesEnvelope(path) ? schema.properties.data : schema).$ref;
      };
      expect(answered('getCryptoTransfer', '200')).toBe('#/components/schemas/Transfer');
      expect(answered('getProfile', '200')).toBe('#/components/schemas/Profile');
      expect(answered('getCharge', '200')).toBe('#/components/schemas/Charge');
      expect(answered('getWebhookEndpoint', '200')).toBe('#/components/schemas/WebhookEndpoint');
      expect(answered('getEvent', '200')).toBe('#/components/schemas/Event');
      expect(schemas.Event.anyOf).toContainEqual({ $ref: '#/components/schemas/TransferConfirmedEvent' });
      expect(document.webhooks['transfer.confirmed'].post.requestBody.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/TransferConfirmedEvent',
      });
    });
  });

  describe('problem examples', () => {
    const resolved = (ref: string) => examples[ref.replace('#/components/examples/', '')];

    it('shows under each error status examples of catalogued problem types of that status, valid answers of the route’s style', () => {
      const wrong: string[] = [];
      let shown = 0;
      for (const [id, { path, op }] of operations)
        for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
          if (Number(status) < 400) continue;
          const [media, content] = Object.entries(response.content as Record<string, Json>)[0]!;
          expect(media).toBe(usesEnvelope(path) ? 'application/json' : 'application/problem+json');
          for (const [name, ref] of Object.entries((content.examples ?? {}) as Record<string, Json>)) {
            shown += 1;
            const entry = PROBLEM_CATALOGUE[name];
            const value = resolved(ref.$ref)?.value;
            const problem = usesEnvelope(path) ? value?.error : value;
            if (!entry || ![entry.status].flat().includes(Number(status)))
              wrong.push(`${id} ${status} ${name}: not catalogued with ${status}`);
            else if (problem?.type !== `/problems/${name}` || problem?.status !== Number(status))
              wrong.push(`${id} ${status} ${name}: the example answers ${problem?.type} ${problem?.status}`);
            else if (!validator(content.schema)(value))
              wrong.push(`${id} ${status} ${name}: ${JSON.stringify(validator(content.schema).errors)}`);
            if (!response.description.includes(`\`/problems/${name}\``))
              wrong.push(`${id} ${status} ${name}: not named in the description`);
          }
        }
      expect(wrong).toEqual([]);
      expect(shown).toBeGreaterThan(500);
    });

    it('shows every problem type the tests saw an operation answer, under its status', () => {
      const missing: string[] = [];
      for (const [id, example] of Object.entries(OPERATION_EXAMPLES))
        for (const [status, types] of Object.entries(example.problems ?? {}))
          for (const type of types) {
            const name = type.replace('/problems/', '');
            const content = Object.values(operations.get(id)?.op.responses[status]?.content ?? {})[0] as Json;
            if (!content?.examples?.[name]) missing.push(`${id} ${status} ${name}`);
          }
      expect(missing).toEqual([]);
    });

    it('defines each problem answer once, with the catalogue’s title and detail, and no unused one', () => {
      const used = new Set(
        JSON.stringify(document.paths)
          .match(/#\/components\/examples\/[^"]+/g)!
          .map((ref) => ref.replace('#/components/examples/', '')),
      );
      expect(Object.keys(examples).sort()).toEqual([...used].sort());
      for (const [key, { value }] of Object.entries(examples)) {
        const problem = key.startsWith('EnvelopeError.') ? value.error : value;
        const entry = PROBLEM_CATALOGUE[problem.type.replace('/problems/', '')]!;
        expect([problem.title, problem.detail]).toEqual([entry.title, entry.example]);
      }
    });
  });

  describe('the problem types every route of a kind answers', () => {
    it('are catalogued with their status, and answered where they say', () => {
      for (const rule of ROUTE_PROBLEMS) {
        expect([rule.type, [PROBLEM_CATALOGUE[rule.type]?.status].flat()]).toEqual([
          rule.type,
          expect.arrayContaining([rule.status]),
        ]);
        expect([rule.type, readFileSync(join(ROOT, rule.answeredIn), 'utf8')]).toEqual([
          rule.type,
          expect.stringContaining(`'${rule.type}'`),
        ]);
      }
    });

    /**
     * The route table behind the API's router and error handler, every service unavailable: the refusals below come
     * before a handler runs. A Bearer route takes `Bearer a.b.c` (a user without a hold, or with one when
     * `x-test-held` is sent), an operator route the operator token below; no limit is ever reached.
     */
    const OPERATOR_TOKEN = `op_${'a'.repeat(43)}`;
    let server: Server;
    let url: string;
    beforeAll(async () => {
      const operators = Operators.fromJson(JSON.stringify({ tester: operatorTokenHash(OPERATOR_TOKEN) }));
      const real = new Authenticator(
        undefined as never,
        'api-key',
        undefined as never,
        async () => undefined,
        operators,
      );
      const user = (holdUntil: Date | null): AuthenticatedUser => ({
        userId: `usr_${randomUUID()}`,
        deviceId: randomUUID(),
        sessionId: `ses_${randomUUID()}`,
        session: { signInMethod: 'id_card', signedInAt: new Date(), holdUntil, hasPasskey: false },
      });
      const authenticator = {
        bearer: async (ctx: Koa.Context) =>
          ctx.get('authorization') === 'Bearer a.b.c'
            ? user(ctx.get('x-test-held') ? new Date(Date.now() + 3_600_000) : null)
            : real.bearer(ctx),
        operator: (ctx: Koa.Context) => real.operator(ctx),
        apiKey: (ctx: Koa.Context) => real.apiKey(ctx),
        passToken: (ctx: Koa.Context, params: Record<string, string>) => real.passToken(ctx, params),
      } as unknown as Authenticator;
      const koa = new Koa();
      koa.use(errorHandler());
      koa.use(
        buildRouter(routes, {
          authenticator,
          // A request with an Idempotency-Key runs as a first one (nothing is stored).
          idempotency: {
            begin: async () => ({ kind: 'proceed', recordId: 1 }),
            release: async () => undefined,
            complete: async () => undefined,
          } as unknown as IdempotencyStore,
          rateLimits: {
            consume: async (rule: string) => ({ rule, points: 100, seconds: 60, remaining: 99, resetSeconds: 60 }),
            assertUnder: async () => undefined,
            count: async () => undefined,
          } as unknown as RateLimits,
          // The real check, its proofs' services absent: a request without a proof is refused before they are needed.
          stepUp: new StepUp(undefined as never, undefined as never, undefined as never),
          jsonBodyMaxBytes: 1024,
        }).routes(),
      );
      server = koa.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => server?.close());

    /** A value a string schema admits: a prefixed id, a UUID, a network name or a plain word. */
    const sample = (schema: Json = {}): string => {
      const prefixed = /^\^([a-z]+)_\[0-9a-f-\]\{36\}\$$/.exec(schema.pattern ?? '');
      if (prefixed) return `${prefixed[1]}_${randomUUID()}`;
      const hex = /^\^([a-z]+)_\[0-9a-f\]\{(\d+)\}\$$/.exec(schema.pattern ?? '');
      if (hex) return `${hex[1]}_${'a'.repeat(Number(hex[2]))}`;
      const bare = /^\^\[0-9a-f\]\{(\d+)\}\$$/.exec(schema.pattern ?? '');
      if (bare) return 'a'.repeat(Number(bare[1]));
      if (schema.pattern?.startsWith('^[A-Z]')) return 'ETHEREUM';
      if (schema.pattern?.startsWith('^[1-9]')) return '1';
      if (schema.format === 'uuid' || /4\[0-9a-fA-F\]/.test(schema.pattern ?? '')) return randomUUID();
      if (schema.enum) return schema.enum[0];
      if (schema.const) return schema.const;
      if (schema.anyOf) return sample(schema.anyOf[0]);
      return 'x';
    };
    /** The credential a route takes. */
    const credential = (route: RouteSpec): Record<string, string> =>
      route.auth === 'bearer'
        ? { authorization: 'Bearer a.b.c' }
        : route.auth === 'operator'
          ? { authorization: `Bearer ${OPERATOR_TOKEN}` }
          : route.auth === 'apiKey'
            ? { 'x-api-key': 'api-key' }
            : {};
    /** A request of the route that passes its credential, path and headers (or this path), with this body. */
    const send = (
      route: RouteSpec,
      init: {
        body?: string | FormData;
        type?: string;
        headers?: Record<string, string>;
        path?: string;
        query?: string;
      },
    ) => {
      const { path, op } = operations.get(route.operationId)!;
      const parameters = (op.parameters ?? []) as Json[];
      const target =
        init.path ??
        path.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeURIComponent(sample(parameters.find((p) => p.in === 'path' && p.name === name)?.schema)),
        );
      const headers: Record<string, string> = {
        ...Object.fromEntries(parameters.filter((p) => p.in === 'header').map((p) => [p.name, sample(p.schema)])),
        ...credential(route),
        ...(init.type ? { 'content-type': init.type } : {}),
        ...init.headers,
      };
      return fetch(`${url}${target}${init.query ?? ''}`, {
        method: route.method.toUpperCase(),
        headers,
        body: init.body,
      });
    };
    const answered = async (answer: Response) => {
      const body = (await answer.json()) as Json;
      return `${answer.status} ${body.type ?? body.error?.type}`;
    };
    /** The routes a rule of this type applies to, where their document lists the status. */
    const kind = (type: string) => {
      const rules = ROUTE_PROBLEMS.filter((rule) => rule.type === type);
      return routes.filter((route) =>
        rules.some((rule) => {
          const documented = Object.keys(operations.get(route.operationId)!.op.responses);
          return problemTypesOf(route, documented)[rule.status]?.includes(`/problems/${type}`);
        }),
      );
    };
    /** The answers that are not the refusal expected, by operation. */
    const refusals = async (type: string, status: number, request: (route: RouteSpec) => Promise<Response>) => {
      const other: string[] = [];
      const of = kind(type);
      expect(of.length).toBeGreaterThan(0);
      for (const route of of) {
        const got = await answered(await request(route));
        if (got !== `${status} /problems/${type}`) other.push(`${route.operationId}: ${got}`);
      }
      return other;
    };
    const form = (fields: number) => {
      const data = new FormData();
      for (let i = 0; i < fields; i += 1) data.append(`field${i}`, 'x');
      return data;
    };

    it('malformed-json: a JSON body that does not parse', async () => {
      expect(
        await refusals('malformed-json', 400, (route) => send(route, { body: '{', type: 'application/json' })),
      ).toEqual([]);
    });

    it('unsupported-media-type: a body of a type the route does not take', async () => {
      expect(
        await refusals('unsupported-media-type', 415, (route) => send(route, { body: 'x', type: 'text/plain' })),
      ).toEqual([]);
    });

    it('payload-too-large: a JSON body over JSON_BODY_MAX_BYTES, a form over its limits', async () => {
      expect(
        await refusals('payload-too-large', 413, (route) =>
          route.body
            ? send(route, { body: JSON.stringify({ x: 'x'.repeat(2048) }), type: 'application/json' })
            : send(route, { body: form(11) }),
        ),
      ).toEqual([]);
    });

    it('validation-error: a part of the request its schema refuses', async () => {
      expect(
        await refusals('validation-error', 400, async (route) => {
          const { path, op } = operations.get(route.operationId)!;
          // The part of the request the route checks that it gets wrong: its path, its headers, its body, its
          // Idempotency-Key or its query.
          const constrained = (schema: Json) =>
            ['pattern', 'enum', 'const', 'anyOf', 'format'].some((k) => k in schema);
          if ((op.parameters as Json[]).some((p) => p.in === 'path' && constrained(p.schema)))
            return send(route, { path: path.replace(/\{(\w+)\}/g, '~') });
          const headers = ((route.headers as { required?: string[] } | undefined)?.required ?? []).filter(
            (name) => !(name in credential(route)),
          );
          if (headers.length || route.auth === 'passToken')
            return send(route, { headers: Object.fromEntries([...headers, 'x-pass-token'].map((name) => [name, ''])) });
          if (route.body) return send(route, { body: '[]', type: 'application/json' });
          if (route.multipart) return send(route, { body: form(1) });
          if (route.idempotency) return send(route, { headers: { 'idempotency-key': 'not-a-uuid' } });
          return send(route, { query: '?~=~' });
        }),
      ).toEqual([]);
    });

    it('unauthorized: a Bearer or operator route without a credential', async () => {
      expect(await refusals('unauthorized', 401, (route) => send(route, { headers: { authorization: '' } }))).toEqual(
        [],
      );
    });

    it('invalid-operator-token and invalid-api-key: a credential that is not ours', async () => {
      expect(
        await refusals('invalid-operator-token', 401, (route) =>
          send(route, { headers: { authorization: `Bearer op_${'b'.repeat(43)}` } }),
        ),
      ).toEqual([]);
      expect(
        await refusals('invalid-api-key', 401, (route) => send(route, { headers: { 'x-api-key': 'wrong' } })),
      ).toEqual([]);
    });

    it('step-up-required: a request without a proof, on a route whose step-up the router checks (a handler’s own check: test/e2e)', async () => {
      const other: string[] = [];
      const routers = kind('step-up-required').filter((route) => !route.stepUp!.checkedBy);
      expect(routers.length).toBeGreaterThan(10);
      for (const route of routers) {
        // The request the tests recorded, without its proof: a form of the route's fields, or the JSON body.
        const proofs = new Set(presentedProofs(route.stepUp!).map((proof) => proofField(route.stepUp!, proof)));
        const fields = Object.entries(
          (route.multipart?.example ?? OPERATION_EXAMPLES[route.operationId]?.request ?? {}) as Json,
        ).filter(([name]) => !proofs.has(name) && name !== route.multipart?.file.field);
        const form = new FormData();
        for (const [name, value] of fields) form.append(name, value as string);
        // The file part: a JPEG by its first bytes, which is all the router reads of it before the step-up.
        if (route.multipart)
          form.append(route.multipart.file.field, new Blob([new Uint8Array([0xff, 0xd8, 0xff])]), 'card.jpg');
        const answer = await send(
          route,
          route.multipart
            ? { body: form }
            : { body: JSON.stringify(Object.fromEntries(fields)), type: 'application/json' },
        );
        const got = await answered(answer);
        if (got !== '422 /problems/step-up-required') other.push(`${route.operationId}: ${got}`);
      }
      expect(other).toEqual([]);
    });

    it('device-on-hold: a device in its new-device hold, on a route whose step-up holds it', async () => {
      expect(
        await refusals('device-on-hold', 403, (route) => send(route, { headers: { 'x-test-held': '1' } })),
      ).toEqual([]);
    });
  });

  describe('webhooks', () => {
    it('carry an example payload of their event type, valid under its schema', () => {
      expect(Object.keys(EVENT_EXAMPLES).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
      const invalid: string[] = [];
      for (const [name, item] of Object.entries(document.webhooks as Record<string, Json>)) {
        const { schema, example } = item.post.requestBody.content['application/json'];
        expect([name, example?.type]).toEqual([name, name]);
        if (!validator(schema)(example)) invalid.push(`${name}: ${JSON.stringify(validator(schema).errors)}`);
      }
      expect(invalid).toEqual([]);
      expect(Object.keys(document.webhooks).length).toBe(EVENT_TYPE_NAMES.length);
    });
  });
});
