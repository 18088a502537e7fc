import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A device signed in to an account: the registering one, or one signed in later (a new phone). Its access and refresh
 * tokens name it; revoking it refuses them at once. `sessionId` changes at every sign-in, so tokens of a revoked
 * device never come back to life when the same device signs in again.
 */
export const DeviceEntity = defineEntity({
  name: 'Device',
  tableName: 'devices',
  uniques: [{ properties: ['userId', 'deviceId'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    userId: p.string().length(64),
    /** The app's X-Device-Id (a UUID it made at first launch). */
    deviceId: p.string().length(64),
    /** What the app calls the device ("Galaxy S25"): shown to the person, never put in events. */
    label: p.string().length(64).nullable(),
    sessionId: p.string().length(64),
    /** How it got its tokens: registration, or a sign-in proved by a passkey or by the ID card. */
    signInMethod: p.enum(['registration', 'passkey', 'id_card'] as const),
    /** Until then, risky actions from this device are refused unless approved by a passkey older than the sign-in. */
    holdUntil: p.datetime().nullable(),
    firstSeenAt: p.datetime().onCreate(() => clock.date()),
    signedInAt: p.datetime().onCreate(() => clock.date()),
    /** The last token issued to it (sign-in or refresh): at most an access token's lifetime behind its last request. */
    lastUsedAt: p.datetime().onCreate(() => clock.date()),
    revokedAt: p.datetime().nullable(),
  }),
});
export type Device = InferEntity<typeof DeviceEntity>;

/**
 * A sign-in on a new device, keyed by the signInId derived from the identity provider's passRequestId: the person
 * verified again, then proves it a second time (a passkey, or the ID card) before any token. A row with a `purpose`
 * is a step-up identity check of a signed-in device instead: it approves that one request, once, and no token.
 */
export const SignInEntity = defineEntity({
  name: 'SignIn',
  tableName: 'sign_ins',
  properties: (p) => ({
    signInId: p.string().primary().length(64),
    passRequestId: p.string().unique().length(128),
    userId: p.string().length(64).index(),
    deviceId: p.string().length(64).nullable(),
    deviceLabel: p.string().length(64).nullable(),
    passTokenHash: p.string().length(64).nullable(),
    passTokenExpiresAt: p.datetime().nullable(),
    status: p.enum(['in_progress', 'completed', 'failed', 'expired'] as const).default('in_progress'),
    /** The second proof that completed it; `identity` for a step-up the fresh verification alone approves. */
    method: p.enum(['passkey', 'id_card', 'identity'] as const).nullable(),
    /** The passkey that proved it (a sign-in with a passkey still in its new-passkey hold gives a held device). */
    passkeyId: p.string().length(64).nullable(),
    /** Tokens were issued for it (once: a sign-in is not a reusable credential). */
    tokensIssuedAt: p.datetime().nullable(),
    /** A step-up identity check: the request it approves (canonical JSON of {action, ...ids}); null for a sign-in. */
    purpose: p.text().nullable(),
    completedAt: p.datetime().nullable(),
    /** When the step-up it approved ran, and with which Idempotency-Key (a retry of that request may present it again). */
    usedAt: p.datetime().nullable(),
    usedIdempotencyKey: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type SignIn = InferEntity<typeof SignInEntity>;

/** The client-encrypted wallet backup of an account, every version kept (the service never holds its key). */
export const AccountBackupEntity = defineEntity({
  name: 'AccountBackup',
  tableName: 'account_backups',
  uniques: [{ properties: ['userId', 'version'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    userId: p.string().length(64),
    version: p.integer(),
    encryptedMnemonic: p.text(),
    encryptedDerivationPaths: p.text(),
    encryptionMethod: p.string().length(64),
    /** The device that stored it (null: the registration's). */
    deviceId: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type AccountBackup = InferEntity<typeof AccountBackupEntity>;
