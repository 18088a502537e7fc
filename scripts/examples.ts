/**
 * The OpenAPI document's examples and problem types, taken from what the service really answered in the tests:
 *
 *   RECORD_EXCHANGES=/tmp/exchanges.jsonl npx jest test/e2e test/chain   # the test stacks record every exchange
 *   npm run examples:build -- /tmp/exchanges.jsonl                       # writes api/http/examples.json
 *   npm run client:generate                                              # the document and client carry them
 *
 * For each operation: the first JSON request body of a successful call that is valid under the operation's schema, the
 * first valid answer of each documented success status, and every problem type it answered per error status. An
 * example already in the file is kept (run with `--replace` to take the recording's); problem types add up.
 * `--problems-only` takes only problem types, for a recording of the fuzz test (schema-valid but odd bodies). The
 * recording comes from the test stacks (sandbox data, throwaway keys), so nothing personal or secret lands here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RecordedExchange } from '../test/helpers/exchange-recorder';
import { offlineRoutes } from '../api/openapi-document';
import { apiDocument } from '../api/route-table';
import { EXAMPLES_PATH, type OperationExamples } from '../api/http/examples';

type Json = Record<string, unknown>;

/** Operations whose answer is not shown by an example, and why (the unit test names them as the only gaps). */
export const NO_EXAMPLE: Record<string, string> = {
  openApiDocument: 'its answer is this document',
};
/** An example past this size (JSON characters) has its arrays cut to their first item. */
const EXAMPLE_MAX_CHARS = 4_000;

/** A long example made short: every array keeps its first item (still valid unless a schema wants more). */
const shortened = (value: unknown): unknown => {
  if (JSON.stringify(value ?? null).length <= EXAMPLE_MAX_CHARS) return value;
  const cut = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.slice(0, 1).map(cut)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)]))
        : v;
  return cut(value);
};

/**
 * The document's JSON schema of a request body or an answer, compiled (formats checked, nothing coerced), its `$ref`s
 * to the named schemas (`#/components/schemas/…`) resolved in the document's components.
 */
export function schemaValidator(document: Json): (schema: unknown) => ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addFormat('binary', true);
  // The components as one schema of their own, which each compiled schema's references point into.
  const named = (document.components as { schemas?: Record<string, Json> } | undefined)?.schemas ?? {};
  const withoutIds = Object.fromEntries(Object.entries(named).map(([name, { $id: _id, ...schema }]) => [name, schema]));
  ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas: withoutIds } });
  const cache = new Map<unknown, ValidateFunction>();
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) cache.set(schema, (validate = ajv.compile(intoComponents(schema) as Json)));
    return validate;
  };
}

const COMPONENTS_ID = 'openapi:components';
/** A schema whose local references to the named schemas point into the components' schema instead. */
const intoComponents = (schema: unknown): unknown =>
  JSON.parse(
    JSON.stringify(schema, (key, value: unknown) =>
      key === '$ref' && typeof value === 'string' && value.startsWith('#/components/')
        ? `${COMPONENTS_ID}${value}`
        : value,
    ),
  );

/** Each operation's request schema (JSON bodies only) and success answers' schemas, from the document. */
export interface DocumentedBodies {
  request?: unknown;
  /** Success status -> its JSON schema. */
  responses: Map<string, unknown>;
  /** Every status the operation documents. */
  statuses: Set<string>;
}

export function documentedBodies(document: Json): Map<string, DocumentedBodies> {
  const bodies = new Map<string, DocumentedBodies>();
  for (const item of Object.values(document.paths as Record<string, Record<string, Json>>))
    for (const operation of Object.values(item)) {
      const request = (operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      const responses = new Map<string, unknown>();
      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        const schema = (response.content as Record<string, Json> | undefined)?.['application/json']?.schema;
        if (Number(status) < 400 && schema) responses.set(status, schema);
      }
      bodies.set(operation.operationId as string, {
        request: request?.['application/json']?.schema,
        responses,
        statuses: new Set(Object.keys(operation.responses as Json)),
      });
    }
  return bodies;
}

const problemType = (body: unknown): string | undefined => {
  const b = body as { type?: unknown; error?: { type?: unknown } } | undefined;
  const type = b?.type ?? b?.error?.type;
  return typeof type === 'string' ? type : undefined;
};

function build(recording: string, replace: boolean, problemsOnly: boolean): OperationExamples {
  const document = apiDocument(offlineRoutes());
  const bodies = documentedBodies(document);
  const validator = schemaValidator(document);
  const current: OperationExamples = replace
    ? {}
    : (JSON.parse(readFileSync(EXAMPLES_PATH, 'utf8')) as OperationExamples);
  const next: OperationExamples = structuredClone(current);
  const skipped: string[] = [];
  const undocumented = new Set<string>();
  for (const line of readFileSync(recording, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const exchange = JSON.parse(line) as RecordedExchange;
    const documented = bodies.get(exchange.operationId);
    if (!documented || NO_EXAMPLE[exchange.operationId]) continue;
    const entry = (next[exchange.operationId] ??= {});
    const status = String(exchange.status);
    if (!documented.statuses.has(status)) {
      undocumented.add(`${exchange.operationId} answered ${status} (${problemType(exchange.response) ?? 'no type'})`);
      continue;
    }
    if (exchange.status >= 400) {
      const type = problemType(exchange.response);
      if (type) {
        const types = new Set((entry.problems ??= {})[status] ?? []);
        types.add(type);
        entry.problems[status] = [...types].sort();
      }
      continue;
    }
    if (problemsOnly) continue;
    const valid = (schema: unknown, value: unknown, what: string) => {
      if (validator(schema)(value)) return true;
      skipped.push(`${exchange.operationId} ${what}: ${JSON.stringify(validator(schema).errors?.[0])}`);
      return false;
    };
    if (
      documented.request &&
      entry.request === undefined &&
      exchange.request !== undefined &&
      valid(documented.request, shortened(exchange.request), 'request')
    )
      entry.request = shortened(exchange.request);
    const responseSchema = documented.responses.get(status);
    if (
      responseSchema &&
      (entry.responses ?? {})[status] === undefined &&
      exchange.response !== undefined &&
      valid(responseSchema, shortened(exchange.response), status)
    )
      (entry.responses ??= {})[status] = shortened(exchange.response);
  }
  // Stable order, so a rebuild from another recording changes only what changed.
  const sorted: OperationExamples = {};
  for (const id of Object.keys(next).sort()) {
    const e = next[id]!;
    sorted[id] = {
      ...(e.request !== undefined ? { request: e.request } : {}),
      ...(e.responses ? { responses: Object.fromEntries(Object.entries(e.responses).sort()) } : {}),
      ...(e.problems ? { problems: Object.fromEntries(Object.entries(e.problems).sort()) } : {}),
    };
  }
  if (skipped.length)
    console.warn(`Recorded bodies not valid under their schema (not used):\n  ${skipped.join('\n  ')}`);
  return sorted;
}

if (require.main === module) {
  const recording = process.argv.slice(2).find((a) => !a.startsWith('--'));
  if (!recording) {
    console.error('usage: npm run examples:build -- <recording.jsonl> [--replace] [--problems-only]');
    process.exit(2);
  }
  const examples = build(recording, process.argv.includes('--replace'), process.argv.includes('--problems-only'));
  writeFileSync(EXAMPLES_PATH, `${JSON.stringify(examples, null, 2)}\n`);
  console.log(`Wrote ${join('api', 'http', 'examples.json')}: ${Object.keys(examples).length} operations`);
}
