/**
 * The adapter behind each port, as settings name it (BANK_PROVIDER, ID_CARD_OCR_PROVIDER, ID_CARD_CHECK_PROVIDER,
 * MAIL_PROVIDER): the composition roots (api/composition.ts, worker/composition.ts) build the clients through these,
 * so switching a provider is a settings change. Each adapter gets its own deadline and TLS material
 * (platform/provider-settings.ts).
 */
import type { Config } from '../platform/config';
import { providerTransport } from '../platform/provider-settings';
import type { Mailer } from './mail/mailer';
import { SmtpMailer } from './mail/smtp';
import type { BankRail } from './bank/rail';
import { KftcOpenBanking } from './bank/kftc';
import type { BankTranIdBook } from './bank/kftc-tran-ids';
import type { IdCardReader } from './id-card/reader';
import { ClovaIdCardReader } from './id-card/clova-ocr';
import type { IdCardAuthenticity } from './id-card/authenticity';
import { UsebIdCardCheck } from './id-card/useb';
import { TrpClient, type TravelRuleCounterpart } from './travel-rule/trp';
import { codeVaspsFromJson, counterpartsFromJson, type CodeVasp } from './travel-rule/counterparts';
import { CodeClient } from './travel-rule/code/client';
import type { SecuritiesBroker } from './securities/broker';
import { KisOpenApi } from './securities/kis';
import type { MarketData } from './prices/market-data';
import { DEFAULT_UPBIT_MARKETS, UpbitQuotation } from './prices/upbit';
import { KrxGoldPrices } from './prices/krx-gold';
import { MarketDataSources } from './prices/sources';
import type { ExchangeAccounts, ExchangeName } from './exchange/accounts';
import { UpbitStyleExchange } from './exchange/upbit-style';

type Settings<K extends keyof Config> = Pick<Config, K | 'PROVIDER_TIMEOUT_MS'> & Partial<Config>;

export function mailerFrom(
  config: Settings<
    | 'MAIL_PROVIDER'
    | 'MAIL_SMTP_HOST'
    | 'MAIL_SMTP_PORT'
    | 'MAIL_SMTP_SECURITY'
    | 'MAIL_SMTP_USER'
    | 'MAIL_SMTP_PASSWORD'
    | 'MAIL_FROM'
  >,
): Mailer & { close(): void } {
  switch (config.MAIL_PROVIDER) {
    case 'smtp':
      return new SmtpMailer({
        host: config.MAIL_SMTP_HOST,
        port: config.MAIL_SMTP_PORT,
        security: config.MAIL_SMTP_SECURITY,
        user: config.MAIL_SMTP_USER,
        password: config.MAIL_SMTP_PASSWORD,
        from: config.MAIL_FROM,
        ...providerTransport(config, 'MAIL'),
      });
  }
}

/**
 * The bank rail. The worker's moves money (its settings name our contracted account); the API's only asks (real-name
 * inquiries, consents).
 */
export function bankRailFrom(
  config: Settings<
    'BANK_PROVIDER' | 'BANK_API_URL' | 'BANK_CLIENT_ID' | 'BANK_CLIENT_SECRET' | 'BANK_INSTITUTION_CODE'
  >,
  stores: { tranIds: BankTranIdBook },
): BankRail {
  switch (config.BANK_PROVIDER) {
    case 'kftc':
      return new KftcOpenBanking({
        apiUrl: config.BANK_API_URL,
        clientId: config.BANK_CLIENT_ID,
        clientSecret: config.BANK_CLIENT_SECRET,
        institutionCode: config.BANK_INSTITUTION_CODE,
        contract:
          config.BANK_CONTRACT_ACCOUNT_NUM &&
          config.BANK_CONTRACT_ACCOUNT_HOLDER &&
          config.BANK_CONTRACT_BANK_CODE &&
          config.BANK_DEPOSIT_PASS_PHRASE
            ? {
                accountNum: config.BANK_CONTRACT_ACCOUNT_NUM,
                accountType: config.BANK_CONTRACT_ACCOUNT_TYPE ?? 'N',
                holderName: config.BANK_CONTRACT_ACCOUNT_HOLDER,
                bankCode: config.BANK_CONTRACT_BANK_CODE,
                depositPassPhrase: config.BANK_DEPOSIT_PASS_PHRASE,
              }
            : undefined,
        transport: providerTransport(config, 'BANK'),
        tranIds: stores.tranIds,
        notReceivedAfterMs: (config.BANK_NOT_RECEIVED_AFTER_SECONDS ?? 600) * 1000,
      });
  }
}

