import { problems } from './http/problems';
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm';
import type { ApiConfig } from '../platform/config';
import type { DataEncryption } from '../platform/data-encryption';
import type { Logger } from '../platform/logger';
import type { IdentityProviderClient } from '../integrations/identity';
import { requestContext } from './http/request-context';
import { errorHandler } from './http/error-handler';
import { Authenticator } from './http/authenticate';
import { IdempotencyStore } from './http/idempotency';
import { buildRouter } from './http/router';
import { buildOpenApi } from './http/openapi';
import type { TokenService } from './auth/tokens';
import type { RouteSpec } from './http/route-table';
import { registrationRoutes } from './registration/routes';
import { authRoutes } from './auth/routes';
import { accountRoutes } from './account/routes';
import { systemRoutes } from './system/routes';
import { walletRoutes } from './wallet/routes';
import { keyRotationRoutes } from './key-rotation/routes';
import { didRoutes } from './did/routes';
import { passkeyRoutes } from './passkeys/routes';
import { credentialRoutes } from './credentials/routes';
import { bankRoutes } from './bank/routes';
import { transactionRoutes } from './transactions/routes';
import { exchangeRoutes } from './exchange/routes';
import { assetRoutes } from './assets/routes';
import { PriceFeedClient } from '../integrations/prices';
import { SecuritiesClient } from '../integrations/securities';
import { CexClient } from '../integrations/cex';
import { QuoteEngine } from './exchange/quote';
import type { BankClient } from '../integrations/bank';
import type { PinService } from './pin/service';
import { pinRoutes } from './pin/routes';
import { transferRoutes } from './transfer/routes';
import { SolanaWallets, TransferKeys } from '../integrations/custody/key-vault';
import { SolanaChains } from '../integrations/solana';
import { Holdings } from './common/holdings';
import { networkWalletRoutes } from './wallet/network-wallet-routes';
import { RateLimits } from './http/rate-limits';
import cors from '@koa/cors';
import { EnvelopeEncryption } from '../platform/envelope';
import { Passkeys } from './passkeys/service';
import { CredentialIssuer } from '../integrations/credentials/issuer';
import type { NetworkRegistry } from '../platform/networks';
import type { ChainProviders } from '../integrations/evm/smart-account';

export interface AppDeps {
  config: ApiConfig;
  orm: Orm;
  temporal: Client;
  identity: IdentityProviderClient;
  encryption: DataEncryption;
  tokens: TokenService;
  logger: Logger;
  networks: NetworkRegistry;
  providers: ChainProviders;
  bank: BankClient;
  pins: PinService;
}

export interface App { koa: Koa; routes: RouteSpec[]; idempotency: IdempotencyStore; rateLimits: RateLimits }

const securityHeaders = () => async (ctx: Koa.Context, next: Koa.Next): Promise<void> => {
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set('x-frame-options', 'DENY');
  ctx.set('referrer-policy', 'no-referrer');
  ctx.set('cache-control', 'no-store');
  await next();
};

/**
 * OPTIONS and methods a path does not have (TRACE, PATCH, …): `Allow` lists the methods of the routes whose path
 * parameters the path actually satisfies (so /charge/execute does not offer the GET of /charge/{chargeId}), and a
 * missing method answers 405 as a problem like every other error.
 */
const methodNotAllowed = (allowFor: (path: string) => string[]) => async (ctx: Koa.Context, next: Koa.Next): Promise<void> => {
  await next();
  const fromRouter = ctx.method === 'OPTIONS' ? ctx.status === 200 && ctx.response.get('allow') !== '' : (ctx.status === 501 || ctx.status === 405) && ctx.body === undefined;
  if (!fromRouter) return;
  const allow = allowFor(ctx.path);
  if (!allow.length) throw problems.notFound(`${ctx.path}`);
  if (ctx.method === 'OPTIONS') { ctx.set('allow', allow.join(', ')); return; }
  throw problems.methodNotAllowed(ctx.method, allow);
};

