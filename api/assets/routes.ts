import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { CexAccountEntity, CexAuthorizationEntity, OtherAssetEntity, UserEntity, type CexAccount } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { PROVIDER_REJECTED } from '../../integrations/provider-http';
import { priceStatistics, WINDOWS, type PriceFeedClient } from '../../integrations/prices';
import type { SecuritiesClient } from '../../integrations/securities';
import { CexClient } from '../../integrations/cex';
import { formatMoney } from '../../platform/money';
import { MarketQuery, MarketPrice, OtherAssetBody, OtherAssetView, OtherAssetList, SecuritiesBody, SecuritiesResult, CexAuthorizeBody, CexAuthorization, CexConnectBody, CexAccountView, CexAccountList, CexAccountParams, OtherAssetParams } from './schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';

export interface AssetRouteDeps {
  orm: Orm; encryption: DataEncryption; prices: PriceFeedClient; securities: SecuritiesClient; cex: CexClient;
  cexProvider: string; cexRedirectUris: string[];
}

const AUTHORIZATION_TTL_MS = 10 * 60 * 1000;
const isRejection = (error: unknown) => error instanceof ApplicationFailure && error.type === PROVIDER_REJECTED;
const mask = (no: string) => (no.length <= 4 ? '****' : `${'*'.repeat(no.length - 4)}${no.slice(-4)}`);

const cexView = (a: CexAccount) => ({
  cexAccountId: a.cexAccountId, provider: a.provider, label: a.label, authMethod: 'oauth2',
  permissions: { read: a.canRead, withdraw: a.canWithdraw }, lastSyncAt: a.lastSyncAt?.toISOString() ?? null, registeredAt: a.registeredAt.toISOString(),
});

