import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testDatabases } from '../helpers/databases';
import { EVENT_TYPE_NAMES } from '../../platform/events';
import { OPERATION_LINKS } from '../../api/links';
import { PROBLEM_CATALOGUE } from '../../api/http/problem-catalogue';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser } from '../helpers/http';

/** A schema of the document, its `$ref` to a named schema (components.schemas) followed. */
const deref = <T>(document: { components: { schemas: Record<string, T> } }, schema: T): T => {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  return ref ? deref(document, document.components.schemas[ref.replace('#/components/schemas/', '')]!) : schema;
};

describe('OpenAPI document', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('documents every route of the router with its request and response schemas', async () => {
    const doc = await call(`${stack.apiUrl}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    for (const route of stack.app.routes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      const operation = doc.body.paths[path]?.[route.method];
      expect(operation).toBeDefined();
      expect(operation.operationId).toBe(route.operationId);
      const success = Object.keys(operation.responses).find((s) => Number(s) < 300)!;
      expect(success).toBeDefined();
      if (route.body || route.multipart) expect(operation.requestBody.content).toBeDefined();
      expect(operation.responses['500'].description).toContain('contact a representative');
    }
  });

  it('writes sets of string constants as enum, never as anyOf of const, and no value as null alone (clients generated in other languages read them)', async () => {
    const doc = (await call(`${stack.apiUrl}/openapi.json`)).body as unknown;
    const constantSets: string[] = [];
    let enums = 0;
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) return value.forEach((item, i) => walk(item, `${at}/${i}`));
      if (value === null || typeof value !== 'object') return;
      const json = value as Record<string, unknown>;
      const anyOf = json.anyOf;
      if (Array.isArray(anyOf) && anyOf.some((m) => m && typeof m === 'object' && 'const' in m)) constantSets.push(at);
      if (Array.isArray(json.enum)) enums += 1;
      // A value that can only be null is a type Kotlin and Swift clients do not have (openapi-generator's `Null`).
      if (json.type === 'null' && !/\/(anyOf|oneOf)\/\d+$/.test(at)) nullOnly.push(at);
      for (const [key, item] of Object.entries(json)) walk(item, `${at}/${key}`);
    };
    const nullOnly: string[] = [];
    walk(doc, '#');
    expect(constantSets).toEqual([]);
    expect(nullOnly).toEqual([]);
    expect(enums).toBeGreaterThan(50);
  });

  it('is the document the typed client was generated from (clients/typescript/openapi.json), apart from its servers', async () => {
    const { body } = await call(`${stack.apiUrl}/openapi.json`);
    const { servers, ...served } = body;
    expect(servers).toEqual(expect.any(Array));
    const { servers: _none, ...committed } = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'clients', 'typescript', 'openapi.json'), 'utf8'),
    );
    expect(served).toEqual(committed);
  });

  it("resolves every problem type at its URL (an error's `type`, against the API's origin), and lists them all", async () => {
    const names = Object.keys(PROBLEM_CATALOGUE).sort();
    const list = await call(`${stack.apiUrl}/problems`);
    expect([list.status, list.body.items.map((item: { type: string }) => item.type)]).toEqual([
      200,
      names.map((name) => `/problems/${name}`),
    ]);
    for (const name of names) {
      const entry = await call(`${stack.apiUrl}/problems/${name}`);
      expect([entry.status, entry.body.type, entry.body.exampleAnswer.type]).toEqual([
        200,
        `/problems/${name}`,
        `/problems/${name}`,
      ]);
    }
    // An error answer's own type leads to its entry; a name the service never answers is 404.
    const missing = await call(`${stack.apiUrl}/problems/no-such-problem`);
    expect([missing.status, missing.body.type]).toEqual([404, '/problems/not-found']);
    const entry = await call(`${stack.apiUrl}${missing.body.type}`);
    expect([entry.status, entry.body.title]).toEqual([200, PROBLEM_CATALOGUE['not-found']!.title]);
  });

  it('declares every event type as a webhook with its payload schema and the Standard Webhooks headers', async () => {
    const { body } = await call(`${stack.apiUrl}/openapi.json`);
    expect(Object.keys(body.webhooks).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
    const confirmed = body.webhooks['transfer.confirmed'].post;
    expect(confirmed.parameters.map((p: { name: string }) => p.name)).toEqual([
      'webhook-id',
      'webhook-timestamp',
      'webhook-signature',
    ]);
    const schema = deref(body, confirmed.requestBody.content['application/json'].schema);
    expect(schema.properties.type.const).toBe('transfer.confirmed');
    // Each carries an example payload of its type.
    expect(confirmed.requestBody.content['application/json'].example).toMatchObject({ type: 'transfer.confirmed' });
    expect(schema.properties.data.required).toEqual(expect.arrayContaining(['transferId', 'networkId', 'txHash']));
  });

  it('links each creating operation to the ones that use its ids, every link resolvable', async () => {
    const { body } = await call(`${stack.apiUrl}/openapi.json`);
    const operations = new Map<string, { parameters: Array<{ name: string; in: string }> }>();
    for (const ops of Object.values(body.paths) as Array<
      Record<string, { operationId: string; parameters: Array<{ name: string; in: string }> }>
    >) {
      for (const op of Object.values(ops)) operations.set(op.operationId, op);
    }
    /**
     * Where a JSON pointer of an answer lands in its schema (through the properties it names, an allOf's too, and the
     * named schemas they refer to).
     */
    type Schema = { properties?: Record<string, Schema>; allOf?: Schema[]; $ref?: string };
    const property = (at: Schema | undefined, key: string): Schema | undefined => {
      const schema = at && deref<Schema>(body, at);
      const found = schema?.properties?.[key] ?? schema?.allOf?.map((part) => property(part, key)).find(Boolean);
      return found && deref<Schema>(body, found);
    };
    const resolve = (schema: Schema, pointer: string) =>
      pointer.split('/').slice(1).reduce<Schema | undefined>(property, schema);
    let links = 0;
    for (const [operationId, byStatus] of Object.entries(OPERATION_LINKS)) {
      const source = [...Object.values(body.paths)]
        .flatMap((ops) =>
          Object.values(
            ops as Record<
              string,
              {
                operationId: string;
                responses: Record<string, { links?: unknown; content?: Record<string, { schema: never }> }>;
              }
            >,
          ),
        )
        .find((op) => op.operationId === operationId);
      expect(source).toBeDefined();
      for (const [status, named] of Object.entries(byStatus)) {
        const response = source!.responses[status]!;
        expect(response.links).toEqual(named);
        for (const link of Object.values(named)) {
          links += 1;
          const target = operations.get(link.operationId);
          expect(target).toBeDefined();
          const pathParameters = target!.parameters.filter((p) => p.in === 'path').map((p) => p.name);
          for (const [name, expression] of Object.entries(link.parameters)) {
            expect(pathParameters).toContain(name);
            expect(
              resolve(response.content!['application/json']!.schema, expression.replace('$response.body#', '')),
            ).toMatchObject({ type: 'string' });
          }
        }
      }
    }
    expect(links).toBeGreaterThan(20);
  });

  it('names the interface endpoints with their headers', async () => {
    const { body } = await call(`${stack.apiUrl}/openapi.json`);
    const register = body.paths['/v1/account/register'].post;
    expect(register.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['idempotency-key', 'x-device-id']),
    );
    expect(deref(body, register.responses['201'].content['application/json'].schema).required).toEqual(
      expect.arrayContaining(['regId', 'step', 'passInfo', 'allSteps', 'passTokenExpiresAt']),
    );
    const ekyc = body.paths['/v1/account/register/{regId}/ekyc'].post;
    // The interface's two bodies: the form as the request body, the JSON form beside it (one body type per operation).
    expect(Object.keys(ekyc.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(ekyc['x-json-body'].content)).toEqual(['application/json']);
    expect(deref(body, ekyc['x-json-body'].content['application/json'].schema).required).toEqual(
      expect.arrayContaining(['uploadRef', 'idCardType']),
    );
    expect(
      body.paths['/api/v1/kyc/basic-info'].post.responses['200'].content['application/json'].schema.properties.status,
    ).toBeDefined();
  });

  it('documents the 404 of the NICE window routes on a service configured with IDENTITY_PROVIDER=callback (found by Schemathesis)', async () => {
    const { body } = await call(`${stack.apiUrl}/openapi.json`);
    for (const [path, method] of [
      ['/v1/auth/pass/requests', 'post'],
      ['/v1/auth/pass/nice/return', 'get'],
      ['/v1/auth/pass/requests/{passRequestId}/token', 'post'],
    ] as const)
      expect(body.paths[path][method].responses['404']).toBeDefined();
    const back = await call(`${stack.apiUrl}/v1/auth/pass/nice/return?token_version_id=x&enc_data=0&integrity_value=0`);
    expect([back.status, back.body.type]).toEqual([404, '/problems/not-found']);
  });

  it('serves a docs page and answers unknown paths with problem+json', async () => {
    const docs = await fetch(`${stack.apiUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
    expect(docs.headers.get('content-security-policy')).toContain("default-src 'self'");
    const renderer = await fetch(`${stack.apiUrl}/docs/scalar.js`);
    expect(renderer.headers.get('content-type')).toContain('javascript');
    expect(await renderer.text()).toContain('createApiReference');
    const missing = await call(`${stack.apiUrl}/v1/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toContain('application/problem+json');
    const apiMissing = await call(`${stack.apiUrl}/api/v1/nothing-here`);
    expect(apiMissing.body).toMatchObject({ status: 'error', error: { status: 404 } });
  });

  it('answers methods a path does not have with 405 and an Allow of what the path really offers (found by Schemathesis)', async () => {
    const patch = await call(`${stack.apiUrl}/.well-known/jwks.json`, { method: 'PATCH' });
    expect([patch.status, patch.headers.get('allow'), patch.body.type]).toEqual([
      405,
      'HEAD, GET',
      '/problems/method-not-allowed',
    ]);
    // /charge/execute is POST only, although GET /charge/{chargeId} would match the path if its id were not checked.
    const options = await fetch(`${stack.apiUrl}/api/v1/charge/execute`, { method: 'OPTIONS' });
    expect(options.headers.get('allow')).toBe('POST');
    const user = await registerUser(stack);
    const get = await call(`${stack.apiUrl}/api/v1/charge/execute`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect([get.status, get.headers.get('allow'), get.body.error?.type]).toEqual([
      405,
      'POST',
      '/problems/method-not-allowed',
    ]);
    // A JSON body with a "__proto__" key is read without it, never refused as malformed nor merged into prototypes.
    const poisoned = await call(`${stack.apiUrl}/v1/exchange/quote`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
      raw: '{"source":"ETH","target":"USDT","networkId":"ETHEREUM","direction":"exactInput","amount":"1","__proto__":{"admin":true}}',
    });
    // Read and validated (this stack has no chains: the network is unknown), not refused as malformed.
    expect([poisoned.status, poisoned.body.type]).toEqual([404, '/problems/unknown-network']);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('reports readiness of the database and Temporal', async () => {
    const ready = await call(`${stack.apiUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
    expect((await call(`${stack.apiUrl}/healthz`)).body).toEqual({ status: 'ok' });
  });
});
