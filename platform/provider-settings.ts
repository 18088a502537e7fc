import { readFileSync } from 'node:fs';
import { Type, type TInteger, type TOptional, type TString } from '@sinclair/typebox';

/**
 * The settings of the providers behind ports (docs/providers.md): which adapter each kind uses (BANK_PROVIDER, ...),
 * what that adapter needs (URLs, client ids, secrets), and how the service reaches it: every kind has a deadline
 * and mutual TLS under its prefix (BANK_TIMEOUT_MS, BANK_TLS_CERT_FILE, BANK_TLS_KEY_FILE, BANK_TLS_CA_FILE), the
 * files PEM, read once at start (an unreadable one stops the process with its name). Merged into the one schema of
 * platform/config.ts.
 */
export const PROVIDER_PREFIXES = [
  'IDENTITY_PROVIDER',
  'BANK',
  'ID_CARD_OCR',
  'ID_CARD_CHECK',
  'MAIL',
  'PRICE_FEED',
  'SECURITIES',
  'CEX',
  'TRAVEL_RULE',
  'GOLD_PRICE',
] as const;
export type ProviderPrefix = (typeof PROVIDER_PREFIXES)[number];

/** The adapters each port has, by the value of its setting (the first is the default). */
export const PROVIDERS = {
  IDENTITY_PROVIDER: ['callback', 'nice'],
  BANK_PROVIDER: ['kftc'],
  ID_CARD_OCR_PROVIDER: ['clova'],
  ID_CARD_CHECK_PROVIDER: ['useb'],
  MAIL_PROVIDER: ['smtp'],
  SECURITIES_PROVIDER: ['kis'],
  PRICE_FEED_PROVIDER: ['upbit'],
  GOLD_PRICE_PROVIDER: ['krx'],
} as const;

const choice = <K extends keyof typeof PROVIDERS>(key: K, what: string) =>
  Type.Union(
    PROVIDERS[key].map((p) => Type.Literal(p as (typeof PROVIDERS)[K][number])),
    { default: PROVIDERS[key][0], description: `${what}: ${PROVIDERS[key].join(' | ')}` },
  );

