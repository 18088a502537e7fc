import { Type, type Static, type TSchema } from '@sinclair/typebox';
import Ajv from 'ajv';
import { PROVIDER_SETTINGS, transportKeys } from './provider-settings';

/**
 * The one configuration loader. Every process (api, worker, sandbox) reads its settings from
 * environment variables only; each bad value gets its own line in the error at start.
 */
const Port = (fallback: number) => Type.Integer({ minimum: 1, maximum: 65535, default: fallback });
const Seconds = (fallback: number) => Type.Integer({ minimum: 1, default: fallback, description: 'whole seconds' });
const Url = Type.String({ pattern: '^https?://' });

export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'production',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'serve Prometheus /metrics on this port (0: a free one); unset: no metrics server',
    }),
  ),
  METRICS_HOST: Type.String({
    default: '127.0.0.1',
    description: 'the private address /metrics listens on (reach it from the scraper only)',
  }),
  TEMPORAL_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description: 'worker: the Temporal SDK (core) serves its Prometheus metrics here, on METRICS_HOST',
    }),
  ),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  API_HOST: Type.String({ default: '0.0.0.0' }),
  API_PORT: Port(3000),
  PUBLIC_BASE_URL: Type.Optional(Url),
  DATABASE_URL: Type.String({
    pattern: '^(sqlite:|postgres(ql)?://)',
    description: 'sqlite:<file> or postgresql://user:pass@host:port/db',
  }),
  DATABASE_LISTEN_URL: Type.Optional(
    Type.String({
      pattern: '^postgres(ql)?://',
      description:
        "the session cache's LISTEN connection, direct to PostgreSQL where DATABASE_URL is a transaction-mode pooler (which cannot LISTEN); unset: DATABASE_URL",
    }),
  ),
  SESSION_CACHE_HEARTBEAT_SECONDS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 60,
      description:
        'how often the LISTEN connection must prove it still delivers notifications, and how long it has (unset: 5)',
    }),
  ),
  SESSION_CACHE_MAX_AGE_SECONDS: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 300,
      description: 'no session row older than this is served from memory, whatever the LISTEN connection (unset: 30)',
    }),
  ),
  TEMPORAL_ADDRESS: Type.String({ default: 'localhost:7233', pattern: '^[^:/]+:\\d+$' }),
  TEMPORAL_NAMESPACE: Type.String({ default: 'default', minLength: 1 }),
  TEMPORAL_TASK_QUEUE: Type.String({ default: 'wallet', minLength: 1 }),
  WORKFLOW_BUNDLE: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        'worker: a file of the workflows bundled ahead (worker/bundle-workflows.ts) to run; unset: dist/workflow-bundle.js beside a built worker when no compiled workflow is newer, else bundled at start',
    }),
  ),
  WORKER_CAPABILITIES: Type.String({
    default: 'workflows,chains,bank,messaging,compliance',
    pattern: '^(workflows|chains|bank|messaging|compliance)(,(workflows|chains|bank|messaging|compliance))*$',
    description:
      "worker: what this process runs, comma-separated: 'workflows' (every workflow, and the activities on its queue) and the capabilities whose activities have queues of their own, 'chains', 'bank', 'messaging', 'compliance' (docs/production.md); unset: all",
  }),
  WORKFLOW_TASK_SLOTS: Type.Integer({
    minimum: 2,
    maximum: 2000,
    default: 200,
    description:
      "worker: how many workflow tasks, and as many local activities, a process running the workflows holds at once (the Temporal SDK's maxConcurrentWorkflowTaskExecutions and maxConcurrentLocalActivityExecutions; its defaults are 40 and 100). A transfer sending locally (NETWORKS.<id>.transferSendLocal) holds one until its chain includes it; past the slots, workflow tasks wait in the server's queue",
  }),
  JWT_PRIVATE_JWK: Type.String({ minLength: 2, description: 'ES256 private key as a JSON Web Key (must carry a kid)' }),
  JWT_ISSUER: Type.String({ default: 'wallet-service', minLength: 1 }),
  JWT_AUDIENCE: Type.String({ default: 'wallet-app', minLength: 1 }),
  ACCESS_TOKEN_TTL_SECONDS: Seconds(900),
  REFRESH_TOKEN_TTL_SECONDS: Seconds(30 * 24 * 3600),
  DATA_ENCRYPTION_KEY: Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$', description: '32 random bytes, base64' }),
  PASS_CALLBACK_API_KEY: Type.String({ minLength: 16 }),
  IDENTITY_PROVIDER_URL: Url,
  IDENTITY_PROVIDER_CLIENT_SECRET: Type.String({ minLength: 8 }),
  PROVIDER_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 10_000 }),
  CHAIN_RPC_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 300_000,
    default: 15_000,
    description:
      "how long one call to a chain's JSON-RPC node or bundler may take before it counts as failed (and is retried where the caller retries)",
  }),
  REGISTRATION_TTL_SECONDS: Seconds(24 * 3600),
  PASS_RESULT_WAIT_SECONDS: Seconds(20),
  IDEMPOTENCY_RETENTION_SECONDS: Seconds(24 * 3600),
  IDEMPOTENCY_LOCK_SECONDS: Seconds(60),
  UPLOAD_MAX_BYTES: Type.Integer({ minimum: 1024, default: 5 * 1024 * 1024 }),
  JSON_BODY_MAX_BYTES: Type.Integer({ minimum: 1024, default: 64 * 1024 }),
  NETWORKS: Type.String({
    minLength: 2,
    default: '{}',
    description:
      'JSON: {"ETHEREUM":{"kind":"evm","chainId":1,"rpcUrl":"https://…","entryPoint":"0x…","bundlerUrl":"https://…","accountFactory":"0x…","didRegistry":"0x…"}}',
  }),
  PAYMASTER_SIGNER_KEY: Type.String({
    pattern: '^0x[0-9a-fA-F]{64}$',
    description:
      'the sponsor key WalletPaymaster honours: signs paymasterAndData after the gas budget check (worker only)',
  }),
  TRANSFER_SIGNER_VALIDITY_SECONDS: Seconds(365 * 24 * 3600),
  TRANSFER_SIGNER_DAILY_CAPS: Type.String({
    default: '{"ETH":"5","POL":"20000","USDT":"10000","USDC":"10000"}',
    description:
      "JSON: per token symbol, the most the service's transfer key may send from an account per Korean day (from 00:00 KST, as the service's limits) (whole tokens), enforced on chain; a token left out cannot be sent by it",
  }),
  GAS_BUDGET_DAILY_KRW: Type.Integer({
    minimum: 0,
    default: 200_000,
    description: "gas the service sponsors per user per Korean day, in won at the price feed's rate",
  }),
  DEPLOY_PREPARE_TTL_SECONDS: Seconds(600),
  KEY_ROTATION_RETRY_WINDOW_SECONDS: Seconds(7 * 24 * 3600),
  DID_NETWORK_ID: Type.String({
    default: 'ETHEREUM',
    pattern: '^[A-Z][A-Z0-9_]*$',
    description: 'network whose EthereumDIDRegistry holds user DIDs',
  }),
  DID_KEY_VALIDITY_SECONDS: Seconds(365 * 24 * 3600),
  WEBAUTHN_RP_ID: Type.String({
    default: 'localhost',
    pattern: '^[a-z0-9.-]+$',
    description: 'WebAuthn relying-party id: the registrable domain passkeys are bound to',
  }),
  NEW_PASSKEY_HOLD_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 24 * 3600,
    default: 24 * 3600,
    description:
      "how long a newly added passkey cannot waive a recipient's cooling-off or approve a transfer above the passkey threshold",
  }),
  WEBAUTHN_RP_NAME: Type.String({ default: 'Wallet', minLength: 1, maxLength: 64 }),
  NEW_DEVICE_HOLD_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 24 * 3600,
    default: 24 * 3600,
    description:
      'after a sign-in proved by the ID card only, how long the device cannot send funds, change the PIN, email or address book, change transfer keys or read the backup (unless an older passkey approves)',
  }),
  NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 24 * 3600,
    default: 72 * 3600,
    description: 'the same hold for a person the service cannot tell at once (no verified email)',
  }),
  RECOVERY_ADDRESS: Type.String({
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'the address of the recovery key (RECOVERY_PRIVATE_KEY of the worker): owner upgrades name it',
  }),
  RECOVERY_PRIVATE_KEY: Type.String({
    pattern: '^0x[0-9a-fA-F]{64}$',
    description:
      "the service's recovery key (worker only), funded on every network: schedules and executes owner recoveries, can do nothing else",
  }),
  RECOVERY_DELAY_SECONDS: Type.Integer({
    minimum: 10,
    maximum: 30 * 24 * 3600,
    default: 72 * 3600,
    description: 'how long a recovery waits for the owner to cancel it (written on chain by the upgrade)',
  }),
  RECOVERY_POLL_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 3600,
    default: 300,
    description: "how often a waiting recovery looks on chain for the owner's cancellation",
  }),
  STEP_UP_IDENTITY_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 1800,
    default: 300,
    description:
      'a step-up identity check: how old the identity verification may be when the check starts, and how long the verified check approves its request',
  }),
  EMAIL_CHANGE_UNDO_SECONDS: Type.Integer({
    minimum: 3600,
    maximum: 30 * 24 * 3600,
    default: 7 * 24 * 3600,
    description:
      'how long the address an email change replaced can undo it (with the code mailed to it) and gets every security notice',
  }),
  RECOVERY_COOLDOWN_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 90 * 24 * 3600,
    default: 7 * 24 * 3600,
    description: 'after the owner cancels a recovery, how long before a new one can be asked for',
  }),
  SIGN_IN_TTL_SECONDS: Type.Integer({
    minimum: 60,
    maximum: 24 * 3600,
    default: 1800,
    description: 'how long a sign-in on a new device may take before it expires',
  }),
  WEBAUTHN_ORIGINS: Type.String({
    default: 'http://localhost:3000',
    pattern: '^[^,\\s]+(,[^,\\s]+)*$',
    description: 'comma-separated origins passkey ceremonies may come from (web origins, android:apk-key-hash:…)',
  }),
  VC_ISSUER_KEY: Type.String({
    pattern: '^[A-Za-z0-9_-]{43}$',
    description: 'Ed25519 private key seed of the credential issuer (32 bytes, base64url); its did:key is the issuer',
  }),
  VC_ISSUER_NAME: Type.String({ default: 'Wallet', minLength: 1, maxLength: 128 }),
  VC_VALIDITY_SECONDS: Seconds(365 * 24 * 3600),
  VC_STATUS_BASE_URL: Type.String({
    pattern: '^https?://[^/?#]+(/[^?#]*)?$',
    description:
      "the API's public address as verifiers reach it (https://api.example.com): credentials name their status list under it, <url>/v1/credentials/status/<n>",
  }),
  BANK_VERIFICATION_TTL_SECONDS: Seconds(600),
  BANK_VERIFICATION_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 20,
    default: 3,
    description: 'wrong 1 KRW codes before a verification locks (a code is 4 digits)',
  }),
  EMAIL_VERIFICATION_TTL_SECONDS: Seconds(900),
  EMAIL_VERIFICATION_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: Type.Boolean({
    default: false,
    description:
      'let webhook endpoints be on private or loopback addresses (development, tests, a receiver inside your own network)',
  }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 100_000,
    default: 10_000,
    description: 'how long a receiver has to answer a delivery',
  }),
  WEBHOOK_RETRY_INITIAL_SECONDS: Seconds(5),
  WEBHOOK_RETRY_MAX_SECONDS: Seconds(3600),
  WEBHOOK_GIVE_UP_SECONDS: Type.Integer({
    minimum: 1,
    default: 3 * 24 * 3600 + 3600,
    description: 'how long one event is retried before its endpoint is disabled (default 3 days and an hour)',
  }),
  WEBHOOK_POLL_SECONDS: Type.Number({
    minimum: 0.1,
    maximum: 60,
    default: 2,
    description: 'how often an idle endpoint looks for new events',
  }),
  CHARGE_MAX_AMOUNT_KRW: Type.Integer({ minimum: 1, default: 2_000_000, description: 'largest single charge, KRW' }),
  PAYOUT_MAX_AMOUNT_KRW: Type.Integer({
    minimum: 1,
    default: 2_000_000,
    description: 'largest payout a person may ask for, KRW (a closure pays the whole balance back whatever it is)',
  }),
  PAYOUT_DAILY_LIMIT_KRW: Type.Integer({
    minimum: 1,
    default: 5_000_000,
    description: 'what a person may pay out in a Korean day (00:00 KST), KRW, payouts not failed',
  }),
  SWAP_DAILY_LIMIT_KRW: Type.Integer({
    minimum: 0,
    default: 20_000_000,
    description:
      "what a person's swaps may spend in a Korean day (00:00 KST), KRW, each valued at the hour's price when prepared; a quote past it is executable: false, limit_exceeded",
  }),
  KEY_ENCRYPTION_KEY: Type.String({
    pattern: '^[A-Za-z0-9+/]{43}=$',
    description: 'master key (32 random bytes, base64) that wraps the data keys of service-held signing keys',
  }),
  TRANSFER_REVIEW_AFTER_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 30,
    description:
      'submission attempts of a transfer (RPC down or failing) before one that may have been broadcast is held for review and retried patiently, never failed unproven',
  }),
  TRANSFER_LIMIT_PER_TRANSFER_KRW: Type.Integer({
    minimum: 1,
    default: 5_000_000,
    description: 'default largest single crypto transfer, in won at the request-time price',
  }),
  TRANSFER_LIMIT_DAILY_KRW: Type.Integer({
    minimum: 1,
    default: 10_000_000,
    description: 'default crypto transfers per user per Korean day, in won',
  }),
  TRANSFER_PASSKEY_ABOVE_KRW: Type.Integer({
    minimum: 0,
    default: 1_000_000,
    description: 'default: a crypto transfer worth more than this (won) needs a passkey approval bound to it',
  }),
  ADDRESS_COOLING_OFF_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 30 * 24 * 3600,
    default: 24 * 3600,
    description:
      'how long a recipient added to the address book waits before it can receive without a passkey approval; 0: new recipients are usable at once (still recorded)',
  }),
  TRANSFER_WORKFLOW_VERSION: Type.Integer({
    minimum: 3,
    maximum: 5,
    default: 5,
    description:
      "the transfer workflow's version new transfers start with: 5, the last screening to the outcome in one local activity (sendTransfer, in the worker that runs the workflow); 4, the same as an activity on the chains' task queue (for a deployment whose workflows workers cannot reach the chains); 3 for a rollback of the workers to a release before version 4 (set it on the api first)",
  }),
  TRANSFER_WAIT_SECONDS: Type.Integer({
    minimum: 0,
    maximum: 120,
    default: 30,
    description: 'how long a transfer request waits for its transaction to be included in a block before answering 202',
  }),
  PIN_ENCRYPTION_JWK: Type.String({
    minLength: 2,
    description: 'P-256 private JWK with a kid: PINs arrive as JWEs to its public key',
  }),
  PIN_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 20, default: 5 }),
  PIN_LOCK_SECONDS: Seconds(1800),
  PIN_MAX_LOCKS: Type.Integer({ minimum: 1, maximum: 20, default: 3 }),
  PRICE_MAX_AGE_SECONDS: Type.Integer({
    minimum: 60,
    default: 2 * 3600,
    description: 'a price point older than this is stale: no won value, no transfer or sponsorship',
  }),
  PRICE_BAND_PERCENT: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 20,
    description:
      "a price further than this from the previous hour's, or from the asset's reference (shared by every process, moved at most this far per 6 hours), is implausible: refused",
  }),
  SANCTIONS_LIST_URL: Type.String({
    pattern: '^https?://',
    default: 'https://www.treasury.gov/ofac/downloads/sanctions/1.0/sdn_advanced.xml',
    description:
      'the OFAC SDN advanced XML: its digital currency addresses are the sanctions list (read on a schedule)',
  }),
  SANCTIONS_LIST_REFRESH_MINUTES: Type.Integer({
    minimum: 1,
    maximum: 7 * 24 * 60,
    default: 360,
    description: 'how often the sanctions-list-refresh schedule reads the list',
  }),
  SANCTIONS_LIST_MAX_AGE_HOURS: Type.Number({
    exclusiveMinimum: 0,
    maximum: 30 * 24,
    default: 48,
    description:
      'a sanctions list not refreshed for longer fails closed: no transfer and no new recipient until a refresh succeeds',
  }),
  JUPITER_API_URL: Type.String({
    pattern: '^https?://',
    default: 'https://api.jup.ag/swap/v2',
    description: "Jupiter's Swap API V2 (the Meta-Aggregator's /order and /execute): SOLANA quotes and swaps",
  }),
  JUPITER_API_KEY: Type.Optional(
    Type.String({
      minLength: 8,
      description: 'our x-api-key at Jupiter (developers.jup.ag/portal); unset: no SOLANA exchange',
    }),
  ),
  SOLANA_SWAP_MAX_FEE_LAMPORTS: Type.Integer({
    minimum: 5000,
    maximum: 100_000_000,
    default: 2_000_000,
    description:
      "the most SOL a SOLANA swap's transaction may take beyond its input (signature and priority fees), in lamports; one that takes more is refused unsigned",
  }),
  SCREENING_PROVIDER_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description:
        "a sanctions screening API of the shape of Chainalysis' (GET /api/v1/address/{address}); unset: the SDN list alone",
    }),
  ),
  SCREENING_PROVIDER_API_KEY: Type.Optional(
    Type.String({ minLength: 8, description: 'our X-API-Key at the screening provider' }),
  ),
  SCREENING_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: 3000,
    description:
      'how long the screening provider has to answer before screening fails closed (503 screening-unavailable)',
  }),
  TRAVEL_RULE_THRESHOLD_KRW: Type.Integer({
    minimum: 0,
    default: 1_000_000,
    description: "a crypto transfer valued at this or more (won, at the request's price) falls under the Travel Rule",
  }),
  TRAVEL_RULE_VASP_ID: Type.String({
    default: 'wallet-kr',
    minLength: 2,
    maxLength: 128,
    description: 'our provider id in Travel Rule messages',
  }),
  TRAVEL_RULE_VASP_NAME: Type.String({
    default: 'Wallet Korea Co., Ltd.',
    minLength: 2,
    maxLength: 300,
    description: 'our legal name in Travel Rule messages (IVMS101 originatingVASP)',
  }),
  TRAVEL_RULE_TIMEOUT_SECONDS: Type.Integer({
    minimum: 5,
    maximum: 7 * 24 * 3600,
    default: 3600,
    description: "how long a transfer waits for the receiving provider's approval before it fails (nothing signed)",
  }),
  MONITORING_LARGE_KRW: Type.Integer({
    minimum: 0,
    default: 1_000_000,
    description:
      'monitoring: a transfer worth this or more (won) to a recipient added minutes before, or from a device signed in recently, is held for review',
  }),
  MONITORING_STRUCTURING_KRW: Type.Integer({
    minimum: 1,
    default: 1_000_000,
    description:
      'monitoring: transfers to one destination within 24 h, each below this, that together reach it are held for review',
  }),
  MONITORING_FAN_OUT_RECIPIENTS: Type.Integer({
    minimum: 2,
    default: 5,
    description: 'monitoring: this many recipients paid for the first time within 24 h holds the transfer for review',
  }),
  MONITORING_NEW_RECIPIENT_MINUTES: Type.Integer({
    minimum: 0,
    default: 60,
    description: 'monitoring: a large transfer to a recipient added this recently is held for review',
  }),
  MONITORING_NEW_DEVICE_HOURS: Type.Integer({
    minimum: 0,
    default: 24,
    description:
      'monitoring: a large transfer from a device signed in this recently (not the registering one) is held for review',
  }),
  TRAVEL_RULE_COUNTERPARTS: Type.String({
    default: '{}',
    description:
      'JSON: VASP id -> {name, origin, certificateSha256, ivms101?}: the VASPs we exchange Travel Rule (TRP) messages with, after due diligence: their TRP origin (https://host[:port], where their Travel Addresses point), the SHA-256 fingerprint(s) of the certificate they present (pinned, both ways) and the IVMS101 form they read (2020 or 2023; default 2020); {}: none',
  }),
  TRAVEL_RULE_PORT: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 65535,
      description:
        "api: the port of the TRP listener (HTTPS with mutual TLS: TRAVEL_RULE_TLS_*; only /trp/v3/* is served there); unset: other VASPs' inquiries are not received",
    }),
  ),
  TRAVEL_RULE_HOST: Type.String({ default: '0.0.0.0', description: 'api: the address the TRP listener binds' }),
  TRAVEL_RULE_PUBLIC_URL: Type.Optional(
    Type.String({
      pattern: '^https://[^/?#]+$',
      description:
        'https://host[:port] where other VASPs reach our TRP listener: the origin of our Travel Addresses and of the callback and confirmation URLs we give',
    }),
  ),
  COMPLIANCE_RETENTION_DAYS: Type.Integer({
    minimum: 1,
    default: 5 * 366,
    description: 'how long Travel Rule records and compliance cases are kept (five years), account closed or not',
  }),
  CEX_API_URL: Url,
  CEX_PROVIDER: Type.String({
    default: 'upbit',
    pattern: '^[a-z0-9-]{2,32}$',
    description: 'name of the exchange behind CEX_API_URL',
  }),
  CEX_CLIENT_ID: Type.String({ default: 'wallet-service', minLength: 1 }),
  CEX_CLIENT_SECRET: Type.String({ minLength: 8 }),
  CEX_REDIRECT_URIS: Type.String({
    default: 'wallet://cex/callback',
    description: 'comma-separated redirect URIs registered at the exchange',
  }),
  QUOTE_SLIPPAGE_BPS: Type.Integer({ minimum: 0, maximum: 5000, default: 50 }),
  QUOTE_PRICE_IMPACT_WARNING_BPS: Type.Integer({ minimum: 0, maximum: 10000, default: 300 }),
  QUOTE_TTL_SECONDS: Type.Integer({
    minimum: 5,
    maximum: 600,
    default: 60,
    description: 'how long a quote (its quoteId) may be swapped on; a later swap is refused with stale-quote',
  }),
  QUOTE_BLOCK_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1_000,
    description:
      "how long quotes reuse the chain's newest block number (and the reads made at that block) before asking again",
  }),
  RATE_LIMITS: Type.String({
    default: '{}',
    description:
      'JSON: overrides of the default limits by rule name, e.g. {"exchange-quote":{"points":60,"seconds":60}}',
  }),
  TRUST_PROXY: Type.Boolean({
    default: false,
    description: 'behind a reverse proxy: take the client address from X-Forwarded-For',
  }),
  CORS_ORIGINS: Type.String({
    default: '',
    description: 'comma-separated browser origins allowed by CORS; empty: CORS off',
  }),
  OPERATOR_TOKENS: Type.String({
    default: '{}',
    description: 'JSON: operator name -> SHA-256 (hex) of their token (npm run operator:token); {}: no operator',
  }),
  OPERATOR_SESSION_SECONDS: Seconds(8 * 3600),
  TEST_CLOCK_ENABLED: Type.Boolean({
    default: false,
    description:
      'let an operator move the service clock and the local chains forward (POST /v1/test-clock/advance): the embedded stack and tests only, refused in production',
  }),
  CODEC_CORS_ORIGINS: Type.String({
    default: '',
    description: 'comma-separated origins of the Temporal UI, the only ones whose browsers may call /codec/*',
  }),
  ...PROVIDER_SETTINGS,
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, removeAdditional: true });

