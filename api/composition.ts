/**
 * The API process's composition root: every real client, and every service on them (api/services.ts), built once
 * from the validated configuration. api/main.ts uses it; so do tests that run the real API in-process. Settings given as JSON (NETWORKS,
 * RATE_LIMITS, keys) are parsed here, so a bad one stops the process at start.
 */
import type { Client } from '@temporalio/client';
import type { BlockList } from 'node:net';
import { ConfigError, parseJsonSettings, type ApiConfig } from '../platform/config';
import type { Logger } from '../platform/logger';
import { DataEncryption } from '../platform/data-encryption';
import { NetworkRegistry } from '../platform/networks';
import { createTemporalClient } from '../platform/temporal';
import type { Orm } from '../db/orm';
import { IdentityProviderClient, type PassTokens } from '../integrations/identity';
import { NiceIdentityClient } from '../integrations/identity-nice';
import { NiceIdentityWindows } from './registration/identity-windows';
import { providerTransport, type ProviderTransport } from '../platform/provider-settings';
import { bankRailFrom, exchangesFrom, marketDataFrom, securitiesBrokerFrom } from '../integrations/providers';
import { storedBankTranIds } from '../db/bank-tran-ids';
import { PriceFeedClient } from '../integrations/prices/feed';
import { sanctionsScreeningFrom } from '../integrations/sanctions';
import { codeVaspsFromJson, counterpartsFromJson } from '../integrations/travel-rule/counterparts';
import { codeBoxKey } from '../integrations/travel-rule/code/crypto';
import { codeAllowList } from './http/code-listener';
import { storedSanctionsList } from '../db/compliance';
import { storedPriceReferences } from '../db/price-references';
import { CexClient } from '../integrations/cex';
import { ChainProviders } from '../integrations/evm/smart-account';
import { SolanaChains } from '../integrations/solana';
import { TokenService } from './auth/tokens';
import { SecurityNotices } from './common/security-notices';
import { PinService } from './pin/service';
import { QuoteEngine } from './exchange/quote';
import { venuesOf } from './exchange/venues';
import { SwapLimits } from './exchange/swap-limits';
import { JupiterSwapApi } from '../integrations/dex/jupiter';
import { RateLimits, parseOverrides } from './http/rate-limits';
import { ApiMetrics } from './http/metrics';
import { createMetricsRegistry } from '../platform/metrics';
import type { AppDeps } from './deps';
import { buildServices, type Services } from './services';
import { Operators } from './operators/operators';
import { SessionCache } from './common/session-cache';

export type ApiDeps = AppDeps & { services: Services; close(): Promise<void> };