export const PROVIDER_SETTINGS = {
  IDENTITY_PROVIDER: choice(
    'IDENTITY_PROVIDER',
    "the identity verification (callback: a provider that posts each result to POST /v1/auth/pass/callback and introspects the pass tokens it issued; nice: NICE's 본인확인 standard window, the service opening each verification and issuing the pass token, docs/providers.md)",
  ),
  IDENTITY_PROVIDER_CLIENT_ID: Type.Optional(
    Type.String({
      minLength: 1,
      description: "nice: our client id at NICE's API (with IDENTITY_PROVIDER_CLIENT_SECRET)",
    }),
  ),
  IDENTITY_PROVIDER_PRODUCT_ID: Type.String({
    pattern: '^[0-9]{1,16}$',
    default: '2101979031',
    description: "nice: the product code of 본인확인 (통합형) in NICE's API, its ProductID header",
  }),
  IDENTITY_PROVIDER_APP_RETURN_URL: Type.Optional(
    Type.String({
      pattern: '^[a-z][a-z0-9+.-]*://',
      description:
        "nice: the app's link (an app link or its scheme) NICE's return sends the browser on to with passRequestId and code; unset: the return's page shows the code (#pass-code) to the app's web view",
    }),
  ),
  IDENTITY_PROVIDER_WINDOW_URL: Type.String({
    pattern: '^https?://',
    default: 'https://nice.checkplus.co.kr/CheckPlusSafeModel/service.cb',
    description: "nice: NICE's standard window, where the app's browser posts a verification's form",
  }),
  BANK_PROVIDER: choice('BANK_PROVIDER', 'the bank rail (kftc: the KFTC open banking API v2.0)'),
  BANK_API_URL: Type.String({
    pattern: '^https?://',
    description: 'the open banking API: https://openapi.openbanking.or.kr (test bed https://testapi.openbanking.or.kr)',
  }),
  BANK_CLIENT_ID: Type.String({ minLength: 1, description: "our app's client id at the open banking centre" }),
  BANK_CLIENT_SECRET: Type.String({ minLength: 8, description: "our app's client secret at the open banking centre" }),
  BANK_INSTITUTION_CODE: Type.String({
    pattern: '^[A-Z0-9]{10}$',
    description: 'our institution code (이용기관코드, 10 characters): the first part of every bank_tran_id',
  }),
  BANK_CONTRACT_ACCOUNT_NUM: Type.String({
    pattern: '^[0-9A-Za-z-]{1,16}$',
    description: 'our contracted account (약정 계좌) that withdrawals credit and deposits debit (cntr_account_num)',
  }),
  BANK_CONTRACT_ACCOUNT_TYPE: Type.Union([Type.Literal('N'), Type.Literal('C')], {
    default: 'N',
    description: 'cntr_account_type: N an account, C an accounting code (계정)',
  }),
  BANK_CONTRACT_ACCOUNT_HOLDER: Type.String({
    minLength: 1,
    maxLength: 20,
    pattern: '\\S',
    description:
      "the contracted account's holder as its bank names it: a withdrawal's final recipient (recv_client_name, AH(20))",
  }),
  BANK_CONTRACT_BANK_CODE: Type.String({
    pattern: '^[0-9]{3}$',
    description: "the contracted account's bank, by its standard code (recv_client_bank_code of withdrawals)",
  }),
  BANK_DEPOSIT_PASS_PHRASE: Type.String({
    pattern: '^[A-Za-z0-9]{1,128}$',
    description: 'the pass phrase deposits from the contracted account carry (wd_pass_phrase, 입금이체용 암호문구)',
  }),
  BANK_NOT_RECEIVED_AFTER_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 24 * 3600,
    default: 600,
    description:
      'how long a transfer the open banking centre has no record of (transfer/result) is waited for before it is taken as never received and sent again under a new bank_tran_id; at least three times BANK_TIMEOUT_MS',
  }),
  BANK_CONSENT_REDIRECT_URI: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        'the callback URL registered with the open banking centre, where a consent comes back; unset: PUBLIC_BASE_URL/api/v1/bank/consent/callback',
    }),
  ),
  BANK_CONSENT_RETURN_URIS: Type.String({
    default: 'wallet://bank/consent',
    description: 'comma-separated app addresses a finished consent may send the person back to',
  }),
  BANK_WEBHOOK_SECRET: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'deprecated: the HMAC key of POST /api/v1/bank/webhooks/withdrawals (no open banking bank calls it); unset: that route refuses every call',
    }),
  ),
  ID_CARD_OCR_PROVIDER: choice('ID_CARD_OCR_PROVIDER', 'the ID-card reader (clova: NAVER CLOVA OCR, ID card model)'),
  ID_CARD_OCR_URL: Type.String({
    pattern: '^https?://',
    description: "the CLOVA OCR domain's invoke URL (…/custom/v1/{domainId}/{invokeKey}/document)",
  }),
  ID_CARD_OCR_SECRET: Type.String({ minLength: 8, description: "the domain's secret key (X-OCR-SECRET)" }),
  ID_CARD_CHECK_PROVIDER: choice(
    'ID_CARD_CHECK_PROVIDER',
    "the ID-card authenticity check (useb: useB's status API, the issuing authorities' records)",
  ),
  ID_CARD_CHECK_URL: Type.String({ pattern: '^https?://', description: "useB's API: https://api3.useb.co.kr" }),
  ID_CARD_CHECK_AUTH_URL: Type.String({
    pattern: '^https?://',
    description: "useB's token service: https://auth.useb.co.kr",
  }),
  ID_CARD_CHECK_CLIENT_ID: Type.String({ minLength: 1, description: 'our client id at useB' }),
  ID_CARD_CHECK_CLIENT_SECRET: Type.String({ minLength: 8, description: 'our client secret at useB' }),
  MAIL_PROVIDER: choice('MAIL_PROVIDER', 'the mailer (smtp: any mail service over SMTP)'),
  MAIL_SMTP_HOST: Type.String({ minLength: 1, description: 'the SMTP server (submission)' }),
  MAIL_SMTP_PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 587 }),
  MAIL_SMTP_SECURITY: Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')], {
    default: 'starttls',
    description:
      'starttls: upgrade required (port 587); tls: TLS from the start (port 465); none: no encryption (a relay on loopback, not in production)',
  }),
  MAIL_SMTP_USER: Type.Optional(Type.String({ minLength: 1, description: 'SMTP AUTH user; unset: no AUTH' })),
  MAIL_SMTP_PASSWORD: Type.Optional(Type.String({ minLength: 1, description: 'SMTP AUTH password' })),
  MAIL_FROM: Type.String({
    default: 'Wallet <no-reply@wallet.example>',
    minLength: 3,
    maxLength: 254,
    description: 'the sender of every mail (its domain names our Message-IDs)',
  }),
  PRICE_FEED_PROVIDER: choice('PRICE_FEED_PROVIDER', "the market data (upbit: Upbit's quotation API, hourly candles)"),
  PRICE_FEED_URL: Type.String({
    pattern: '^https?://',
    default: 'https://api.upbit.com',
    description: "the quotation API: Upbit's https://api.upbit.com",
  }),
  PRICE_FEED_MARKETS: Type.String({
    default: '{}',
    description:
      'JSON: asset symbol -> the market quoting it in won, e.g. {"BTC":"KRW-BTC"}; merged over the defaults (BTC, ETH, SOL, POL, USDT, USDC on their KRW-… markets); a market of null removes an asset',
  }),
  PRICE_FEED_KEEP_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 3600,
    default: 10,
    description:
      'how long an answer of the quotation API is kept and served again (complete candles never change; Upbit allows 10 calls a second per IP); 0: every valuation asks',
  }),
  GOLD_PRICE_PROVIDER: choice(
    'GOLD_PRICE_PROVIDER',
    "gold's won price (krx: the KRX Open API's gold market, 금 99.99_1kg per gram, daily closes)",
  ),
  GOLD_PRICE_URL: Type.String({
    pattern: '^https?://',
    default: 'https://data-dbg.krx.co.kr/svc/apis',
    description: 'the KRX Open API',
  }),
  GOLD_PRICE_AUTH_KEY: Type.Optional(
    Type.String({
      minLength: 8,
      description:
        'our KRX Open API key (AUTH_KEY), approved for 금시장 일별매매정보; unset: no gold price (GOLD is not quoted)',
    }),
  ),
  CEX_UPBIT_URL: Type.String({
    pattern: '^https?://',
    default: 'https://api.upbit.com',
    description: "Upbit's Exchange API, where a person's key pair reads their balances",
  }),
  CEX_BITHUMB_URL: Type.String({
    pattern: '^https?://',
    default: 'https://api.bithumb.com',
    description: "Bithumb's API, where a person's key pair reads their balances",
  }),
  TRAVEL_RULE_CODE_URL: Type.String({
    pattern: '^https?://',
    default: 'https://trapi.codevasp.com',
    description: "CODE's (CodeVASP's) hub: https://trapi.codevasp.com (development https://trapi-dev.codevasp.com)",
  }),
  TRAVEL_RULE_CODE_ENTITY_ID: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9._-]{2,64}$',
      description: 'our VASP entity id at CODE (X-Request-Origin code:{id})',
    }),
  ),
  TRAVEL_RULE_CODE_SIGNING_KEY: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9+/]{43}=$',
      description:
        "our Ed25519 signing key at CODE: the 32-byte seed, base64 (its public key registered in CODE's dashboard)",
    }),
  ),
  TRAVEL_RULE_CODE_VASPS: Type.String({
    default: '{}',
    description:
      "JSON: CODE member entity id -> its name: the VASPs on CODE's network we exchange Travel Rule data with, after due diligence (a transfer names one as beneficiary_vasp); {}: none",
  }),
  TRAVEL_RULE_CODE_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        "api: the port of CODE's Response API (the eight endpoints CODE's hub calls: /v1/beneficiary/*, /v1/vasp/*, /v1/verification/tx; nothing else is served there); unset: transfers from CODE members are not verified by us",
    }),
  ),
  TRAVEL_RULE_CODE_HOST: Type.String({
    default: '0.0.0.0',
    description: "api: the address CODE's Response API listener binds",
  }),
  TRAVEL_RULE_CODE_ALLOWED_IPS: Type.String({
    default: '',
    description:
      "api: CODE's addresses (IPs and CIDR ranges, comma-separated), the only peers the Response API listener answers (the connection's own peer: a proxy in front must keep the allow-list itself); required with TRAVEL_RULE_CODE_PORT",
  }),
  TRAVEL_RULE_CODE_SERVER_CERT_FILE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "api: our server certificate (PEM, a public CA's) for CODE's Response API listener: HTTPS; unset: plain HTTP (only behind a TLS terminator)",
    }),
  ),
  TRAVEL_RULE_CODE_SERVER_KEY_FILE: Type.Optional(
    Type.String({ minLength: 1, description: "api: that server certificate's private key (PEM)" }),
  ),
  SECURITIES_PROVIDER: choice(
    'SECURITIES_PROVIDER',
    "the securities broker (kis: Korea Investment & Securities' open API, KIS Developers)",
  ),
  SECURITIES_API_URL: Type.String({
    pattern: '^https?://',
    default: 'https://openapi.koreainvestment.com:9443',
    description:
      "the broker's API: KIS https://openapi.koreainvestment.com:9443 (paper trading https://openapivts.koreainvestment.com:29443)",
  }),
  SECURITIES_KIS_ENVIRONMENT: Type.Union([Type.Literal('real'), Type.Literal('mock')], {
    default: 'real',
    description:
      'which KIS domain SECURITIES_API_URL is: real (실전, balance inquiry TTTC8434R) or mock (모의투자, VTTC8434R; its own keys and accounts)',
  }),
  ...transportSchema(),
};