export function idCardReaderFrom(
  config: Settings<'ID_CARD_OCR_PROVIDER' | 'ID_CARD_OCR_URL' | 'ID_CARD_OCR_SECRET'>,
): IdCardReader {
  switch (config.ID_CARD_OCR_PROVIDER) {
    case 'clova':
      return new ClovaIdCardReader({
        invokeUrl: config.ID_CARD_OCR_URL,
        secret: config.ID_CARD_OCR_SECRET,
        transport: providerTransport(config, 'ID_CARD_OCR'),
      });
  }
}

export function idCardAuthenticityFrom(
  config: Settings<
    | 'ID_CARD_CHECK_PROVIDER'
    | 'ID_CARD_CHECK_URL'
    | 'ID_CARD_CHECK_AUTH_URL'
    | 'ID_CARD_CHECK_CLIENT_ID'
    | 'ID_CARD_CHECK_CLIENT_SECRET'
  >,
): IdCardAuthenticity {
  switch (config.ID_CARD_CHECK_PROVIDER) {
    case 'useb':
      return new UsebIdCardCheck({
        apiUrl: config.ID_CARD_CHECK_URL,
        authUrl: config.ID_CARD_CHECK_AUTH_URL,
        clientId: config.ID_CARD_CHECK_CLIENT_ID,
        clientSecret: config.ID_CARD_CHECK_CLIENT_SECRET,
        transport: providerTransport(config, 'ID_CARD_CHECK'),
      });
  }
}

/**
 * The Travel Rule network (TRP v3 over mutual TLS): the VASPs of TRAVEL_RULE_COUNTERPARTS and our client for them,
 * with our certificate and the CA theirs chain to (TRAVEL_RULE_TLS_CERT_FILE, _KEY_FILE, _CA_FILE), required as soon
 * as there is a counterpart.
 */
export function travelRuleFrom(
  config: Settings<'TRAVEL_RULE_COUNTERPARTS' | 'TRAVEL_RULE_CODE_URL' | 'TRAVEL_RULE_CODE_VASPS'>,
): {
  counterparts: TravelRuleCounterpart[];
  trp?: TrpClient;
  code?: { client: CodeClient; vasps: CodeVasp[] };
} {
  const counterparts = counterpartsFromJson(config.TRAVEL_RULE_COUNTERPARTS);
  const code = codeFrom(config);
  const transport = providerTransport(config, 'TRAVEL_RULE');
  const { cert, key, ca } = transport.tls ?? {};
  if (!cert || !key) {
    if (counterparts.length > 0)
      throw new Error(
        'TRAVEL_RULE_TLS_CERT_FILE and TRAVEL_RULE_TLS_KEY_FILE are required with TRAVEL_RULE_COUNTERPARTS: TRP is mutual TLS',
      );
    return { counterparts, code };
  }
  if (counterparts.length > 0 && !ca)
    throw new Error(
      "TRAVEL_RULE_TLS_CA_FILE is required with TRAVEL_RULE_COUNTERPARTS: the counterparts' certificates chain to the Travel Rule network's CA, not to the public roots",
    );
  return { counterparts, code, trp: new TrpClient({ timeoutMs: transport.timeoutMs, tls: { cert, key, ca } }) };
}

/**
 * CODE (CodeVASP): our client of its hub, and its members we exchange with (TRAVEL_RULE_CODE_VASPS). With members,
 * our entity id and signing key are required (every request is signed).
 */
function codeFrom(
  config: Settings<'TRAVEL_RULE_CODE_URL' | 'TRAVEL_RULE_CODE_VASPS'>,
): { client: CodeClient; vasps: CodeVasp[] } | undefined {
  const vasps = codeVaspsFromJson(config.TRAVEL_RULE_CODE_VASPS);
  if (vasps.length === 0) return undefined;
  if (!config.TRAVEL_RULE_CODE_ENTITY_ID || !config.TRAVEL_RULE_CODE_SIGNING_KEY)
    throw new Error(
      'TRAVEL_RULE_CODE_ENTITY_ID and TRAVEL_RULE_CODE_SIGNING_KEY are required with TRAVEL_RULE_CODE_VASPS: CODE signs every request',
    );
  return {
    vasps,
    client: new CodeClient({
      apiUrl: config.TRAVEL_RULE_CODE_URL,
      entityId: config.TRAVEL_RULE_CODE_ENTITY_ID,
      signingKey: config.TRAVEL_RULE_CODE_SIGNING_KEY,
      // CODE's hub is public HTTPS: its deadline, not the TRP network's certificates and CA.
      transport: { timeoutMs: providerTransport(config, 'TRAVEL_RULE').timeoutMs },
    }),
  };
}