/** The Koa application, built only from the dependencies it is given. */
export function createApp(deps: AppDeps): App {
  const { config, orm, temporal, encryption, tokens } = deps;
  const idempotency = new IdempotencyStore(orm, config.IDEMPOTENCY_RETENTION_SECONDS, config.IDEMPOTENCY_LOCK_SECONDS);
  const rateLimits = RateLimits.create(config.DATABASE_URL, config.RATE_LIMITS);
  const passkeys = new Passkeys(orm, {
    rpId: config.WEBAUTHN_RP_ID, rpName: config.WEBAUTHN_RP_NAME, origins: config.WEBAUTHN_ORIGINS.split(','), challengeTtlSeconds: 300,
  });
  const issuer = new CredentialIssuer(config.VC_ISSUER_KEY, config.VC_ISSUER_NAME);
  const keyEnvelope = new EnvelopeEncryption(config.KEY_ENCRYPTION_KEY);
  const transferKeys = new TransferKeys(orm, keyEnvelope);
  const solanaWallets = new SolanaWallets(orm, keyEnvelope);
  const solanaChains = new SolanaChains();
  const holdings = new Holdings({ orm, networks: deps.networks, providers: deps.providers, solanaChains, solanaWallets });
  const routes: RouteSpec[] = [];
  let openApi: unknown;
  routes.push(
    ...systemRoutes({ orm, temporal, tokens, openApi: () => (openApi ??= buildOpenApi(routes, { version: '1.0.0', serverUrl: config.PUBLIC_BASE_URL })) }),
    ...registrationRoutes({
      orm, temporal, encryption, identity: deps.identity, taskQueue: config.TEMPORAL_TASK_QUEUE,
      registrationTtlSeconds: config.REGISTRATION_TTL_SECONDS, passResultWaitSeconds: config.PASS_RESULT_WAIT_SECONDS,
      uploadMaxBytes: config.UPLOAD_MAX_BYTES,
    }),
    ...authRoutes({ orm, encryption, tokens }),
    ...accountRoutes({ orm, encryption, passkeys, issuer, credentialValiditySeconds: config.VC_VALIDITY_SECONDS }),
    ...passkeyRoutes({ orm, encryption, passkeys }),
    ...walletRoutes({
      orm, temporal, networks: deps.networks, providers: deps.providers, taskQueue: config.TEMPORAL_TASK_QUEUE,
      prepareTtlSeconds: config.DEPLOY_PREPARE_TTL_SECONDS, passkeys, transferKeys,
    }),
    ...keyRotationRoutes({
      orm, temporal, networks: deps.networks, providers: deps.providers, taskQueue: config.TEMPORAL_TASK_QUEUE,
      prepareTtlSeconds: config.DEPLOY_PREPARE_TTL_SECONDS, retryWindowSeconds: config.KEY_ROTATION_RETRY_WINDOW_SECONDS,
      passkeys,
    }),
    ...didRoutes({
      orm, temporal, networks: deps.networks, providers: deps.providers, taskQueue: config.TEMPORAL_TASK_QUEUE,
      didNetworkId: config.DID_NETWORK_ID, keyValiditySeconds: config.DID_KEY_VALIDITY_SECONDS, prepareTtlSeconds: config.DEPLOY_PREPARE_TTL_SECONDS,
      passkeys,
    }),
    ...credentialRoutes({ orm, encryption }),
    ...bankRoutes({
      orm, temporal, encryption, bank: deps.bank, taskQueue: config.TEMPORAL_TASK_QUEUE, webhookSecret: config.BANK_WEBHOOK_SECRET,
      verificationTtlSeconds: config.BANK_VERIFICATION_TTL_SECONDS, verificationMaxAttempts: config.BANK_VERIFICATION_MAX_ATTEMPTS,
      chargeMaxAmountKrw: config.CHARGE_MAX_AMOUNT_KRW,
    }),
    ...transactionRoutes({ orm }),
    ...pinRoutes({ pins: deps.pins }),
    ...transferRoutes({
      orm, temporal, networks: deps.networks, providers: deps.providers, pins: deps.pins, transferKeys, solanaWallets, solanaChains,
      taskQueue: config.TEMPORAL_TASK_QUEUE, waitSeconds: config.TRANSFER_WAIT_SECONDS,
    }),
    ...assetRoutes({
      orm, encryption,
      prices: new PriceFeedClient({ baseUrl: config.PRICE_FEED_URL, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
      securities: new SecuritiesClient({ baseUrl: config.SECURITIES_API_URL, clientSecret: config.SECURITIES_CLIENT_SECRET, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
      cex: new CexClient({ baseUrl: config.CEX_API_URL, clientId: config.CEX_CLIENT_ID, clientSecret: config.CEX_CLIENT_SECRET, timeoutMs: config.PROVIDER_TIMEOUT_MS }),
      cexProvider: config.CEX_PROVIDER, cexRedirectUris: config.CEX_REDIRECT_URIS.split(',').map((u) => u.trim()),
    }),
    ...networkWalletRoutes({ networks: deps.networks, holdings, solanaWallets }),
    ...exchangeRoutes({
      holdings,
      engine: QuoteEngine.fromJson(config.EXCHANGE_POOLS, {
        slippageBps: config.QUOTE_SLIPPAGE_BPS, priceImpactWarningPpm: config.QUOTE_PRICE_IMPACT_WARNING_BPS * 100,
        dailyLimits: JSON.parse(config.EXCHANGE_DAILY_LIMITS) as Record<string, string>,
      }),
    }),
  );
  const router = buildRouter(routes, {
    authenticator: new Authenticator(tokens, config.PASS_CALLBACK_API_KEY), idempotency, rateLimits, jsonBodyMaxBytes: config.JSON_BODY_MAX_BYTES,
  });
  // Behind a reverse proxy (TRUST_PROXY), the client address comes from X-Forwarded-For; rate limits key on it.
  const koa = new Koa({ proxy: config.TRUST_PROXY });
  koa.use(requestContext(orm, deps.logger));
  koa.use(errorHandler());
  koa.use(securityHeaders());
  const corsOrigins = new Set(config.CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean));
  if (corsOrigins.size) {
    // Only configured browser origins get CORS headers; without CORS_ORIGINS no cross-origin browser call is allowed.
    koa.use(cors({
      origin: (ctx) => (corsOrigins.has(ctx.get('origin')) ? ctx.get('origin') : ''),
      allowHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-device-id', 'x-pass-token'],
      exposeHeaders: ['location', 'retry-after', 'x-request-id', 'idempotent-replayed'], maxAge: 600,
    }));
  }
  koa.use(methodNotAllowed(router.allowFor));
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return { koa, routes, idempotency, rateLimits };
}
