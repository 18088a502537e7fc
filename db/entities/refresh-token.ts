import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** Refresh tokens are stored as hashes, bound to the device, rotated on every use. */
export const RefreshTokenEntity = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_tokens',
  properties: (p) => ({
    id: p.string().primary().length(64),
    tokenHash: p.string().unique().length(64),
    userId: p.string().length(64).index(),
    deviceId: p.string().length(64),
    familyId: p.string().length(64).index(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type RefreshToken = InferEntity<typeof RefreshTokenEntity>;
