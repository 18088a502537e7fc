import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** The user's transaction PIN: a slow hash (scrypt), with failed attempts and a lockout. */
export const UserPinEntity = defineEntity({
  name: 'UserPin',
  tableName: 'user_pins',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    pinHash: p.string().length(255),
    failedAttempts: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  }),
});
export type UserPin = InferEntity<typeof UserPinEntity>;
