import { loadConfig, ConfigError, API_CONFIG_KEYS } from '../../platform/config';

describe('loadConfig', () => {
  it('names every bad or missing value in one error', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({ API_PORT: '99999', DATABASE_URL: 'mysql://x', DATA_ENCRYPTION_KEY: 'short' }, API_CONFIG_KEYS);
    } catch (e) { error = e as ConfigError; }
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
