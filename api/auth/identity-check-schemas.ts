import { Type } from '@sinclair/typebox';
import { DateTime, IdempotencyKeyHeader, NonEmpty } from '../common/schemas';
import { StepUpRequestSchema } from '../passkeys/schemas';

export const IdentityCheckParams = Type.Object({
  identityCheckId: Type.String({ pattern: '^sgn_[0-9a-f]{24}$', description: 'Identity check id' }),
});
export const IdempotentHeaders = Type.Object({ 'idempotency-key': IdempotencyKeyHeader });
export const StartIdentityCheckBody = Type.Object(
  {
    passToken: NonEmpty({
      maxLength: 512,
      description: 'From an identity verification the person just did on this device (the account holder: same CI)',
    }),
    request: StepUpRequestSchema,
  },
  { additionalProperties: false },
);
export const IdentityCheckView = Type.Object({
  identityCheckId: Type.String({ description: 'Send as identityCheckId with the request it approves' }),
  status: Type.Union(
    ['in_progress', 'verified', 'used', 'failed', 'expired'].map((s) => Type.Literal(s)),
    {
      description:
        'in_progress (prove it with the ID card: proofs), verified (send it with its request), used, failed (too many wrong cards), expired',
    },
  ),
  request: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
    description: 'The one request it approves',
  }),
  proofs: Type.Array(Type.Literal('id_card'), { description: 'What is still to prove' }),
  verifiedAt: Type.Union([DateTime, Type.Null()]),
  expiresAt: Type.Union([DateTime, Type.Null()], {
    description: 'Until then a verified check approves its request (STEP_UP_IDENTITY_SECONDS after verifiedAt)',
  }),
});
