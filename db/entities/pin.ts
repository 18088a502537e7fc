import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** The user's transaction PIN: a keyed hash (api/pin/service.ts hashPin), with failed attempts, a lockout, and the locks in a row. */
export const UserPinEntity = defineEntity({
  name: 'UserPin',
  tableName: 'user_pins',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    pinHash: p.string().length(255),
    failedAttempts: p.integer().default(0),
    lockedUntil: p.datetime().nullable(),
    /** Locks in a row with no right PIN in between; at PIN_MAX_LOCKS the PIN stays locked until a reset. */
    locks: p.integer().default(0),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type UserPin = InferEntity<typeof UserPinEntity>;

/**
 * An encrypted PIN that approved a request: its `jti` (keyed hash) is usable once. The same request retried with the
 * same Idempotency-Key may present it again; anything else is refused. Rows are useless after `expiresAt`.
 */
export const PinApprovalEntity = defineEntity({
  name: 'PinApproval',
  tableName: 'pin_approvals',
  properties: (p) => ({
    jtiHash: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    idempotencyKey: p.string().length(64).nullable(),
    expiresAt: p.datetime().index(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type PinApproval = InferEntity<typeof PinApprovalEntity>;
