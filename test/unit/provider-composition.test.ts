import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { API_CONFIG_KEYS, ConfigError, WORKER_CONFIG_KEYS, loadConfig } from '../../platform/config';
import { PROVIDERS, providerTransport } from '../../platform/provider-settings';
import { createOrm, type Orm } from '../../db/orm';
import { composeWorker } from '../../worker/composition';
import { composeApi } from '../../api/composition';
import { createLogger } from '../../platform/logger';
import { newSandboxCredentials, sandboxServiceEnv } from '../../sandbox/service-env';
import { KftcOpenBanking } from '../../integrations/bank/kftc';
import { IdentityProviderClient } from '../../integrations/identity';
import { NiceIdentityWindows } from '../../api/registration/identity-windows';
import { ClovaIdCardReader } from '../../integrations/id-card/clova-ocr';
import { UsebIdCardCheck } from '../../integrations/id-card/useb';
import { SmtpMailer } from '../../integrations/mail/smtp';
import { KisOpenApi } from '../../integrations/securities/kis';
import { UpbitQuotation } from '../../integrations/prices/upbit';
import { KrxGoldPrices } from '../../integrations/prices/krx-gold';
import { ANVIL_PAYMASTER_SIGNER_KEY, ANVIL_RECOVERY_ADDRESS, ANVIL_RECOVERY_KEY } from '../../dev/chains';
import { testJwk, testPinJwk } from '../helpers/stack';
import { TestCa } from '../helpers/certificates';
import { unreachableEthereumJson } from '../helpers/networks';

/** Each port's adapters, by the value of its setting: what the composition roots must build for it. */
const ADAPTERS: Record<
  keyof typeof PROVIDERS,
  Record<string, { port: string; adapter: abstract new (...a: never[]) => unknown; api?: true }>
> = {
  // The pass tokens the registration and sign-in introspect: the callback provider's, or the service's own (NICE).
  IDENTITY_PROVIDER: {
    callback: { port: 'identity', adapter: IdentityProviderClient, api: true },
    nice: { port: 'identity', adapter: NiceIdentityWindows, api: true },
  },
  BANK_PROVIDER: { kftc: { port: 'bank', adapter: KftcOpenBanking } },
  ID_CARD_OCR_PROVIDER: { clova: { port: 'idCardReader', adapter: ClovaIdCardReader } },
  ID_CARD_CHECK_PROVIDER: { useb: { port: 'idCardCheck', adapter: UsebIdCardCheck } },
  MAIL_PROVIDER: { smtp: { port: 'mail', adapter: SmtpMailer } },
  // Read by the API only (POST /api/v1/securities/verify).
  SECURITIES_PROVIDER: { kis: { port: 'securities', adapter: KisOpenApi, api: true } },
  // The worker's won prices (PriceFeedClient) ask this market data; the API's the same.
  PRICE_FEED_PROVIDER: { upbit: { port: 'prices.source.sources.0', adapter: UpbitQuotation } },
  // Gold's, after the coins' (the sandbox's settings give it a KRX key).
  GOLD_PRICE_PROVIDER: { krx: { port: 'prices.source.sources.1', adapter: KrxGoldPrices } },
};
const keysOf = (setting: string) =>
  Object.values(ADAPTERS[setting as keyof typeof PROVIDERS]).some((a) => a.api) ? API_CONFIG_KEYS : WORKER_CONFIG_KEYS;

/**
 * Switching a provider is a settings change: the composition roots build the adapter each provider setting names
 * behind its port (every value the setting takes), refuse a value that names none, and give each adapter its own
 * deadline and TLS material from the settings under its prefix.
 */
