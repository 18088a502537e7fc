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
