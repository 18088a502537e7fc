type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A branch this rewrite takes: an object schema listing its properties, and no others (additionalProperties false). */
const isClosedObject = (branch: unknown): branch is Json & { properties: Record<string, Json> } =>
  isObject(branch) && branch.type === 'object' && isObject(branch.properties) && branch.additionalProperties === false;

/** The string constants a property schema allows, if that is all it allows (`const`, or `enum` of strings). */
const constantsOf = (schema: Json): string[] | undefined => {
  if (typeof schema.const === 'string') return [schema.const];
  if (Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === 'string')) return schema.enum as string[];
  return undefined;
};

/**
 * One property of the flat object, from its schemas in the branches that have it: the same schema where they agree; a
 * set of constants as the enum of them all; else only what every branch's schema implies (its type). Never stricter
 * than any branch: the branches themselves, under `if`/`then`/`else`, say what is accepted.
 */
function mergedProperty(schemas: Json[]): Json {
  const [first] = schemas;
  if (schemas.every((s) => JSON.stringify(s) === JSON.stringify(first))) return first!;
  const constants = schemas.map(constantsOf);
  if (constants.every((c) => c !== undefined)) return { type: 'string', enum: [...new Set(constants.flat())] };
  const types = new Set(schemas.map((s) => s.type));
  return types.size === 1 && typeof first!.type === 'string' ? { type: first!.type } : {};
}

/**
 * A request body that is a union of object schemas (TypeBox's `anyOf`: the token's grants, the securities check's
 * methods, the exchange connection's two forms) written as one object, as clients generated in other languages need:
 * openapi-generator's Kotlin and Swift clients merge an `anyOf` (or a `oneOf`) of objects into one model with every
 * branch's fields required, which no request can satisfy. The object lists every branch's properties (only those all
 * branches require are required) for the generators; what is accepted is said exactly by `if`/`then`/`else`, which
 * they ignore: `if` the first branch `then` nothing more, `else` the same over the rest, the last branch required.
 * A value passes iff it passes some branch, as under the `anyOf`. Anything else is answered as it is.
 */
export function unionAsOneObject(schema: unknown): unknown {
  if (!isObject(schema) || !Array.isArray(schema.anyOf) || schema.anyOf.length < 2) return schema;
  const branches = schema.anyOf;
  if (!branches.every(isClosedObject)) return schema;
  const { anyOf: _anyOf, ...rest } = schema;
  const names = [...new Set(branches.flatMap((b) => Object.keys(b.properties)))];
  const required = names.filter((name) =>
    branches.every((b) => Array.isArray(b.required) && (b.required as string[]).includes(name)),
  );
  const chain = (remaining: Json[]): Json =>
    remaining.length === 1 ? remaining[0]! : { if: remaining[0]!, then: {}, else: chain(remaining.slice(1)) };
  return {
    ...rest,
    type: 'object',
    additionalProperties: false,
    ...(required.length ? { required } : {}),
    properties: Object.fromEntries(
      names.map((name) => [
        name,
        mergedProperty(branches.filter((b) => name in b.properties).map((b) => b.properties[name]!)),
      ]),
    ),
    ...chain(branches),
  };
}