describe('providers chosen by settings', () => {
  let orm: Orm;
  const env = (overrides: Record<string, string> = {}) => ({
    ...sandboxServiceEnv({ url: 'http://127.0.0.1:1', smtpPort: 2 }, newSandboxCredentials()),
    NODE_ENV: 'test',
    DATABASE_URL: 'sqlite::memory:',
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    JWT_PRIVATE_JWK: testJwk(),
    PIN_ENCRYPTION_JWK: testPinJwk(),
    VC_ISSUER_KEY: randomBytes(32).toString('base64url'),
    VC_STATUS_BASE_URL: 'http://127.0.0.1:3000',
    PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
    RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
    RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
    NETWORKS: unreachableEthereumJson(),
    ...overrides,
  });
  beforeAll(async () => {
    orm = await createOrm('sqlite::memory:', { migrate: true });
  });
  afterAll(async () => {
    await orm.close();
  });

  for (const [setting, values] of Object.entries(ADAPTERS))
    for (const [value, { port, adapter, api }] of Object.entries(values))
      it(`builds ${adapter.name} behind ${port} in the ${api ? 'api' : 'worker'} for ${setting}=${value}`, async () => {
        if (api) {
          const built = await composeApi(
            loadConfig(env({ [setting]: value }), API_CONFIG_KEYS),
            orm,
            createLogger({ level: 'silent', name: 'test' }),
            { connection: { close: async () => undefined } } as unknown as Client,
          );
          try {
            expect(port.split('.').reduce<any>((at, key) => at[key], built)).toBeInstanceOf(adapter);
          } finally {
            await built.close();
          }
          return;
        }
        const worker = composeWorker(loadConfig(env({ [setting]: value }), WORKER_CONFIG_KEYS), orm);
        try {
          expect(port.split('.').reduce<any>((at, key) => at[key], worker)).toBeInstanceOf(adapter);
        } finally {
          worker.close();
        }
      });

  it('lists an adapter for every value each provider setting takes', () => {
    for (const [setting, values] of Object.entries(PROVIDERS))
      expect(Object.keys(ADAPTERS[setting as keyof typeof PROVIDERS]).sort()).toEqual([...values].sort());
  });

  it('builds the bank rail the API asks (real-name inquiries, consents) from the same setting', async () => {
    const temporal = { connection: { close: async () => undefined } } as unknown as Client;
    const api = await composeApi(
      loadConfig(env(), API_CONFIG_KEYS),
      orm,
      createLogger({ level: 'silent', name: 'test' }),
      temporal,
    );
    try {
      expect(api.bank).toBeInstanceOf(KftcOpenBanking);
    } finally {
      await api.close();
    }
  });

  it('refuses at start a provider setting that names no adapter, saying which ones there are', () => {
    for (const [setting, values] of Object.entries(PROVIDERS)) {
      let error: unknown;
      try {
        loadConfig(env({ [setting]: 'acme' }), keysOf(setting));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toContain(`${setting} `);
      expect((error as ConfigError).problems.join('\n')).toContain(values.join(' | '));
    }
  });

  it('gives each provider its own deadline and certificates, and refuses a certificate without its key or a file it cannot read', () => {
    const ca = new TestCa();
    try {
      const client = ca.issue('wallet-service', { client: true });
      const files = {
        BANK_TLS_CERT_FILE: ca.write('client.pem', client.cert),
        BANK_TLS_KEY_FILE: ca.write('client.key', client.key),
        BANK_TLS_CA_FILE: ca.write('ca.pem', ca.ca.cert),
      };
      const config: Record<string, unknown> & { PROVIDER_TIMEOUT_MS: number } = {
        PROVIDER_TIMEOUT_MS: 10_000,
        BANK_TIMEOUT_MS: 3000,
        ...files,
      };
      expect(providerTransport(config, 'BANK')).toEqual({
        timeoutMs: 3000,
        tls: { cert: client.cert, key: client.key, ca: ca.ca.cert },
      });
      expect(providerTransport(config, 'ID_CARD_OCR')).toEqual({ timeoutMs: 10_000 });
      expect(() => providerTransport({ ...config, BANK_TLS_KEY_FILE: undefined }, 'BANK')).toThrow(
        /BANK_TLS_CERT_FILE and BANK_TLS_KEY_FILE go together/,
      );
      expect(() => providerTransport({ ...config, BANK_TLS_CA_FILE: '/no/such/ca.pem' }, 'BANK')).toThrow(
        'BANK_TLS_CA_FILE: cannot read /no/such/ca.pem (ENOENT)',
      );
      // At start: the worker names the setting among the bad ones and does not start.
      expect(() =>
        composeWorker(loadConfig(env({ MAIL_TLS_CA_FILE: '/no/such/ca.pem' }), WORKER_CONFIG_KEYS), orm),
      ).toThrow(ConfigError);
    } finally {
      ca.remove();
    }
  });
});
