import { loadConfig, ConfigError, API_CONFIG_KEYS, type ApiConfig } from '../../platform/config';
import { DEFAULT_RATE_LIMITS, MAX_WINDOW_SECONDS, parseOverrides } from '../../api/http/rate-limits';
import { createLogger } from '../../platform/logger';
import { composeApi } from '../../api/composition';
import type { Orm } from '../../db/orm';
import { TestClockService } from '../../api/test-clock/service';

describe('loadConfig', () => {
  it('names every bad or missing value in one error', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ API_PORT: '99999', DATABASE_URL: 'mysql://x', DATA_ENCRYPTION_KEY: 'short' }, API_CONFIG_KEYS);
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.problems.join('\n');
    expect(text).toContain('API_PORT must be <= 65535');
    expect(text).toContain('DATABASE_URL must match pattern');
    expect(text).toContain('DATA_ENCRYPTION_KEY must match pattern');
    expect(text).toContain('JWT_PRIVATE_JWK is required');
    expect(text).toContain('PASS_CALLBACK_API_KEY is required');
  });

  it('applies defaults and converts numbers', () => {
    const config = loadConfig({ API_PORT: '8080' }, ['API_PORT', 'TEMPORAL_ADDRESS', 'REGISTRATION_TTL_SECONDS']);
    expect(config).toEqual({ API_PORT: 8080, TEMPORAL_ADDRESS: 'localhost:7233', REGISTRATION_TTL_SECONDS: 86400 });
  });
});

describe('the test clock setting', () => {
  it('is refused in production (NODE_ENV defaults to production), allowed in development and tests', () => {
    for (const env of [{ TEST_CLOCK_ENABLED: 'true' }, { TEST_CLOCK_ENABLED: 'true', NODE_ENV: 'production' }]) {
      expect(() => loadConfig(env, ['NODE_ENV', 'TEST_CLOCK_ENABLED'])).toThrow(
        /TEST_CLOCK_ENABLED must be false in production/,
      );
    }
    for (const NODE_ENV of ['development', 'test']) {
      expect(loadConfig({ TEST_CLOCK_ENABLED: 'true', NODE_ENV }, ['NODE_ENV', 'TEST_CLOCK_ENABLED'])).toEqual({
        NODE_ENV,
        TEST_CLOCK_ENABLED: true,
      });
    }
    expect(loadConfig({}, ['NODE_ENV', 'TEST_CLOCK_ENABLED'])).toEqual({
      NODE_ENV: 'production',
      TEST_CLOCK_ENABLED: false,
    });
  });

  it('answers 409 test-clock-disabled where it is off, touching nothing', async () => {
    const untouched = new Proxy(
      {},
      {
        get: () => {
          throw new Error('touched');
        },
      },
    ) as never;
    const service = new TestClockService({ orm: untouched, temporal: untouched, taskQueue: 'q', enabled: false });
    await expect(service.advance(60, 'qa')).rejects.toMatchObject({ status: 409, type: 'test-clock-disabled' });
    expect(await service.state()).toMatchObject({ enabled: false, offsetSeconds: 0 });
  });
});

describe('the API composition root', () => {
  it('names every bad JSON setting in one error, a line each, before it opens anything', async () => {
    const config = {
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      PROVIDER_TIMEOUT_MS: 1000,
      NETWORKS: '{"ETHEREUM":',
      TRANSFER_SIGNER_DAILY_CAPS: '{"ETH":"-1"}',
      RATE_LIMITS: '{"no-such-rule":{"points":1,"seconds":1}}',
      OPERATOR_TOKENS: '{"alice":"the token itself"}',
      TRAVEL_RULE_COUNTERPARTS: '{"vasp-partner":{"name":"Partner"}}',
      TRAVEL_RULE_CODE_VASPS: '{"code x":"Exchange"}',
    } as unknown as ApiConfig;
    const error = await composeApi(config, {} as Orm, createLogger({ level: 'silent', name: 'test' })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'NETWORKS is not valid JSON',
      expect.stringMatching(/^TRANSFER_SIGNER_DAILY_CAPS must be a JSON object/),
      expect.stringMatching(/^RATE_LIMITS: unknown rule no-such-rule/),
      'OPERATOR_TOKENS: the value for alice must be the SHA-256 (64 lowercase hex) of the token (npm run operator:token)',
      expect.stringMatching(/^TRAVEL_RULE_COUNTERPARTS: vasp-partner needs name, origin/),
      expect.stringMatching(/^TRAVEL_RULE_CODE_VASPS: code x needs a name/),
    ]);
  });
});

describe('the Travel Rule listener in production', () => {
  it('refuses to start without TRAVEL_RULE_PUBLIC_URL: our Travel Address and callbacks would name localhost', async () => {
    const config = {
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      PROVIDER_TIMEOUT_MS: 1000,
      NODE_ENV: 'production',
      TRAVEL_RULE_PORT: 8443,
      TRAVEL_RULE_COUNTERPARTS: '{}',
      NETWORKS: '{}',
      TRANSFER_SIGNER_DAILY_CAPS: '{}',
      RATE_LIMITS: '{}',
      OPERATOR_TOKENS: '{}',
    } as unknown as ApiConfig;
    const error = await composeApi(config, {} as Orm, createLogger({ level: 'silent', name: 'test' })).catch(
      (e: unknown) => e,
    );
    expect((error as ConfigError).problems).toContain(
      'TRAVEL_RULE_PUBLIC_URL is required in production with TRAVEL_RULE_PORT',
    );
  });
});

describe('rate limit windows', () => {
  it('keeps every window within what the in-process store can time (a longer Node timer fires at once)', () => {
    for (const [rule, { seconds }] of Object.entries(DEFAULT_RATE_LIMITS))
      expect([rule, seconds <= MAX_WINDOW_SECONDS]).toEqual([rule, true]);
    expect(() =>
      parseOverrides(JSON.stringify({ 'bank-account-wrong-code': { points: 10, seconds: 30 * 24 * 3600 } })),
    ).toThrow(/seconds from 1 to 2073600/);
    expect(
      parseOverrides(JSON.stringify({ 'bank-account-wrong-code': { points: 10, seconds: 24 * 24 * 3600 } })),
    ).toEqual({ 'bank-account-wrong-code': { points: 10, seconds: 2073600 } });
  });
});

describe('provider addresses', () => {
  it('must be https in production, except on loopback (found by an outside review: http was taken)', () => {
    const keys = ['NODE_ENV', 'BANK_API_URL', 'ID_CARD_OCR_URL', 'PROVIDER_TIMEOUT_MS'] as const;
    expect(() =>
      loadConfig({ BANK_API_URL: 'http://openapi.bank.example', ID_CARD_OCR_URL: 'http://ocr.example/document' }, keys),
    ).toThrow(/BANK_API_URL must be https in production[\s\S]*ID_CARD_OCR_URL must be https in production/);
    expect(
      loadConfig({ BANK_API_URL: 'http://127.0.0.1:4010/kftc', ID_CARD_OCR_URL: 'https://ocr.example/document' }, keys),
    ).toMatchObject({ BANK_API_URL: 'http://127.0.0.1:4010/kftc' });
    expect(
      loadConfig(
        { NODE_ENV: 'development', BANK_API_URL: 'http://bank.example', ID_CARD_OCR_URL: 'http://ocr.example' },
        keys,
      ),
    ).toMatchObject({ NODE_ENV: 'development' });
  });
});
