/** `npm run sandbox`: the third-party stand-ins as their own process (the embedded stack starts it for you). */
import { loadConfig, ConfigError } from '../platform/config';
import { createSandboxApp } from './app';

try {
  const config = loadConfig(process.env, [
    'PASS_CALLBACK_API_KEY',
    'IDENTITY_PROVIDER_CLIENT_SECRET',
    'BANK_CLIENT_SECRET',
    'BANK_WEBHOOK_SECRET',
    'SECURITIES_CLIENT_SECRET',
    'CEX_CLIENT_ID',
    'CEX_CLIENT_SECRET',
    'MAIL_API_KEY',
    'ID_CARD_CHECK_API_KEY',
    'SCREENING_PROVIDER_API_KEY',
    'VASP_DIRECTORY_API_KEY',
  ]);
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  const callbackUrl = process.env.PASS_CALLBACK_URL ?? 'http://127.0.0.1:3000/v1/auth/pass/callback';
  const bankWebhookUrl = process.env.BANK_WEBHOOK_URL ?? 'http://127.0.0.1:3000/api/v1/bank/webhooks/withdrawals';
  const { koa } = createSandboxApp({
    callbackUrl,
    callbackApiKey: config.PASS_CALLBACK_API_KEY,
    clientSecret: config.IDENTITY_PROVIDER_CLIENT_SECRET,
    bankClientSecret: config.BANK_CLIENT_SECRET,
    bankWebhookSecret: config.BANK_WEBHOOK_SECRET,
    bankWebhookUrl,
    securitiesClientSecret: config.SECURITIES_CLIENT_SECRET,
    cexClientId: config.CEX_CLIENT_ID,
    cexClientSecret: config.CEX_CLIENT_SECRET,
    mailApiKey: config.MAIL_API_KEY,
    idCardCheckApiKey: config.ID_CARD_CHECK_API_KEY,
    screeningApiKey: config.SCREENING_PROVIDER_API_KEY ?? '',
    vaspDirectoryApiKey: config.VASP_DIRECTORY_API_KEY ?? '',
    log: (line) => console.log(`[sandbox] ${line}`),
  });
  koa.listen(port, '127.0.0.1', () =>
    console.log(
      `[sandbox] identity, OCR, bank, prices, securities, CEX, mail, ID-card check, OFAC list, sanctions screening, VASP directory and Travel Rule on http://127.0.0.1:${port} (callback -> ${callbackUrl})`,
    ),
  );
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
