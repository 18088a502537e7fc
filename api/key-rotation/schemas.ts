import { Type } from '@sinclair/typebox';
import { SignedSlot } from '../wallet/schemas';

export const RotatePrepareBody = Type.Object(
  {
    newOwnerAddress: Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'Address of the new owner key' }),
    networkIds: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$' }), {
        minItems: 1,
        maxItems: 16,
        uniqueItems: true,
        description: 'Default: every network where your account is deployed',
      }),
    ),
  },
  { additionalProperties: false },
);
export const RotateExecuteBody = Type.Object(
  {
    signing: Type.Object({ items: Type.Array(SignedSlot, { minItems: 1, maxItems: 8 }) }),
  },
  { additionalProperties: false },
);
export const RotateAccepted = Type.Object({
  taskId: Type.String(),
  status: Type.String({ description: 'processing' }),
});
export const TaskParams = Type.Object({ taskId: Type.String({ pattern: '^rot_[0-9a-f-]{36}$' }) });
export const TaskNetworkParams = Type.Object({
  ...TaskParams.properties,
  networkId: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$' }),
});
export const KeyRotationTaskView = Type.Object({
  taskId: Type.String(),
  status: Type.String({ description: 'processing | completed | partial_failure' }),
  networks: Type.Array(
    Type.Object({
      networkId: Type.String(),
      status: Type.String({
        description:
          'processing | stalled | completed | failed. stalled: the bundler holds the operation but the network asks more than its fee cap; it may still land, or rotate this network again (a new rotation of it is priced above the stalled one and takes its place)',
      }),
      txHash: Type.String({ description: 'empty until a transaction exists' }),
      error: Type.Union([Type.String(), Type.Null()]),
      retryable: Type.Boolean(),
    }),
  ),
});

export const RetryAfterSeconds = Type.Integer({ minimum: 1 });