export async function composeApi(config: ApiConfig, orm: Orm, logger: Logger, temporal?: Client): Promise<ApiDeps> {
  const providerHttp = { timeoutMs: config.PROVIDER_TIMEOUT_MS };
  const encryption = new DataEncryption(config.DATA_ENCRYPTION_KEY);
  const settings = parseJsonSettings({
    networks: () => NetworkRegistry.fromJson(config.NETWORKS),
    transferSignerCaps: () => parseTokenAmounts('TRANSFER_SIGNER_DAILY_CAPS', config.TRANSFER_SIGNER_DAILY_CAPS),
    rateLimits: () => parseOverrides(config.RATE_LIMITS),
    operators: () => Operators.fromJson(config.OPERATOR_TOKENS),
    counterparts: () => {
      const counterparts = counterpartsFromJson(config.TRAVEL_RULE_COUNTERPARTS);
      // Our Travel Address and the callbacks we give name this origin once other VASPs can reach us: a default of
      // localhost would send every counterpart's answer to its own machine.
      if (config.NODE_ENV === 'production' && config.TRAVEL_RULE_PORT !== undefined && !config.TRAVEL_RULE_PUBLIC_URL)
        throw new Error('TRAVEL_RULE_PUBLIC_URL is required in production with TRAVEL_RULE_PORT');
      return counterparts;
    },
    bank: () => bankRailFrom(config, { tranIds: storedBankTranIds(orm) }),
    securities: () => securitiesBrokerFrom(config),
    codeVasps: () => codeVaspsFromJson(config.TRAVEL_RULE_CODE_VASPS),
    marketData: () => marketDataFrom(config),
    exchanges: () => exchangesFrom(config),
  });
  const { networks } = settings;
  const rateLimits = RateLimits.create(config.DATABASE_URL, settings.rateLimits);
  const metrics = new ApiMetrics(createMetricsRegistry('api'));
  rateLimits.onRefused = (rule) => metrics.rateLimited(rule);
  const tokens = await TokenService.create({
    privateJwk: config.JWT_PRIVATE_JWK,
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    accessTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
    refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
  });
  const temporalClient =
    temporal ??
    (await createTemporalClient(
      { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue: config.TEMPORAL_TASK_QUEUE },
      encryption,
    ));
  const notices = new SecurityNotices({ temporal: temporalClient, taskQueue: config.TEMPORAL_TASK_QUEUE, logger });
  const pins = await PinService.create(
    orm,
    config.PIN_ENCRYPTION_JWK,
    { maxAttempts: config.PIN_MAX_ATTEMPTS, lockSeconds: config.PIN_LOCK_SECONDS, maxLocks: config.PIN_MAX_LOCKS },
    encryption,
    notices,
  );
  const providers = new ChainProviders(config.CHAIN_RPC_TIMEOUT_MS);
  const solanaChains = new SolanaChains(config.CHAIN_RPC_TIMEOUT_MS);
  const prices = new PriceFeedClient({
    source: settings.marketData,
    checks: { maxAgeSeconds: config.PRICE_MAX_AGE_SECONDS, bandPercent: config.PRICE_BAND_PERCENT },
    references: storedPriceReferences(orm),
  });
  const swapLimits = new SwapLimits({ orm, prices, dailyKrw: config.SWAP_DAILY_LIMIT_KRW });
  const quotes = new QuoteEngine(
    venuesOf({
      networks,
      providers,
      solanaChains,
      blockCacheMs: config.QUOTE_BLOCK_CACHE_MS,
      slippageBps: config.QUOTE_SLIPPAGE_BPS,
      jupiter: config.JUPITER_API_KEY
        ? new JupiterSwapApi({ baseUrl: config.JUPITER_API_URL, apiKey: config.JUPITER_API_KEY, ...providerHttp })
        : undefined,
    }),
    {
      slippageBps: config.QUOTE_SLIPPAGE_BPS,
      priceImpactWarningPpm: config.QUOTE_PRICE_IMPACT_WARNING_BPS * 100,
      ttlSeconds: config.QUOTE_TTL_SECONDS,
    },
    encryption,
    swapLimits,
  );
  const codeIdentity = await codeIdentityFrom(config);
  const sessions = await SessionCache.start(config.DATABASE_URL, {
    listenUrl: config.DATABASE_LISTEN_URL,
    heartbeatSeconds: config.SESSION_CACHE_HEARTBEAT_SECONDS,
    maxAgeSeconds: config.SESSION_CACHE_MAX_AGE_SECONDS,
    logger,
  });
  sessions.onLookup = (result) => metrics.sessionLookup(result);
  const clients: AppDeps = {
    config,
    orm,
    logger,
    encryption,
    networks,
    tokens,
    pins,
    notices,
    quotes,
    swapLimits,
    rateLimits,
    providers,
    metrics,
    temporal: temporalClient,
    transferSignerCaps: settings.transferSignerCaps,
    operators: settings.operators,
    sessions,
    travelRuleCounterparts: settings.counterparts,
    codeVasps: settings.codeVasps,
    codeIdentity,
    ...identityProvider(config, orm, encryption, providerTransport(config, 'IDENTITY_PROVIDER')),
    bank: settings.bank,
    prices,
    securities: settings.securities,
    exchanges: settings.exchanges,
    cex: new CexClient({
      baseUrl: config.CEX_API_URL,
      clientId: config.CEX_CLIENT_ID,
      clientSecret: config.CEX_CLIENT_SECRET,
      ...providerHttp,
    }),
    solanaChains,
    sanctions: sanctionsScreeningFrom(config, storedSanctionsList(orm)),
  };
  return {
    ...clients,
    services: buildServices(clients),
    async close() {
      if (!temporal) await temporalClient.connection.close();
      await rateLimits.stop();
      await sessions.stop();
      providers.destroy();
    },
  };
}

