import { Type } from '@sinclair/typebox';

export const Health = Type.Object({ status: Type.Literal('ok') });
const Check = Type.Union([Type.Literal('ok'), Type.Literal('unreachable')]);
export const Readiness = Type.Object({
  status: Type.Literal('ready'),
  checks: Type.Object({ database: Check, temporal: Check }),
});
export const OpenApiDocument = Type.Object({}, { additionalProperties: true });
