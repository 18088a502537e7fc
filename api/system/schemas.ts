import { Type } from '@sinclair/typebox';

export const Health = Type.Object({ status: Type.Literal('ok') });
export const Readiness = Type.Object({ status: Type.Literal('ready'), checks: Type.Object({ database: Type.String(), temporal: Type.String() }) });
export const OpenApiDocument = Type.Object({}, { additionalProperties: true });
