import { offlineOpenApi } from '../../api/openapi-document';
import { OPERATION_EXAMPLES } from '../../api/http/examples';
import { NO_EXAMPLE, documentedBodies, schemaValidator } from '../../scripts/examples';

type Json = Record<string, any>;

/**
 * The document's examples are what the service answered in the tests (api/http/examples.json, built by
 * `npm run examples:build` from a recording of the test stacks): each one must still be valid under its operation's
 * schema as the routes declare it today, and every body has one.
 */
describe('OpenAPI examples', () => {
  const document = offlineOpenApi() as Json;
  const bodies = documentedBodies(document);
  const validator = schemaValidator(document);
  const operations: Array<[string, Json]> = Object.values(document.paths as Record<string, Json>).flatMap((item) =>
    Object.values(item).map((op: Json) => [op.operationId as string, op] as [string, Json]),
  );

  it('names only operations that exist', () => {
    const ids = new Set(operations.map(([id]) => id));
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('gives every request body and every success answer an example that is valid under its schema', () => {
    const missing: string[] = [];
    const invalid: string[] = [];
    for (const [id, op] of operations) {
      const bodies = { ...op.requestBody?.content, ...op['x-json-body']?.content } as Record<string, Json>;
      for (const [type, media] of Object.entries(bodies)) {
        if (media.example === undefined) missing.push(`${id} request ${type}`);
        else if (!validator(media.schema)(media.example))
          invalid.push(`${id} request: ${JSON.stringify(validator(media.schema).errors)}`);
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = response.content?.['application/json'];
        if (Number(status) >= 400 || !media || NO_EXAMPLE[id]) continue;
        if (media.example === undefined) missing.push(`${id} ${status}`);
        else if (!validator(media.schema)(media.example))
          invalid.push(`${id} ${status}: ${JSON.stringify(validator(media.schema).errors)}`);
      }
    }
    expect(invalid).toEqual([]);
    expect(missing).toEqual([]);
  });

  it('lists problem types only under error statuses the operation documents, and names them in its description', () => {
    const misplaced: string[] = [];
    for (const [id, op] of operations)
      for (const [status, types] of Object.entries(OPERATION_EXAMPLES[id]?.problems ?? {})) {
        const response = op.responses[status] as Json | undefined;
        if (!response) misplaced.push(`${id} ${status}`);
        else for (const type of types) expect(response.description).toContain(`\`${type}\``);
      }
    expect(misplaced).toEqual([]);
  });

  it('checks examples for real: a changed field type makes one invalid', () => {
    const [id, body] = [...bodies].find(([, b]) => b.responses.size > 0 && b.responses.has('200'))!;
    const example = OPERATION_EXAMPLES[id]?.responses?.['200'];
    expect(example).toBeDefined();
    expect(validator(body.responses.get('200'))(example)).toBe(true);
    expect(validator(body.responses.get('200'))(42)).toBe(false);
  });
});
