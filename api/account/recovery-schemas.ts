import { proofFields } from '../passkeys/schemas';
import { Type } from '@sinclair/typebox';
import { DateTime, IdempotencyKeyHeader, SignedOperationProgress, SignedOperationStatus } from '../common/schemas';
import { DeployExecuteBody, NetworkParams, SigningContainer } from '../wallet/schemas';

const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'EVM address (EIP-55 checksum when mixed case)',
});
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export { NetworkParams };
export const SigningContainerRef = SigningContainer;
export const SignedSlotsBody = DeployExecuteBody;
/** The cancellation's slots: checked after the recovery is found to be the caller's (another user's id is 404, whatever the body). */
export const CancelBody = Type.Object(
  { signing: Type.Optional(DeployExecuteBody.properties.signing) },
  { additionalProperties: false },
);
export const IdempotentHeaders = Type.Object({ 'idempotency-key': IdempotencyKeyHeader });
export const RecoveryView = Type.Object({
  networkId: Type.String(),
  accountAddress: Type.String(),
  recoverable: Type.Boolean({
    description: "The account runs the recoverable implementation and names the service's recovery key",
  }),
  upgradeAvailable: Type.Boolean({
    description: 'It is not recoverable yet and can be upgraded (POST …/upgrade/prepare)',
  }),
  recoveryDelaySeconds: Type.Union([Type.Integer(), Type.Null()]),
  pendingOwner: Nullable(Type.String()),
  executeAfter: Nullable(DateTime),
});
export const OperationAccepted = Type.Object({
  opId: Type.String(),
  status: Type.String({ description: 'submitted' }),
});
export const OperationParams = Type.Object({ accountOpId: Type.String({ pattern: '^(upg|rcx)_[0-9a-f-]{36}$' }) });
export const OperationStatus = Type.Object({
  opId: Type.String(),
  kind: Type.String({ description: 'account_upgrade | recovery_cancel' }),
  networkId: Type.String(),
  status: SignedOperationStatus,
  ...SignedOperationProgress,
  recoveryId: Nullable(Type.String()),
  txHash: Nullable(Type.String()),
  error: Nullable(Type.String()),
  updatedAt: DateTime,
});
export const StartRecoveryBody = Type.Object(
  {
    newOwnerAddress: {
      ...Address,
      description: 'The new owner key (made on the new phone): it controls the account once the recovery executes',
    },
    ...proofFields(
      '{"action":"recovery_start","new_owner_address":"<newOwnerAddress as sent>"}, proved with the ID card',
      ['identity'],
    ),
  },
  { additionalProperties: false },
);
export const RecoveryParams = Type.Object({ recoveryId: Type.String({ pattern: '^rcv_[0-9a-f-]{36}$' }) });
export const RecoveryNetworkParams = Type.Object({ ...RecoveryParams.properties, ...NetworkParams.properties });
export const RecoveryStatus = Type.Object({
  recoveryId: Type.String(),
  newOwnerAddress: Type.String(),
  status: Type.String({ description: 'scheduling | scheduled | executed | cancelled | partial | failed' }),
  createdAt: DateTime,
  networks: Type.Array(
    Type.Object({
      networkId: Type.String(),
      accountAddress: Type.String(),
      status: Type.String({ description: 'pending | scheduled | executed | cancelled | not_recoverable | failed' }),
      executeAfter: Nullable(DateTime),
      scheduleTxHash: Nullable(Type.String()),
      executeTxHash: Nullable(Type.String()),
      error: Nullable(Type.String()),
    }),
  ),
});
