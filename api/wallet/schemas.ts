import { proofFields } from '../passkeys/schemas';
import { Type } from '@sinclair/typebox';
import { DateTime, SignedOperationProgress, SignedOperationStatus } from '../common/schemas';

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address' });
export const NetworkParams = Type.Object({
  networkId: Type.String({ pattern: '^[A-Z][A-Z0-9_]{1,31}$', description: 'e.g. ETHEREUM, POLYGON' }),
});

/** docs/interface.md 2.1: a slot is on-chain signing (algorithm + keyUri + domain) or 2FA (authMethod). */
export const SlotParameter = Type.Object({
  algorithm: Type.Optional(Type.String({ maxLength: 64 })),
  keyUri: Type.Optional(Type.String({ maxLength: 256 })),
  domain: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  authMethod: Type.Optional(Type.String({ maxLength: 32, description: '2FA mode: passkey' })),
  options: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'passkey slots: WebAuthn PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get(); the challenge is bound to the operation',
    }),
  ),
});
export const SigningSlot = Type.Object({
  id: Type.String(),
  parameter: SlotParameter,
  payload: Type.Optional(Type.String()),
});
export const SigningContainer = Type.Object({
  description: Type.Optional(Type.String()),
  items: Type.Array(SigningSlot),
});

export const DeployPrepareBody = Type.Object(
  {
    ownerAddress: Type.Optional({
      ...Address,
      description: "The account owner's key address; needed on the first prepare only",
    }),
    // The first prepare names the owner: it needs one of these (later prepares ignore them).
    ...proofFields('{"action":"owner_set","owner_address":"<ownerAddress as sent>"}', ['pin', 'passkey', 'identity']),
  },
  { additionalProperties: false },
);

export const SignedSlot = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  parameter: SlotParameter,
  signature: Type.Object({
    authResponse: Type.Object(
      {
        signature: Type.Optional(
          Type.String({ pattern: '^0x[0-9a-fA-F]*$', description: '65-byte secp256k1 signature for on-chain slots' }),
        ),
        // Passkey slots: the WebAuthn AuthenticationResponseJSON of navigator.credentials.get().
        id: Type.Optional(
          Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 1400, description: 'passkey slots: credential id' }),
        ),
        rawId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 1400 })),
        type: Type.Optional(Type.Literal('public-key')),
        response: Type.Optional(
          Type.Object(
            {
              clientDataJSON: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 8192 }),
              authenticatorData: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 8192 }),
              // Up to an ML-DSA-87 signature (4627 bytes): Chromium's authenticators sign with ML-DSA-44 when it is offered.
              signature: Type.String({ pattern: '^[A-Za-z0-9_-]+$', maxLength: 8192 }),
              userHandle: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 1024 })),
            },
            { additionalProperties: true },
          ),
        ),
      },
      {
        additionalProperties: true,
        description: 'on-chain slots: {signature}; passkey slots: a WebAuthn AuthenticationResponseJSON',
      },
    ),
  }),
});
export const DeployExecuteBody = Type.Object(
  {
    signing: Type.Object({ items: Type.Array(SignedSlot, { minItems: 1, maxItems: 8 }) }),
  },
  { additionalProperties: false },
);
export const DeployAccepted = Type.Object({ jobId: Type.String(), status: Type.String({ description: 'submitted' }) });

export const DeployJobParams = Type.Object({ jobId: Type.String({ pattern: '^dep_[0-9a-f-]{36}$' }) });
export const DeployJobStatus = Type.Object({
  jobId: Type.String(),
  networkId: Type.String(),
  status: SignedOperationStatus,
  ...SignedOperationProgress,
  accountAddress: Type.String(),
  txHash: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  updatedAt: DateTime,
});

const Won = Type.String({ pattern: '^[0-9]+$', description: 'whole won, as a decimal string' });
export const GasBudget = Type.Object(
  {
    dailyBudgetKrw: Won,
    usedTodayKrw: {
      ...Won,
      description: 'gas sponsored today: what landed operations cost, and the most that prepared or in-flight ones can',
    },
    remainingTodayKrw: Won,
    resetsAt: { ...DateTime, description: 'the next 00:00 KST' },
    paidBy: Type.Literal('service', { description: "gas is paid by the service's paymaster, never from the account" }),
  },
  { additionalProperties: false },
);

const TokenAmount = Type.String({
  pattern: '^\\d{1,30}(\\.\\d{1,36})?$',
  description: 'whole tokens, e.g. "2.5"; "0" stops the key from sending that token',
});
export const TransferKeyPrepareBody = Type.Object(
  {
    action: Type.Union(
      [Type.Literal('renew'), Type.Literal('rotate'), Type.Literal('revoke'), Type.Literal('set-caps')],
      {
        description:
          'renew: authorize the current service key with a new expiry; rotate: a new service key replaces the one the account names (that one is retired); revoke: no service key at all; set-caps: change daily caps',
      },
    ),
    validForSeconds: Type.Optional(
      Type.Integer({
        minimum: 3600,
        description: 'renew, rotate: how long the grant lasts (default and most: TRANSFER_SIGNER_VALIDITY_SECONDS)',
      }),
    ),
    caps: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}$' }), TokenAmount, {
        description: 'daily caps per token symbol to set (others unchanged), e.g. {"ETH":"1","USDT":"500"}',
        maxProperties: 16,
      }),
    ),
  },
  { additionalProperties: false },
);

export const TransferKeyView = Type.Object({
  networkId: Type.String(),
  accountAddress: Type.String(),
  signer: Type.Union([Type.String(), Type.Null()], {
    description: 'the key the account authorizes for capped transfers, or null',
  }),
  signerStatus: Type.Union(
    [Type.Literal('current'), Type.Literal('retired'), Type.Literal('none'), Type.Literal('unknown')],
    {
      description:
        "current: the service's current key for you; retired: a key a rotation replaced (still signs here until you rotate this account); none: revoked",
    },
  ),
  validUntil: Type.Union([DateTime, Type.Null()], {
    description: 'When the key stops signing for this account; null: no key, or a key without an expiry',
  }),
  expired: Type.Boolean(),
  caps: Type.Array(
    Type.Object({
      symbol: Type.String(),
      dailyCap: Type.String(),
      spentToday: Type.String(),
      remainingToday: Type.String(),
    }),
    {
      description:
        'per token, as the account counts it (per Korean day, from 00:00 KST): a cap of 0 means the key cannot send it',
    },
  ),
  capsResetAt: DateTime,
});
export const TransferKeyExecuteBody = DeployExecuteBody;
export const TransferKeyAccepted = Type.Object({
  opId: Type.String(),
  status: Type.String({ description: 'submitted' }),
});
export const TransferKeyOperationParams = Type.Object({ keyOpId: Type.String({ pattern: '^tkop_[0-9a-f-]{36}$' }) });
export const TransferKeyOperationStatus = Type.Object({
  opId: Type.String(),
  networkId: Type.String(),
  action: Type.String(),
  status: SignedOperationStatus,
  ...SignedOperationProgress,
  signer: Type.Union([Type.String(), Type.Null()]),
  txHash: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  updatedAt: DateTime,
});