type TransportSchema = { [K in `${ProviderPrefix}_TIMEOUT_MS`]: TOptional<TInteger> } & {
  [K in `${ProviderPrefix}_TLS_${'CERT' | 'KEY' | 'CA'}_FILE`]: TOptional<TString>;
};

function transportSchema(): TransportSchema {
  return Object.fromEntries(
    PROVIDER_PREFIXES.flatMap((prefix) => {
      const what = prefix.toLowerCase().replace(/_/g, ' ');
      return [
        [
          `${prefix}_TIMEOUT_MS`,
          Type.Optional(
            Type.Integer({
              minimum: 100,
              maximum: 120_000,
              description: `how long the ${what} has to answer (ms); unset: PROVIDER_TIMEOUT_MS`,
            }),
          ),
        ],
        [
          `${prefix}_TLS_CERT_FILE`,
          Type.Optional(Type.String({ minLength: 1, description: `our client certificate (PEM) for the ${what}` })),
        ],
        [
          `${prefix}_TLS_KEY_FILE`,
          Type.Optional(Type.String({ minLength: 1, description: "the client certificate's private key (PEM)" })),
        ],
        [
          `${prefix}_TLS_CA_FILE`,
          Type.Optional(
            Type.String({
              minLength: 1,
              description: `the CA (PEM) the ${what}'s certificate must chain to, instead of the system's`,
            }),
          ),
        ],
      ];
    }),
  ) as TransportSchema;
}

