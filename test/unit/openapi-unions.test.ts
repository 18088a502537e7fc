import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { offlineRoutes } from '../../api/openapi-document';
import { unionAsOneObject } from '../../api/http/openapi-unions';
import { OPERATION_EXAMPLES } from '../../api/http/examples';

type Json = Record<string, unknown>;
const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;
const compile = (schema: unknown) => addFormats(new Ajv({ strict: false, allErrors: true })).compile(schema as object);

/**
 * Request bodies that are unions of objects, written as one object for clients generated in other languages
 * (openapi-generator's Kotlin and Swift merge a union into one model with every field required): the rewrite must
 * accept exactly what the union accepts. Both are compiled with Ajv and given the same values: each operation's
 * documented request, and that request changed every way a client could get it wrong.
 */
describe('request bodies written as one object (unions of objects)', () => {
  const unions = offlineRoutes().filter((route) => {
    const body = route.body ? plain(route.body) : undefined;
    return Array.isArray(body?.anyOf) && unionAsOneObject(body) !== body;
  });

  it('finds the unions of objects the document has (the token grants, the securities check, the exchange connection)', () => {
    expect(unions.map((route) => route.operationId).sort()).toEqual(
      expect.arrayContaining(['connectCexAccount', 'issueTokens', 'verifySecurities'].sort()),
    );
  });

  /** The documented request and its variants: each field dropped, set to another branch's, mistyped, extra ones. */
  const variants = (union: Json, example: Json): unknown[] => {
    const branches = union.anyOf as Array<{ properties: Record<string, Json>; required?: string[] }>;
    const names = [...new Set(branches.flatMap((b) => Object.keys(b.properties)))];
    const samples = (name: string): unknown[] => {
      const values = new Set<unknown>([
        '',
        'x',
        1,
        null,
        true,
        '12345678-01',
        'reg_' + '0'.repeat(24),
        'sgn_' + 'a'.repeat(24),
      ]);
      for (const b of branches) {
        const s = b.properties[name];
        if (s && typeof s.const === 'string') values.add(s.const);
        if (s && Array.isArray(s.enum)) for (const v of s.enum) values.add(v);
      }
      return [...values];
    };
    const out: unknown[] = [example, {}, null, [], 'x', { ...example, extra: 1 }];
    for (const name of names) {
      const { [name]: _dropped, ...without } = example;
      out.push(without);
      for (const value of samples(name)) out.push({ ...example, [name]: value });
    }
    // Every branch's own required fields, filled from the others' samples.
    for (const b of branches)
      out.push(
        Object.fromEntries(
          (b.required ?? []).map((n) => [
            n,
            typeof b.properties[n]?.const === 'string' ? b.properties[n]!.const : (example[n] ?? 'x'),
          ]),
        ),
      );
    return out;
  };

  it('accepts and refuses the same requests as the union, for every such body', () => {
    const differ: string[] = [];
    let compared = 0;
    for (const route of unions) {
      const union = plain(route.body);
      const [original, rewritten] = [compile(union), compile(unionAsOneObject(union))];
      const example = OPERATION_EXAMPLES[route.operationId]?.request as Json | undefined;
      expect(example).toBeDefined();
      for (const value of variants(union, example!)) {
        compared += 1;
        if (original(value) !== rewritten(value)) differ.push(`${route.operationId}: ${JSON.stringify(value)}`);
      }
    }
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(100);
  });

  it('checks for real: the object without its if/then/else accepts what the union refuses', () => {
    const route = unions.find((r) => r.operationId === 'issueTokens')!;
    const { if: _if, then: _then, else: _else, ...loose } = unionAsOneObject(plain(route.body)) as Json;
    const [original, rewritten] = [compile(plain(route.body)), compile(loose)];
    const mixed = { grantType: 'registration', refreshToken: 'r' };
    expect([original(mixed), rewritten(mixed)]).toEqual([false, true]);
  });
});
