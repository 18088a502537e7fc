import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * One smart-account deployment: the user operation prepared for signing (slot id = jobId), then signed and
 * submitted by the deploy workflow. The transaction hash is recorded as soon as it is known.
 */
export const DeployJobEntity = defineEntity({
  name: 'DeployJob',
  tableName: 'deploy_jobs',
  properties: (p) => ({
    jobId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    networkId: p.string().length(32),
    accountAddress: p.string().length(42),
    ownerAddress: p.string().length(42),
    /** The user operation (bigints as decimal strings); its signature field is set at execute. */
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
export type DeployJob = InferEntity<typeof DeployJobEntity>;