/** The securities broker whose account inquiry the person's own key pair opens (POST /api/v1/securities/verify). */
export function securitiesBrokerFrom(
  config: Settings<'SECURITIES_PROVIDER' | 'SECURITIES_API_URL' | 'SECURITIES_KIS_ENVIRONMENT'>,
): SecuritiesBroker {
  switch (config.SECURITIES_PROVIDER) {
    case 'kis':
      return new KisOpenApi({
        apiUrl: config.SECURITIES_API_URL,
        environment: config.SECURITIES_KIS_ENVIRONMENT,
        transport: providerTransport(config, 'SECURITIES'),
      });
  }
}

/**
 * The market data behind every won price (PriceFeedClient holds its answers to the sanity rules): the coins' quotation
 * API, and gold's when GOLD_PRICE_AUTH_KEY is set.
 */
export function marketDataFrom(
  config: Settings<
    | 'PRICE_FEED_PROVIDER'
    | 'PRICE_FEED_URL'
    | 'PRICE_FEED_MARKETS'
    | 'PRICE_FEED_KEEP_SECONDS'
    | 'GOLD_PRICE_PROVIDER'
    | 'GOLD_PRICE_URL'
  >,
): MarketData {
  const sources = [coinPricesFrom(config)];
  if (config.GOLD_PRICE_AUTH_KEY)
    switch (config.GOLD_PRICE_PROVIDER) {
      case 'krx':
        sources.push(
          new KrxGoldPrices({
            apiUrl: config.GOLD_PRICE_URL,
            authKey: config.GOLD_PRICE_AUTH_KEY,
            transport: providerTransport(config, 'GOLD_PRICE'),
          }),
        );
    }
  return new MarketDataSources(sources);
}

function coinPricesFrom(
  config: Settings<'PRICE_FEED_PROVIDER' | 'PRICE_FEED_URL' | 'PRICE_FEED_MARKETS' | 'PRICE_FEED_KEEP_SECONDS'>,
): MarketData {
  switch (config.PRICE_FEED_PROVIDER) {
    case 'upbit':
      return new UpbitQuotation({
        apiUrl: config.PRICE_FEED_URL,
        transport: providerTransport(config, 'PRICE_FEED'),
        markets: marketsFromJson(config.PRICE_FEED_MARKETS, DEFAULT_UPBIT_MARKETS),
        keepSeconds: config.PRICE_FEED_KEEP_SECONDS,
      });
  }
}

/** PRICE_FEED_MARKETS over the defaults: `{"GOLD": "KRW-GOLD"}` adds, `{"POL": null}` removes. */
function marketsFromJson(json: string, defaults: Record<string, string>): Record<string, string> {
  let overrides: unknown;
  try {
    overrides = JSON.parse(json);
  } catch {
    throw new Error('PRICE_FEED_MARKETS is not JSON');
  }
  if (!overrides || typeof overrides !== 'object' || Array.isArray(overrides))
    throw new Error('PRICE_FEED_MARKETS must be an object of asset -> market');
  const markets = { ...defaults };
  for (const [asset, market] of Object.entries(overrides)) {
    if (!/^[A-Z0-9]{2,10}$/.test(asset)) throw new Error(`PRICE_FEED_MARKETS: ${asset} is not an asset symbol`);
    if (market === null) delete markets[asset];
    // Won markets only: a price in BTC or USDT taken as won would switch the won limits off.
    else if (typeof market === 'string' && /^KRW-[A-Z0-9]{2,10}$/.test(market)) markets[asset] = market;
    else throw new Error(`PRICE_FEED_MARKETS: ${asset} names no won market (KRW-${asset})`);
  }
  return markets;
}

/** The exchanges whose accounts a person connects with an API key pair (Upbit; Bithumb, which copies its API). */
export function exchangesFrom(
  config: Settings<'CEX_UPBIT_URL' | 'CEX_BITHUMB_URL'>,
): Record<ExchangeName, ExchangeAccounts> {
  const transport = providerTransport(config, 'CEX');
  return {
    upbit: new UpbitStyleExchange('upbit', {
      apiUrl: config.CEX_UPBIT_URL,
      transport,
      algorithm: 'HS512',
      timestamp: false,
    }),
    bithumb: new UpbitStyleExchange('bithumb', {
      apiUrl: config.CEX_BITHUMB_URL,
      transport,
      algorithm: 'HS256',
      timestamp: true,
    }),
  };
}
