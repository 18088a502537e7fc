import { Type } from '@sinclair/typebox';

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', maxLength: 4 * 1024 * 1024 });
export const CodecPayload = Type.Object(
  {
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 256 }), Base64, { description: 'metadata values, base64' }),
    ),
    data: Type.Optional(Base64),
  },
  { additionalProperties: false },
);
export const CodecPayloads = Type.Object(
  { payloads: Type.Array(CodecPayload, { maxItems: 1000 }) },
  { additionalProperties: false },
);

export const OperatorSignIn = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 256, description: 'the operator token (op_…)' }) },
  { additionalProperties: false },
);
export const OperatorSession = Type.Object({
  operator: Type.String(),
  expiresAt: Type.String({ format: 'date-time' }),
});
