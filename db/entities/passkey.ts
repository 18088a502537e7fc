import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A WebAuthn credential (passkey) a user registered; it approves chain operations as a second factor. */
export const PasskeyEntity = defineEntity({
  name: 'Passkey',
  tableName: 'passkeys',
  properties: (p) => ({
    passkeyId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    /** base64url credential id as the authenticator reports it (up to 1023 bytes). */
    credentialId: p.string().length(1400).unique(),
    /** COSE public key, base64url. */
    publicKey: p.text(),
    signCount: p.bigint('number'),
    transports: p.json<string[]>(),
    deviceType: p.string().length(16),
    backedUp: p.boolean(),
    name: p.string().length(64),
    createdAt: p.datetime().onCreate(() => clock.date()),
    lastUsedAt: p.datetime().nullable(),
  }),
});
export type Passkey = InferEntity<typeof PasskeyEntity>;

/**
 * A one-time WebAuthn challenge: of a passkey registration (answered with the creation options, consumed by the
 * registration; no purpose), or of a passkey approval of one request (`purpose`: the request it approves, as JSON).
 */
export const WebauthnChallengeEntity = defineEntity({
  name: 'WebauthnChallenge',
  tableName: 'webauthn_challenges',
  properties: (p) => ({
    challengeId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    challenge: p.string().length(128),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    purpose: p.string().length(512).nullable(),
  }),
});
export type WebauthnChallenge = InferEntity<typeof WebauthnChallengeEntity>;
