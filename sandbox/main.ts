/** `npm run sandbox`: the third-party stand-ins as their own process (the embedded stack starts it for you). */
import { loadConfig, ConfigError } from '../platform/config';
import { createSandboxApp } from './app';

try {
  const config = loadConfig(process.env, ['PASS_CALLBACK_API_KEY', 'IDENTITY_PROVIDER_CLIENT_SECRET']);
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  const callbackUrl = process.env.PASS_CALLBACK_URL ?? 'http://127.0.0.1:3000/v1/auth/pass/callback';
  const { koa } = createSandboxApp({
    callbackUrl, callbackApiKey: config.PASS_CALLBACK_API_KEY, clientSecret: config.IDENTITY_PROVIDER_CLIENT_SECRET,
    log: (line) => console.log(`[sandbox] ${line}`),
  });
  koa.listen(port, '127.0.0.1', () => console.log(`[sandbox] identity, OCR on http://127.0.0.1:${port} (callback -> ${callbackUrl})`));
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