/** The transport setting names of some providers, for a process's list of the settings it reads. */
export const transportKeys = <P extends ProviderPrefix>(
  ...prefixes: P[]
): Array<`${P}_TIMEOUT_MS` | `${P}_TLS_CERT_FILE` | `${P}_TLS_KEY_FILE` | `${P}_TLS_CA_FILE`> =>
  prefixes.flatMap((p) => [
    `${p}_TIMEOUT_MS` as const,
    `${p}_TLS_CERT_FILE` as const,
    `${p}_TLS_KEY_FILE` as const,
    `${p}_TLS_CA_FILE` as const,
  ]);

export interface ProviderTransport {
  timeoutMs: number;
  tls?: { cert?: string; key?: string; ca?: string };
}

/**
 * A provider's deadline and TLS material from settings. A certificate without its key (or the reverse) or a file that
 * cannot be read is an Error naming the setting (composition roots report it with the other bad settings at start).
 */
export function providerTransport(
  config: Readonly<Record<string, unknown>> & { PROVIDER_TIMEOUT_MS: number },
  prefix: ProviderPrefix,
): ProviderTransport {
  const settings = config;
  const read = (suffix: string): string | undefined => {
    const name = `${prefix}_${suffix}`;
    const file = settings[name];
    if (typeof file !== 'string' || !file) return undefined;
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  };
  const cert = read('TLS_CERT_FILE');
  const key = read('TLS_KEY_FILE');
  const ca = read('TLS_CA_FILE');
  if (!!cert !== !!key)
    throw new Error(
      `${prefix}_TLS_CERT_FILE and ${prefix}_TLS_KEY_FILE go together: set both for mutual TLS, or neither`,
    );
  const timeout = settings[`${prefix}_TIMEOUT_MS`];
  return {
    timeoutMs: typeof timeout === 'number' ? timeout : config.PROVIDER_TIMEOUT_MS,
    ...(cert || ca ? { tls: { cert, key, ca } } : {}),
  };
}
