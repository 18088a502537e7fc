import { Type } from '@sinclair/typebox';

export const Health = Type.Object({ status: Type.Literal('ok') });
const Check = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]);
export const Readiness = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Object({ database: Check, temporal: Check }),
});
export const OpenApiDocument = Type.Object({}, { additionalProperties: true });

/** The problem catalogue (GET /problems, GET /problems/{name}). */
export const ProblemView = Type.Object(
  {
    type: Type.String({ description: 'The `type` of the answers it explains: `/problems/<name>`' }),
    title: Type.String(),
    status: Type.Array(Type.Integer(), { description: 'The HTTP status(es) it comes with' }),
    meaning: Type.String(),
    when: Type.String({ description: 'Which operations answer it, and what leads to it' }),
    action: Type.String({ description: 'What the client should do' }),
    exampleAnswer: Type.Object({
      type: Type.String(),
      title: Type.String(),
      status: Type.Integer(),
      detail: Type.String(),
    }),
  },
  { description: 'One problem type of the catalogue' },
);
export const ProblemList = Type.Object({ items: Type.Array(ProblemView) });
export const ProblemParams = Type.Object({ name: Type.String({ pattern: '^[a-z0-9-]{1,80}$' }) });