/** The providers' addresses: https in production (loopback aside). */
const PROVIDER_URL_SETTINGS = [
  'IDENTITY_PROVIDER_URL',
  'IDENTITY_PROVIDER_WINDOW_URL',
  'BANK_API_URL',
  'BANK_CONSENT_REDIRECT_URI',
  'ID_CARD_OCR_URL',
  'ID_CARD_CHECK_URL',
  'ID_CARD_CHECK_AUTH_URL',
  'PRICE_FEED_URL',
  'GOLD_PRICE_URL',
  'SECURITIES_API_URL',
  'CEX_API_URL',
  'CEX_UPBIT_URL',
  'CEX_BITHUMB_URL',
  'SCREENING_PROVIDER_URL',
  'TRAVEL_RULE_CODE_URL',
  'JUPITER_API_URL',
] as const;

/** Validates a subset of the schema, so a process only demands what it uses. */
export function loadConfig<K extends keyof Config>(env: NodeJS.ProcessEnv, keys: readonly K[]): Pick<Config, K> {
  const properties: Record<string, TSchema> = {};
  for (const key of keys) properties[key as string] = ConfigSchema.properties[key];
  const schema = Type.Object(properties);
  const candidate: Record<string, unknown> = {};
  for (const key of keys) {
    const value = env[key as string];
    if (value !== undefined && value !== '') candidate[key as string] = value;
  }
  const validate = ajv.compile(schema);
  if (!validate(candidate)) {
    const problems = (validate.errors ?? []).map((e) => {
      const name = e.instancePath.slice(1) || String(e.params.missingProperty ?? '');
      const what = e.keyword === 'required' ? 'is required' : e.message;
      const hint = (ConfigSchema.properties as Record<string, TSchema>)[name]?.description;
      return `${name} ${what}${hint ? ` (${hint})` : ''}`;
    });
    throw new ConfigError([...new Set(problems)]);
  }
  const cleartext = PROVIDER_URL_SETTINGS.filter(
    (key) =>
      candidate.NODE_ENV === 'production' &&
      typeof candidate[key] === 'string' &&
      /^http:\/\//.test(candidate[key] as string) &&
      !/^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/.test(candidate[key] as string),
  );
  if (cleartext.length)
    throw new ConfigError(
      cleartext.map(
        (key) =>
          `${key} must be https in production (secrets, tokens, ID-card images and account numbers travel there); http only on loopback`,
      ),
    );
  if (
    candidate.NODE_ENV === 'production' &&
    candidate.MAIL_SMTP_SECURITY === 'none' &&
    !/^(localhost|127\.\d+\.\d+\.\d+|::1)$/.test(String(candidate.MAIL_SMTP_HOST))
  ) {
    throw new ConfigError([
      'MAIL_SMTP_SECURITY=none sends mail (codes, notices) unencrypted: in production only to a relay on loopback',
    ]);
  }
  if (candidate.NODE_ENV === 'production' && candidate.TEST_CLOCK_ENABLED === true) {
    throw new ConfigError([
      'TEST_CLOCK_ENABLED must be false in production (NODE_ENV=production): a moved clock would move real limits and expiries',
    ]);
  }
  return candidate as Pick<Config, K>;
}

