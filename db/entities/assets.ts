import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** Something of value the user registers by hand (gold, cash, ...), valued in KRW. */
export const OtherAssetEntity = defineEntity({
  name: 'OtherAsset',
  tableName: 'other_assets',
  properties: (p) => ({
    assetId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    name: p.string().length(100),
    category: p.string().length(32),
    /** KRW, whole won. */
    value: p.bigint('number'),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type OtherAsset = InferEntity<typeof OtherAssetEntity>;

/** An OAuth authorization in progress with the exchange (state and PKCE verifier), used once. */
export const CexAuthorizationEntity = defineEntity({
  name: 'CexAuthorization',
  tableName: 'cex_authorizations',
  properties: (p) => ({
    state: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    provider: p.string().length(32),
    label: p.string().length(64),
    redirectUri: p.string().length(512),
    codeVerifierSealed: p.text(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  }),
});
export type CexAuthorization = InferEntity<typeof CexAuthorizationEntity>;

/**
 * An exchange account: connected with the person's API key pair (`api_key`: Upbit, Bithumb) or, deprecated, by OAuth
 * (`oauth2`). No key or token is kept: they are used once, to check them and read the balances (`lastSyncAt`).
 */
export const CexAccountEntity = defineEntity({
  name: 'CexAccount',
  tableName: 'cex_accounts',
  uniques: [{ properties: ['userId', 'provider', 'externalAccountId'] }],
  properties: (p) => ({
    cexAccountId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    provider: p.string().length(32),
    label: p.string().length(64),
    externalAccountId: p.string().length(128),
    authMethod: p.enum(['oauth2', 'api_key'] as const).default('oauth2'),
    canRead: p.boolean(),
    canWithdraw: p.boolean(),
    balances: p.json<{ currency: string; balance: string }[]>(),
    lastSyncAt: p.datetime().nullable(),
    registeredAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type CexAccount = InferEntity<typeof CexAccountEntity>;
