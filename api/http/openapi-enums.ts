type Json = Record<string, unknown>;

/** `{ const: "x", type: "string" }`: one member of a TypeBox union of string literals. */
const isStringConstant = (member: unknown): member is { const: string } =>
  member !== null &&
  typeof member === 'object' &&
  typeof (member as Json).const === 'string' &&
  Object.keys(member).every((key) => key === 'const' || key === 'type');

/**
 * The document's sets of string constants written as `enum`: TypeBox writes a union of literals as `anyOf` of
 * `const`, which generators of clients in other languages (openapi-python-client, openapi-generator's Kotlin and
 * Swift) turn into code that fails at run time or keeps only the first value; `{type: string, enum: [...]}` means the
 * same and every generator reads it. Only the served document is rewritten: the schemas Ajv validates are unchanged.
 */
export function constantsAsEnums<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => constantsAsEnums(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const json: Json = {};
  for (const [key, item] of Object.entries(value as Json)) json[key] = constantsAsEnums(item);
  const { anyOf, ...rest } = json;
  if (!Array.isArray(anyOf)) return json as T;
  const constants = anyOf.filter(isStringConstant);
  const others = anyOf.filter((member) => !isStringConstant(member));
  if (constants.length === 0) return json as T;
  const set = { type: 'string', enum: constants.map((member) => member.const) };
  if (others.length === 0) return { ...set, ...rest } as T;
  // A set beside other schemas (null for a nullable field, a named set, a number): the set as one enum member, where
  // its first constant was.
  const first = anyOf.findIndex(isStringConstant);
  return {
    anyOf: anyOf.flatMap((member, i) => (i === first ? [set] : isStringConstant(member) ? [] : [member])),
    ...rest,
  } as T;
}
