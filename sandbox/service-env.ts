import { randomBytes } from 'node:crypto';
import type { SandboxOptions } from './app';
import type { TravelRuleIdentities } from './travel-rule-network';
import { CODE_HUB_EXCHANGES } from './code-hub';

/** The service's entity id at the sandbox's CODE hub. */
export const SANDBOX_CODE_ENTITY_ID = 'wallet-sandbox';

/** Our contracted account at the sandbox's banks, its number aside: charges land in it, deposits and refunds leave it. */
export const SANDBOX_CONTRACT_ACCOUNT = { bankCode: '004', holder: '(주)월렛' };

/**
 * The credentials a sandbox and the service pointed at it share: one per provider credential, each the environment
 * variable the service reads it from (so `npm start` hands one environment to the sandbox, the API and the worker).
 */
export const SANDBOX_CREDENTIALS = {
  passCallbackApiKey: 'PASS_CALLBACK_API_KEY',
  identityClientSecret: 'IDENTITY_PROVIDER_CLIENT_SECRET',
  identityClientId: 'IDENTITY_PROVIDER_CLIENT_ID',
  bankClientId: 'BANK_CLIENT_ID',
  bankClientSecret: 'BANK_CLIENT_SECRET',
  bankInstitutionCode: 'BANK_INSTITUTION_CODE',
  bankContractAccountNum: 'BANK_CONTRACT_ACCOUNT_NUM',
  bankDepositPassPhrase: 'BANK_DEPOSIT_PASS_PHRASE',
  bankWebhookSecret: 'BANK_WEBHOOK_SECRET',
  ocrSecret: 'ID_CARD_OCR_SECRET',
  idCheckClientId: 'ID_CARD_CHECK_CLIENT_ID',
  idCheckClientSecret: 'ID_CARD_CHECK_CLIENT_SECRET',
  mailUser: 'MAIL_SMTP_USER',
  mailPassword: 'MAIL_SMTP_PASSWORD',
  cexClientId: 'CEX_CLIENT_ID',
  cexClientSecret: 'CEX_CLIENT_SECRET',
  screeningApiKey: 'SCREENING_PROVIDER_API_KEY',
  goldAuthKey: 'GOLD_PRICE_AUTH_KEY',
  codeSigningKey: 'TRAVEL_RULE_CODE_SIGNING_KEY',
  jupiterApiKey: 'JUPITER_API_KEY',
} as const;
export type SandboxCredentials = Record<keyof typeof SANDBOX_CREDENTIALS, string>;

const secret = () => randomBytes(24).toString('base64url');

/** Fresh credentials (a test stack's, the benchmark's); `npm start` keeps its own in .data/dev.env. */
export function newSandboxCredentials(): SandboxCredentials {
  return {
    passCallbackApiKey: secret(),
    identityClientSecret: secret(),
    identityClientId: randomBytes(16).toString('hex'),
    bankClientId: `wallet-${randomBytes(4).toString('hex')}`,
    bankClientSecret: secret(),
    bankInstitutionCode: `M${String(200000000 + randomBytes(3).readUIntBE(0, 3)).slice(0, 9)}`,
    bankContractAccountNum: '100000000001',
    bankDepositPassPhrase: randomBytes(32).toString('hex'),
    bankWebhookSecret: secret(),
    ocrSecret: secret(),
    idCheckClientId: `wallet-${randomBytes(4).toString('hex')}`,
    idCheckClientSecret: secret(),
    mailUser: 'wallet-service',
    mailPassword: secret(),
    cexClientId: 'wallet-service',
    cexClientSecret: secret(),
    screeningApiKey: secret(),
    goldAuthKey: secret(),
    // An Ed25519 seed: 32 bytes, base64 (CODE's form of a signing key).
    codeSigningKey: randomBytes(32).toString('base64'),
    jupiterApiKey: randomBytes(16).toString('hex'),
  };
}

/** The credentials as the environment names them. */
export const credentialsEnv = (credentials: SandboxCredentials): Record<string, string> =>
  Object.fromEntries(
    Object.entries(SANDBOX_CREDENTIALS).map(([key, env]) => [env, credentials[key as keyof SandboxCredentials]]),
  );

/** The credentials read back from an environment (the sandbox process's); a missing one is named. */
export function credentialsFromEnv(env: NodeJS.ProcessEnv): SandboxCredentials {
  const missing = Object.values(SANDBOX_CREDENTIALS).filter((name) => !env[name]);
  if (missing.length) throw new Error(`the sandbox needs ${missing.join(', ')}`);
  return Object.fromEntries(
    Object.entries(SANDBOX_CREDENTIALS).map(([key, name]) => [key, env[name]!]),
  ) as SandboxCredentials;
}

/**
 * Where the sandbox listens: its HTTP services under one URL, the mail service on an SMTP port, and its Travel Rule
 * network (the exchanges' TRAVEL_RULE_COUNTERPARTS, the service's certificate) when its exchanges listen.
 */
export interface SandboxAddress {
  url: string;
  smtpPort: number;
  travelRule?: { counterparts: string; identities: TravelRuleIdentities };
}