export const API_CONFIG_KEYS = [
  'NODE_ENV',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'API_HOST',
  'API_PORT',
  'PUBLIC_BASE_URL',
  'DATABASE_URL',
  'DATABASE_LISTEN_URL',
  'SESSION_CACHE_HEARTBEAT_SECONDS',
  'SESSION_CACHE_MAX_AGE_SECONDS',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'JWT_PRIVATE_JWK',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'ACCESS_TOKEN_TTL_SECONDS',
  'REFRESH_TOKEN_TTL_SECONDS',
  'DATA_ENCRYPTION_KEY',
  'PASS_CALLBACK_API_KEY',
  'IDENTITY_PROVIDER',
  'IDENTITY_PROVIDER_URL',
  'IDENTITY_PROVIDER_CLIENT_ID',
  'IDENTITY_PROVIDER_CLIENT_SECRET',
  'IDENTITY_PROVIDER_PRODUCT_ID',
  'IDENTITY_PROVIDER_WINDOW_URL',
  'IDENTITY_PROVIDER_APP_RETURN_URL',
  'PROVIDER_TIMEOUT_MS',
  'CHAIN_RPC_TIMEOUT_MS',
  'PASS_RESULT_WAIT_SECONDS',
  'IDEMPOTENCY_RETENTION_SECONDS',
  'IDEMPOTENCY_LOCK_SECONDS',
  'UPLOAD_MAX_BYTES',
  'JSON_BODY_MAX_BYTES',
  'REGISTRATION_TTL_SECONDS',
  'NETWORKS',
  'DEPLOY_PREPARE_TTL_SECONDS',
  'KEY_ROTATION_RETRY_WINDOW_SECONDS',
  'GAS_BUDGET_DAILY_KRW',
  'TRANSFER_SIGNER_VALIDITY_SECONDS',
  'TRANSFER_SIGNER_DAILY_CAPS',
  'DID_NETWORK_ID',
  'DID_KEY_VALIDITY_SECONDS',
  'WEBAUTHN_RP_ID',
  'WEBAUTHN_RP_NAME',
  'WEBAUTHN_ORIGINS',
  'NEW_PASSKEY_HOLD_SECONDS',
  'NEW_DEVICE_HOLD_SECONDS',
  'NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS',
  'SIGN_IN_TTL_SECONDS',
  'STEP_UP_IDENTITY_SECONDS',
  'EMAIL_CHANGE_UNDO_SECONDS',
  'RECOVERY_ADDRESS',
  'RECOVERY_DELAY_SECONDS',
  'RECOVERY_COOLDOWN_SECONDS',
  'RECOVERY_POLL_SECONDS',
  'PRICE_MAX_AGE_SECONDS',
  'PRICE_BAND_PERCENT',
  'BANK_PROVIDER',
  'BANK_API_URL',
  'BANK_CLIENT_ID',
  'BANK_CLIENT_SECRET',
  'BANK_INSTITUTION_CODE',
  'BANK_CONSENT_REDIRECT_URI',
  'BANK_CONSENT_RETURN_URIS',
  'BANK_WEBHOOK_SECRET',
  'BANK_VERIFICATION_TTL_SECONDS',
  'BANK_VERIFICATION_MAX_ATTEMPTS',
  'EMAIL_VERIFICATION_TTL_SECONDS',
  'EMAIL_VERIFICATION_MAX_ATTEMPTS',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_RETRY_INITIAL_SECONDS',
  'WEBHOOK_RETRY_MAX_SECONDS',
  'WEBHOOK_GIVE_UP_SECONDS',
  'WEBHOOK_POLL_SECONDS',
  'TRANSFER_WAIT_SECONDS',
  'TRANSFER_WORKFLOW_VERSION',
  'TRANSFER_REVIEW_AFTER_ATTEMPTS',
  'TRANSFER_LIMIT_PER_TRANSFER_KRW',
  'TRANSFER_LIMIT_DAILY_KRW',
  'TRANSFER_PASSKEY_ABOVE_KRW',
  'ADDRESS_COOLING_OFF_SECONDS',
  'PIN_ENCRYPTION_JWK',
  'PIN_MAX_ATTEMPTS',
  'PIN_LOCK_SECONDS',
  'PIN_MAX_LOCKS',
  'PRICE_FEED_PROVIDER',
  'PRICE_FEED_URL',
  'PRICE_FEED_MARKETS',
  'PRICE_FEED_KEEP_SECONDS',
  'GOLD_PRICE_PROVIDER',
  'GOLD_PRICE_URL',
  'GOLD_PRICE_AUTH_KEY',
  'SECURITIES_PROVIDER',
  'SECURITIES_API_URL',
  'SECURITIES_KIS_ENVIRONMENT',
  'CEX_API_URL',
  'CEX_UPBIT_URL',
  'CEX_BITHUMB_URL',
  'CEX_PROVIDER',
  'CEX_CLIENT_ID',
  'CEX_CLIENT_SECRET',
  'CEX_REDIRECT_URIS',
  'CHARGE_MAX_AMOUNT_KRW',
  'PAYOUT_MAX_AMOUNT_KRW',
  'PAYOUT_DAILY_LIMIT_KRW',
  'QUOTE_TTL_SECONDS',
  'QUOTE_BLOCK_CACHE_MS',
  'SWAP_DAILY_LIMIT_KRW',
  'QUOTE_SLIPPAGE_BPS',
  'QUOTE_PRICE_IMPACT_WARNING_BPS',
  'RATE_LIMITS',
  'TRUST_PROXY',
  'CORS_ORIGINS',
  'OPERATOR_TOKENS',
  'OPERATOR_SESSION_SECONDS',
  'TEST_CLOCK_ENABLED',
  'CODEC_CORS_ORIGINS',
  'SANCTIONS_LIST_MAX_AGE_HOURS',
  'JUPITER_API_URL',
  'JUPITER_API_KEY',
  'SOLANA_SWAP_MAX_FEE_LAMPORTS',
  'SCREENING_PROVIDER_URL',
  'SCREENING_PROVIDER_API_KEY',
  'SCREENING_TIMEOUT_MS',
  'TRAVEL_RULE_THRESHOLD_KRW',
  'TRAVEL_RULE_VASP_ID',
  'TRAVEL_RULE_TIMEOUT_SECONDS',
  'COMPLIANCE_RETENTION_DAYS',
  'TRAVEL_RULE_COUNTERPARTS',
  'TRAVEL_RULE_PORT',
  'TRAVEL_RULE_HOST',
  'TRAVEL_RULE_PUBLIC_URL',
  'TRAVEL_RULE_CODE_VASPS',
  'TRAVEL_RULE_VASP_NAME',
  'TRAVEL_RULE_CODE_ENTITY_ID',
  'TRAVEL_RULE_CODE_SIGNING_KEY',
  'TRAVEL_RULE_CODE_PORT',
  'TRAVEL_RULE_CODE_HOST',
  'TRAVEL_RULE_CODE_ALLOWED_IPS',
  'TRAVEL_RULE_CODE_SERVER_CERT_FILE',
  'TRAVEL_RULE_CODE_SERVER_KEY_FILE',
  'MONITORING_LARGE_KRW',
  'MONITORING_STRUCTURING_KRW',
  'MONITORING_FAN_OUT_RECIPIENTS',
  'MONITORING_NEW_RECIPIENT_MINUTES',
  'MONITORING_NEW_DEVICE_HOURS',
  ...transportKeys('IDENTITY_PROVIDER', 'BANK', 'PRICE_FEED', 'GOLD_PRICE', 'SECURITIES', 'CEX', 'TRAVEL_RULE'),
] as const;
export type ApiConfig = Pick<Config, (typeof API_CONFIG_KEYS)[number]>;

