/** `npm run sandbox`: the third-party stand-ins as their own process (the embedded stack starts it for you). */
import { createSandboxApp } from './app';
import { credentialsFromEnv, sandboxOptionsFor } from './service-env';

try {
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  const smtpPort = Number(process.env.SANDBOX_SMTP_PORT ?? 2525);
  const callbackUrl = process.env.PASS_CALLBACK_URL ?? 'http://127.0.0.1:3000/v1/auth/pass/callback';
  // The same environment as the service's: each credential under the name the service reads it by.
  const { koa, smtp } = createSandboxApp(
    sandboxOptionsFor(credentialsFromEnv(process.env), {
      callbackUrl,
      log: (line) => console.log(`[sandbox] ${line}`),
    }),
  );
  smtp.listen(smtpPort, '127.0.0.1', () => console.log(`[sandbox] mail service (SMTP) on 127.0.0.1:${smtpPort}`));
  koa.listen(port, '127.0.0.1', () =>
    console.log(
      `[sandbox] identity, open banking, CLOVA OCR, useB, prices, securities, CEX, OFAC list, sanctions screening, VASP directory and Travel Rule on http://127.0.0.1:${port} (callback -> ${callbackUrl})`,
    ),
  );
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