/**
 * The provider settings of a service pointed at a sandbox, for the API and the worker: each provider's URL as the
 * sandbox serves its real protocol, and the credentials. The same adapters a production deployment uses.
 */
export function sandboxServiceEnv(sandbox: SandboxAddress, credentials: SandboxCredentials): Record<string, string> {
  const { url } = sandbox;
  return {
    ...credentialsEnv(credentials),
    IDENTITY_PROVIDER_URL: url,
    // IDENTITY_PROVIDER=nice: the sandbox's NICE window (its API is at the root, as NICE's gateway's is).
    IDENTITY_PROVIDER_WINDOW_URL: `${url}/CheckPlusSafeModel/service.cb`,
    BANK_PROVIDER: 'kftc',
    BANK_API_URL: `${url}/kftc`,
    BANK_CONTRACT_ACCOUNT_HOLDER: SANDBOX_CONTRACT_ACCOUNT.holder,
    BANK_CONTRACT_BANK_CODE: SANDBOX_CONTRACT_ACCOUNT.bankCode,
    ID_CARD_OCR_PROVIDER: 'clova',
    ID_CARD_OCR_URL: `${url}/clova/custom/v1/1001/${credentials.ocrSecret.slice(0, 16)}/document`,
    ID_CARD_CHECK_PROVIDER: 'useb',
    ID_CARD_CHECK_URL: `${url}/useb/api`,
    ID_CARD_CHECK_AUTH_URL: `${url}/useb/auth`,
    MAIL_PROVIDER: 'smtp',
    MAIL_SMTP_HOST: '127.0.0.1',
    MAIL_SMTP_PORT: String(sandbox.smtpPort),
    // The sandbox's mail service is on loopback: no TLS (tests that exercise STARTTLS set their own).
    MAIL_SMTP_SECURITY: 'none',
    PRICE_FEED_PROVIDER: 'upbit',
    PRICE_FEED_URL: `${url}/upbit`,
    TRAVEL_RULE_CODE_URL: `${url}/code`,
    TRAVEL_RULE_CODE_ENTITY_ID: SANDBOX_CODE_ENTITY_ID,
    TRAVEL_RULE_CODE_VASPS: JSON.stringify(CODE_HUB_EXCHANGES),
    // The hub is on loopback: its Response API calls come from there.
    TRAVEL_RULE_CODE_ALLOWED_IPS: '127.0.0.1,::1',
    GOLD_PRICE_PROVIDER: 'krx',
    GOLD_PRICE_URL: `${url}/krx/svc/apis`,
    SECURITIES_PROVIDER: 'kis',
    SECURITIES_API_URL: `${url}/kis`,
    SECURITIES_KIS_ENVIRONMENT: 'mock',
    CEX_API_URL: url,
    CEX_UPBIT_URL: `${url}/upbit`,
    CEX_BITHUMB_URL: `${url}/bithumb`,
    SANCTIONS_LIST_URL: `${url}/ofac/sdn_advanced.xml`,
    SCREENING_PROVIDER_URL: url,
    JUPITER_API_URL: `${url}/jupiter/swap/v2`,
    ...(sandbox.travelRule
      ? {
          TRAVEL_RULE_COUNTERPARTS: sandbox.travelRule.counterparts,
          TRAVEL_RULE_TLS_CERT_FILE: sandbox.travelRule.identities.service.certFile,
          TRAVEL_RULE_TLS_KEY_FILE: sandbox.travelRule.identities.service.keyFile,
          TRAVEL_RULE_TLS_CA_FILE: sandbox.travelRule.identities.caFile,
        }
      : {}),
  };
}

/** The options of a sandbox for these credentials (createSandboxApp). */
export const sandboxOptionsFor = (
  credentials: SandboxCredentials,
  {
    codeServerUrl,
    ...extras
  }: Pick<SandboxOptions, 'callbackUrl' | 'mailTls' | 'log' | 'travelRule'> & {
    /** Where the service's CODE Response API listens, when known at the start. */
    codeServerUrl?: string;
  },
): SandboxOptions => ({
  ...extras,
  callbackApiKey: credentials.passCallbackApiKey,
  clientSecret: credentials.identityClientSecret,
  clientId: credentials.identityClientId,
  bank: {
    clientId: credentials.bankClientId,
    clientSecret: credentials.bankClientSecret,
    institutionCode: credentials.bankInstitutionCode,
    contractAccountNum: credentials.bankContractAccountNum,
    depositPassPhrase: credentials.bankDepositPassPhrase,
  },
  ocrSecret: credentials.ocrSecret,
  idCheck: { clientId: credentials.idCheckClientId, clientSecret: credentials.idCheckClientSecret },
  cexClientId: credentials.cexClientId,
  cexClientSecret: credentials.cexClientSecret,
  mailUser: credentials.mailUser,
  mailPassword: credentials.mailPassword,
  screeningApiKey: credentials.screeningApiKey,
  goldAuthKey: credentials.goldAuthKey,
  jupiterApiKey: credentials.jupiterApiKey,
  codeMember: {
    entityId: SANDBOX_CODE_ENTITY_ID,
    signingKey: credentials.codeSigningKey,
    ...(codeServerUrl ? { serverUrl: codeServerUrl } : {}),
  },
});
