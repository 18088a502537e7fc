import { Type, type TSchema } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
export const UuidV4 = Type.String({
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$',
  description: 'UUID version 4',
});
export const DateTime = Type.String({ format: 'date-time' });
export const NonEmpty = (options: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, maxLength: options.maxLength ?? 512, description: options.description });

export const IdempotencyKeyHeader = Type.String({
  format: 'uuid',
  description:
    'Fresh UUID per logical request (IETF httpapi Idempotency-Key draft). A retry with the same key replays the stored response.',
});

export const FieldErrorSchema = Type.Object({
  in: Type.Union([Type.Literal('body'), Type.Literal('header'), Type.Literal('path'), Type.Literal('query')]),
  pointer: Type.String({ description: 'JSON Pointer (RFC 6901) into the part named by "in"' }),
  detail: Type.String(),
});
const problemMembers = {
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.Optional(Type.String()),
  instance: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(FieldErrorSchema)),
};
/** RFC 9457 problem details, the error body of /v1/* routes. */
export const ProblemSchema = Type.Object(problemMembers, { $id: 'Problem' });
/** The error body of /api/v1/* routes. */
export const EnvelopeErrorSchema = Type.Object(
  { status: Type.Literal('error'), error: Type.Object(problemMembers) },
  { $id: 'EnvelopeError' },
);
export const envelope = (data: TSchema) => Type.Object({ status: Type.Literal('ok'), data });

/**
 * How far a user operation the owner signed has gone, and what a stalled one needs. Shared by every operation view
 * (deploy job, DID key, transfer key, account upgrade, recovery cancellation).
 */
export const SignedOperationStatus = Type.String({
  description:
    'prepared | submitted | stalled | completed | failed | replaced. stalled: the bundler holds the operation but the ' +
    'network asks more than its fee cap (stallReason); it may still land, or prepare the same operation again and sign it: the new one is priced above it and takes its place, and this one becomes replaced (replacedBy names the new one)',
});
export const SignedOperationProgress = {
  stallReason: Type.Union([Type.Literal('fees-rose'), Type.Null()], {
    description: 'fees-rose: the network base fee went above the operation maxFeePerGas',
  }),
  replacedBy: Type.Union([Type.String(), Type.Null()], {
    description: 'The operation that took the place of this one (same account and nonce, signed again)',
  }),
};

/**
 * The query of a list that pages (api/http/pagination.ts): `limit` items at most, after `cursor` (the previous page's
 * `nextCursor` / `next_cursor`). The same names in both API styles.
 */
export const pageQuery = (limit: { default: number; maximum: number; whole?: boolean }) => ({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: limit.maximum,
      // A list answered whole in 1.0.0 still is when the request pages neither way (api/http/pagination.ts, findPage).
      ...(limit.whole
        ? {
            description:
              `How many items at most (up to ${limit.maximum}). Without \`limit\` and \`cursor\` the whole list ` +
              `is answered, as in 1.0.0; with a \`cursor\` alone, ${limit.default}`,
          }
        : {
            default: limit.default,
            description: `How many items at most (${limit.default} by default, up to ${limit.maximum})`,
          }),
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]{1,400}$',
      description:
        'The cursor of the previous page (its `nextCursor` on /v1, `next_cursor` on /api/v1): the items after it',
    }),
  ),
});
const NEXT_CURSOR = 'Pass it as `cursor` for the next page; null on the last page';
const HAS_MORE = 'Whether there is a next page (then the answer also carries `Link: <…>; rel="next"`)';
/** The paging members of a /v1 list. */
export const pageMembers = {
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: NEXT_CURSOR }),
  hasMore: Type.Boolean({ description: HAS_MORE }),
};
/** The paging members of an /api/v1 list (snake_case). */
export const pageMembersSnake = {
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: NEXT_CURSOR }),
  has_more: Type.Boolean({ description: HAS_MORE }),
};
/** The `Link` header of a page that has a next one. */
export const PAGE_LINK_HEADER = {
  link: {
    description: 'RFC 8288 `<…>; rel="next"`: the next page (this request with `cursor` set), when there is one',
    schema: Type.String(),
  },
};
/** The headers of an answer to a request that used a deprecated parameter (RFC 9745 and RFC 8594). */
export const DEPRECATED_PARAMETER_HEADERS = {
  deprecation: {
    description: 'RFC 9745 (`@` and Unix seconds): sent when the request used a deprecated parameter',
    schema: Type.String(),
  },
  sunset: {
    description: 'RFC 8594: when the deprecated parameter the request used stops working',
    schema: Type.String(),
  },
};
