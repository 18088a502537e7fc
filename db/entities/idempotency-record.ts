import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A request seen under an Idempotency-Key, scoped to its caller, with the response to replay. */
export const IdempotencyRecordEntity = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  uniques: [{ properties: ['scope', 'key'] }],
  properties: (p) => ({
    id: p.integer().primary().autoincrement(),
    scope: p.string().length(128),
    key: p.string().length(64),
    fingerprint: p.string().length(64),
    state: p.enum(['in_progress', 'completed'] as const),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    responseHeaders: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    expiresAt: p.datetime().index(),
  }),
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecordEntity>;