export function assetRoutes(deps: AssetRouteDeps): RouteSpec[] {
  const { orm, encryption } = deps;
  return [
    defineRoute({
      method: 'get', path: '/api/v1/market-price', operationId: 'marketPrice', tags: ['Assets'], auth: 'bearer',
      summary: 'Market price statistics in KRW over a window of hourly prices ending at the last full hour',
      query: MarketQuery,
      responses: { 200: { description: 'Price data', schema: MarketPrice }, 422: { description: 'Unknown asset' } },
      handler: async ({ query }) => {
        const window = query.window ?? '24h';
        const toHour = Math.floor(Date.now() / 3_600_000);
        try {
          const points = await deps.prices.hourly(query.asset, toHour - WINDOWS[window], toHour);
          return { status: 200, body: { asset: query.asset, currency: 'KRW', window, ...priceStatistics(points) } };
        } catch (error) {
          if (isRejection(error)) throw problems.unprocessable('unknown-asset', `No market prices for ${query.asset}`);
          throw error;
        }
      },
    }),

    defineRoute({
      method: 'get', path: '/api/v1/other-assets', operationId: 'listOtherAssets', tags: ['Assets'], auth: 'bearer',
      summary: 'Registered other assets with their total value (KRW)',
      responses: { 200: { description: 'Other assets', schema: OtherAssetList } },
      handler: async ({ user }) => {
        const assets = await orm.em.fork().find(OtherAssetEntity, { userId: user!.userId }, { orderBy: { createdAt: 'asc' } });
        return {
          status: 200,
          body: {
            totalValue: assets.reduce((sum, a) => sum + a.value, 0),
            assets: assets.map((a) => ({ assetId: a.assetId, name: a.name, category: a.category, value: a.value })),
          },
        };
      },
    }),
    defineRoute({
      method: 'post', path: '/api/v1/other-assets', operationId: 'addOtherAsset', tags: ['Assets'], auth: 'bearer',
      summary: 'Register an asset held outside the service (gold, cash, ...)',
      body: OtherAssetBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: { 201: { description: 'Registered', schema: OtherAssetView } },
      handler: async ({ body, user }) => {
        const em = orm.em.fork();
        const asset = em.create(OtherAssetEntity, { assetId: `oa_${randomUUID()}`, userId: user!.userId, ...body });
        await em.flush();
        return { status: 201, body: { assetId: asset.assetId, name: asset.name, category: asset.category, value: asset.value } };
      },
    }),
    defineRoute({
      method: 'delete', path: '/api/v1/other-assets/:assetId', operationId: 'removeOtherAsset', tags: ['Assets'], auth: 'bearer',
      summary: 'Remove a registered asset',
      params: OtherAssetParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such asset for this user' } },
      handler: async ({ params, user }) => {
        const removed = await orm.em.fork().nativeDelete(OtherAssetEntity, { assetId: params.assetId, userId: user!.userId });
        if (!removed) throw problems.notFound(`Asset ${params.assetId}`);
        return { status: 204 };
      },
    }),

    defineRoute({
      method: 'post', path: '/api/v1/securities/verify', operationId: 'verifySecurities', tags: ['Assets'], auth: 'bearer',
      summary: "Verify a securities account (its trading PIN, or an auth code from the firm's app) and list the user's accounts there",
      body: SecuritiesBody,
      // Guessing a trading PIN here is as worth stopping as guessing ours.
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user!.userId }],
      responses: { 429: { description: 'Too many requests (Retry-After)' }, 200: { description: 'Verification result', schema: SecuritiesResult } },
      handler: async ({ body, user }) => {
        const found = await orm.em.fork().findOneOrFail(UserEntity, { id: user!.userId });
        const holder = encryption.openText(found.nameSealed, found.id);
        const proof = body.method === 'pin'
          ? { method: 'pin' as const, accountNo: body.account_no.replace(/-/g, ''), pin: body.pin }
          : { method: 'auth_code' as const, authCode: body.auth_code };
        try {
          const holdings = await deps.securities.verify({ firmCode: body.firm_code, holder, ...proof });
          return {
            status: 200,
            body: {
              verified: true, firm_name: holdings.firmName,
              accounts: holdings.accounts.map((a) => ({ no: mask(a.accountNo), balance: formatMoney(BigInt(a.balance), 0, 'KRW') })),
            },
          };
        } catch (error) {
          if (isRejection(error)) return { status: 200, body: { verified: false, firm_name: null, accounts: [] } };
          throw error;
        }
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/asset/cex-accounts/authorize', operationId: 'authorizeCexAccount', tags: ['Assets'], auth: 'bearer',
      summary: 'Start connecting an exchange account (OAuth 2.0 authorization code with PKCE): open authorizationUrl',
      body: CexAuthorizeBody,
      responses: { 200: { description: 'Where to send the user', schema: CexAuthorization }, 422: { description: 'Redirect URI not registered' } },
      handler: async ({ body, user }) => {
        if (!deps.cexRedirectUris.includes(body.redirectUri)) {
          throw problems.unprocessable('redirect-uri-not-registered', `redirectUri must be one of: ${deps.cexRedirectUris.join(', ')}`);
        }
        const state = randomUUID().replace(/-/g, '');
        const { verifier, challenge } = CexClient.pkce();
        const expiresAt = new Date(Date.now() + AUTHORIZATION_TTL_MS);
        const em = orm.em.fork();
        em.create(CexAuthorizationEntity, {
          state, userId: user!.userId, provider: deps.cexProvider, label: body.label ?? deps.cexProvider, redirectUri: body.redirectUri,
          codeVerifierSealed: encryption.sealText(verifier, state), expiresAt,
        });
        await em.flush();
        const authorizationUrl = deps.cex.authorizationUrl({ state, redirectUri: body.redirectUri, scopes: body.scopes ?? ['read'], codeChallenge: challenge, loginHint: body.loginHint });
        return { status: 200, body: { authorizationUrl, state, expiresAt: expiresAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'post', path: '/v1/asset/cex-accounts', operationId: 'connectCexAccount', tags: ['Assets'], auth: 'bearer',
      summary: 'Finish connecting: the code and state the exchange redirected with; balances are synced once',
      body: CexConnectBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        201: { description: 'Connected', schema: CexAccountView }, 404: { description: 'Unknown state' },
        409: { description: 'State already used, or the account is already connected' }, 410: { description: 'Authorization expired' },
        422: { description: 'The exchange refused the code' },
      },
      handler: async ({ body, user }) => {
        const em = orm.em.fork();
        const authorization = await em.findOne(CexAuthorizationEntity, { state: body.state, userId: user!.userId });
        if (!authorization) throw problems.notFound('Authorization');
        if (authorization.expiresAt.getTime() < Date.now()) throw problems.gone('authorization-expired', 'The authorization expired; start again');
        const claimed = await em.nativeUpdate(CexAuthorizationEntity, { state: body.state, usedAt: null }, { usedAt: new Date() });
        if (claimed !== 1) throw problems.conflict('authorization-used', 'This authorization was already used');
        const tokens = await deps.cex.exchangeCode({ code: body.code, redirectUri: authorization.redirectUri, codeVerifier: encryption.openText(authorization.codeVerifierSealed, body.state) });
        const profile = await deps.cex.profile(tokens.access_token);
        const balances = profile.permissions.read ? await deps.cex.balances(tokens.access_token) : [];
        const cexAccountId = `cex_${randomUUID()}`;
        try {
          const account = await orm.em.fork().transactional(async (tx) => tx.create(CexAccountEntity, {
            cexAccountId, userId: user!.userId, provider: authorization.provider, label: authorization.label, externalAccountId: profile.accountId,
            tokensSealed: encryption.sealText(JSON.stringify(tokens), cexAccountId), canRead: profile.permissions.read,
            canWithdraw: profile.permissions.withdraw, balances, lastSyncAt: profile.permissions.read ? new Date() : null,
          }));
          return { status: 201, body: cexView(account), headers: { location: `/v1/asset/cex-accounts/${cexAccountId}` } };
        } catch (error) {
          if (error instanceof UniqueConstraintViolationException) throw problems.conflict('cex-account-already-connected', 'This exchange account is already connected');
          throw error;
        }
      },
    }),
    defineRoute({
      method: 'get', path: '/v1/asset/cex-accounts', operationId: 'listCexAccounts', tags: ['Assets'], auth: 'bearer',
      summary: 'Connected exchange accounts',
      responses: { 200: { description: 'Accounts', schema: CexAccountList } },
      handler: async ({ user }) => ({
        status: 200,
        body: { items: (await orm.em.fork().find(CexAccountEntity, { userId: user!.userId }, { orderBy: { registeredAt: 'asc' } })).map(cexView) },
      }),
    }),
    defineRoute({
      method: 'get', path: '/v1/asset/cex-accounts/:cexAccountId', operationId: 'getCexAccount', tags: ['Assets'], auth: 'bearer',
      summary: 'One connected exchange account',
      params: CexAccountParams,
      responses: { 200: { description: 'CEX account', schema: CexAccountView }, 404: { description: 'No such account for this user' } },
      handler: async ({ params, user }) => {
        const account = await orm.em.fork().findOne(CexAccountEntity, { cexAccountId: params.cexAccountId, userId: user!.userId });
        if (!account) throw problems.notFound(`CEX account ${params.cexAccountId}`);
        return { status: 200, body: cexView(account) };
      },
    }),
  ];
}
