import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * One identity verification in the identity provider's window (IDENTITY_PROVIDER=nice): what reading its result needs
 * (the crypto token's seed, sealed) until the person's browser comes back; the app's PKCE challenge; the one-time
 * code the return gave that browser; and the pass token the service issued for the code (keyed hashes), which the app
 * then carries (sealed too, for a retry of the exchange). Its id is the request number the provider echoes in the result and the passRequestId of the
 * registration or sign-in.
 */
export const IdentityRequestEntity = defineEntity({
  name: 'IdentityRequest',
  tableName: 'identity_requests',
  properties: (p) => ({
    id: p.string().primary().length(30),
    provider: p.string().length(16),
    tokenVersionId: p.string().length(128).unique(),
    /** JSON {reqDtim, reqNo, tokenVal, siteCode}, sealed with the id as associated data. */
    seedSealed: p.text(),
    /** base64url(SHA-256(code verifier)), sent by the app that opened the verification (PKCE, S256). */
    codeChallenge: p.string().length(64),
    /** The code the browser's return answered (a keyed hash), until it is exchanged once for the pass token. */
    codeHash: p.string().length(64).nullable(),
    passTokenHash: p.string().length(64).nullable().unique(),
    /** The pass token, sealed: a retry of the exchange (same code and verifier) is answered the same token. */
    passTokenSealed: p.text().nullable(),
    expiresAt: p.datetime(),
    /** When the browser brought back a result that opened (the first is the one delivered). */
    returnedAt: p.datetime().nullable(),
    resultCode: p.string().length(8).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type IdentityRequest = InferEntity<typeof IdentityRequestEntity>;
