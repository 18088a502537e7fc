/** `npm run sandbox`: the third-party stand-ins as their own process (the embedded stack starts it for you). */
import { createSandboxApp } from './app';
import { credentialsFromEnv, sandboxOptionsFor } from './service-env';
import { SANDBOX_VASPS, travelRuleIdentities, type SandboxVaspId } from './travel-rule-network';

async function main(): Promise<void> {
  const port = Number(process.env.SANDBOX_PORT ?? 4010);
  const smtpPort = Number(process.env.SANDBOX_SMTP_PORT ?? 2525);
  // The Travel Rule network's exchanges: TRP on ports of their own (SANDBOX_TRP_PORT and the next), with the
  // certificates kept in SANDBOX_TRP_DIR (made there once).
  const trpPort = Number(process.env.SANDBOX_TRP_PORT ?? 4011);
  const callbackUrl = process.env.PASS_CALLBACK_URL ?? 'http://127.0.0.1:3000/v1/auth/pass/callback';
  // The same environment as the service's: each credential under the name the service reads it by.
  // CODE's hub calls the service's Response API where it listens (TRAVEL_RULE_CODE_PORT).
  const codePort = process.env.TRAVEL_RULE_CODE_PORT;
  const { koa, smtp, travelRule } = createSandboxApp(
    sandboxOptionsFor(credentialsFromEnv(process.env), {
      callbackUrl,
      travelRule: travelRuleIdentities(process.env.SANDBOX_TRP_DIR),
      log: (line) => console.log(`[sandbox] ${line}`),
      ...(codePort ? { codeServerUrl: `http://127.0.0.1:${codePort}` } : {}),
    }),
  );
  smtp.listen(smtpPort, '127.0.0.1', () => console.log(`[sandbox] mail service (SMTP) on 127.0.0.1:${smtpPort}`));
  const origins = await travelRule.listen(
    Object.fromEntries(SANDBOX_VASPS.map((v, i) => [v.id, trpPort + i])) as Record<SandboxVaspId, number>,
  );
  console.log(`[sandbox] Travel Rule exchanges (TRP, mutual TLS): ${Object.values(origins).join(', ')}`);
  koa.listen(port, '127.0.0.1', () =>
    console.log(
      `[sandbox] identity, open banking, CLOVA OCR, useB, Upbit quotations, KIS (securities), CEX, OFAC list, sanctions screening and the Travel Rule network's administration on http://127.0.0.1:${port} (callback -> ${callbackUrl})`,
    ),
  );
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
