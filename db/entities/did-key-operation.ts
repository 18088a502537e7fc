import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** Adding a key to the user's did:ethr document: a user operation of the account calling EthereumDIDRegistry. */
export const DidKeyOperationEntity = defineEntity({
  name: 'DidKeyOperation',
  tableName: 'did_key_operations',
  properties: (p) => ({
    opId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    did: p.string().length(128),
    keyType: p.string().length(64),
    publicKey: p.string().length(140),
    userOperation: p.json<Record<string, string>>(),
    userOpHash: p.string().length(66),
    status: p.enum(['prepared', 'submitted', 'completed', 'failed'] as const),
    txHash: p.string().length(66).nullable(),
    error: p.text().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type DidKeyOperation = InferEntity<typeof DidKeyOperationEntity>;