/**
 * Our identity on CODE's Response API listener (TRAVEL_RULE_CODE_PORT): entity id, legal name, the box half of our
 * key pair (the listener opens and seals payloads; the signing half is the worker's, which sends requests) and the
 * addresses of CODE it answers. Undefined when the listener is off.
 */
async function codeIdentityFrom(config: ApiConfig): Promise<AppDeps['codeIdentity']> {
  if (config.TRAVEL_RULE_CODE_PORT === undefined) return undefined;
  if (!config.TRAVEL_RULE_CODE_ENTITY_ID || !config.TRAVEL_RULE_CODE_SIGNING_KEY)
    throw new ConfigError([
      'TRAVEL_RULE_CODE_ENTITY_ID and TRAVEL_RULE_CODE_SIGNING_KEY are required with TRAVEL_RULE_CODE_PORT: payloads are sealed to our key',
    ]);
  const box = await codeBoxKey(config.TRAVEL_RULE_CODE_SIGNING_KEY);
  let allowed: BlockList;
  try {
    allowed = codeAllowList(config.TRAVEL_RULE_CODE_ALLOWED_IPS);
  } catch (error) {
    throw new ConfigError([(error as Error).message]);
  }
  return {
    entityId: config.TRAVEL_RULE_CODE_ENTITY_ID,
    name: config.TRAVEL_RULE_VASP_NAME,
    box,
    publicKey: Buffer.from(box.publicKey).toString('base64'),
    allowed,
  };
}

/** TRANSFER_SIGNER_DAILY_CAPS: `{"ETH": "10", ...}`, whole tokens as decimal strings. */
function parseTokenAmounts(name: string, json: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`${name} is not valid JSON`);
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v))
  ) {
    throw new Error(`${name} must be a JSON object of token -> decimal string, e.g. {"ETH":"10"}`);
  }
  return parsed as Record<string, string>;
}

/**
 * The identity provider's port by IDENTITY_PROVIDER: callback (the provider issues pass tokens, posts results to the
 * callback, answers introspection) or nice (the service opens NICE's window and issues the pass tokens itself).
 */
function identityProvider(
  config: ApiConfig,
  orm: Orm,
  encryption: DataEncryption,
  transport: ProviderTransport,
): { identity: PassTokens; identityWindows?: NiceIdentityWindows } {
  if (config.IDENTITY_PROVIDER === 'nice') {
    if (!config.IDENTITY_PROVIDER_CLIENT_ID)
      throw new ConfigError(['IDENTITY_PROVIDER_CLIENT_ID is required with IDENTITY_PROVIDER=nice']);
    const windows = new NiceIdentityWindows({
      orm,
      encryption,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      nice: new NiceIdentityClient({
        baseUrl: config.IDENTITY_PROVIDER_URL,
        clientId: config.IDENTITY_PROVIDER_CLIENT_ID,
        clientSecret: config.IDENTITY_PROVIDER_CLIENT_SECRET,
        productId: config.IDENTITY_PROVIDER_PRODUCT_ID,
        windowUrl: config.IDENTITY_PROVIDER_WINDOW_URL,
        timeoutMs: transport.timeoutMs,
        http: transport.tls ? { tls: transport.tls } : {},
      }),
    });
    return { identity: windows, identityWindows: windows };
  }
  return {
    identity: new IdentityProviderClient({
      baseUrl: config.IDENTITY_PROVIDER_URL,
      clientSecret: config.IDENTITY_PROVIDER_CLIENT_SECRET,
      timeoutMs: transport.timeoutMs,
    }),
  };
}