export const WORKER_CONFIG_KEYS = [
  'NODE_ENV',
  'LOG_LEVEL',
  'METRICS_PORT',
  'METRICS_HOST',
  'TEMPORAL_METRICS_PORT',
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'WORKFLOW_BUNDLE',
  'WORKER_CAPABILITIES',
  'WORKFLOW_TASK_SLOTS',
  'DATA_ENCRYPTION_KEY',
  'IDENTITY_PROVIDER_URL',
  'IDENTITY_PROVIDER_CLIENT_SECRET',
  'ID_CARD_OCR_PROVIDER',
  'ID_CARD_OCR_URL',
  'ID_CARD_OCR_SECRET',
  'PROVIDER_TIMEOUT_MS',
  'CHAIN_RPC_TIMEOUT_MS',
  'NETWORKS',
  'PAYMASTER_SIGNER_KEY',
  'GAS_BUDGET_DAILY_KRW',
  'PRICE_FEED_PROVIDER',
  'PRICE_FEED_URL',
  'PRICE_FEED_MARKETS',
  'PRICE_FEED_KEEP_SECONDS',
  'GOLD_PRICE_PROVIDER',
  'GOLD_PRICE_URL',
  'GOLD_PRICE_AUTH_KEY',
  'VC_ISSUER_KEY',
  'VC_ISSUER_NAME',
  'VC_VALIDITY_SECONDS',
  'VC_STATUS_BASE_URL',
  'DID_NETWORK_ID',
  'BANK_PROVIDER',
  'BANK_API_URL',
  'BANK_CLIENT_ID',
  'BANK_CLIENT_SECRET',
  'BANK_INSTITUTION_CODE',
  'BANK_CONTRACT_ACCOUNT_NUM',
  'BANK_CONTRACT_ACCOUNT_TYPE',
  'BANK_CONTRACT_ACCOUNT_HOLDER',
  'BANK_CONTRACT_BANK_CODE',
  'BANK_DEPOSIT_PASS_PHRASE',
  'BANK_NOT_RECEIVED_AFTER_SECONDS',
  'KEY_ENCRYPTION_KEY',
  'MAIL_PROVIDER',
  'MAIL_SMTP_HOST',
  'MAIL_SMTP_PORT',
  'MAIL_SMTP_SECURITY',
  'MAIL_SMTP_USER',
  'MAIL_SMTP_PASSWORD',
  'MAIL_FROM',
  'ID_CARD_CHECK_PROVIDER',
  'ID_CARD_CHECK_URL',
  'ID_CARD_CHECK_AUTH_URL',
  'ID_CARD_CHECK_CLIENT_ID',
  'ID_CARD_CHECK_CLIENT_SECRET',
  'RECOVERY_PRIVATE_KEY',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_TIMEOUT_MS',
  'NEW_PASSKEY_HOLD_SECONDS',
  'PRICE_MAX_AGE_SECONDS',
  'PRICE_BAND_PERCENT',
  'SANCTIONS_LIST_URL',
  'SANCTIONS_LIST_REFRESH_MINUTES',
  'SANCTIONS_LIST_MAX_AGE_HOURS',
  'SCREENING_PROVIDER_URL',
  'SCREENING_PROVIDER_API_KEY',
  'SCREENING_TIMEOUT_MS',
  'TRAVEL_RULE_VASP_ID',
  'TRAVEL_RULE_VASP_NAME',
  'TRAVEL_RULE_COUNTERPARTS',
  'TRAVEL_RULE_PUBLIC_URL',
  'TRAVEL_RULE_CODE_URL',
  'TRAVEL_RULE_CODE_ENTITY_ID',
  'TRAVEL_RULE_CODE_SIGNING_KEY',
  'TRAVEL_RULE_CODE_VASPS',
  'COMPLIANCE_RETENTION_DAYS',
  'TEST_CLOCK_ENABLED',
  'JUPITER_API_URL',
  'JUPITER_API_KEY',
  'SOLANA_SWAP_MAX_FEE_LAMPORTS',
  ...transportKeys(
    'IDENTITY_PROVIDER',
    'BANK',
    'ID_CARD_OCR',
    'ID_CARD_CHECK',
    'MAIL',
    'PRICE_FEED',
    'GOLD_PRICE',
    'TRAVEL_RULE',
  ),
] as const;
export type WorkerConfig = Pick<Config, (typeof WORKER_CONFIG_KEYS)[number]>;

/**
 * Parses the settings given as JSON (NETWORKS, RATE_LIMITS, TRANSFER_SIGNER_DAILY_CAPS, ...) at start, with the parser of each;
 * every bad one is named in one ConfigError, a line each, as loadConfig does for the others.
 */
export function parseJsonSettings<T extends Record<string, () => unknown>>(
  parsers: T,
): { [K in keyof T]: ReturnType<T[K]> } {
  const problems: string[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [name, parse] of Object.entries(parsers)) {
    try {
      parsed[name] = parse();
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length) throw new ConfigError(problems);
  return parsed as { [K in keyof T]: ReturnType<T[K]> };
}
