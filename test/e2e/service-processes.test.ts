import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrm } from '../../db/orm';
import { ANVIL_PAYMASTER_SIGNER_KEY, ANVIL_RECOVERY_ADDRESS, ANVIL_RECOVERY_KEY } from '../../dev/chains';
import { UploadEntity, UserEntity, WalletBackupEntity } from '../../db/entities';
import { freePort } from '../helpers/global-setup';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { createTestSandbox, testJwk, testPinJwk, type TestStack } from '../helpers/stack';
import { backupBody, call, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

/** The production entry points as separate processes (npm run api / npm run worker), configured only by env. */
describe('api and worker processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-proc-'));
  const { sandbox, secrets } = createTestSandbox();
  const sandboxServer = sandbox.koa.listen(0, '127.0.0.1');
  const running: ServiceProcess[] = [];
  let env: Record<string, string>;
  let apiUrl: string;
  let sandboxUrl: string;

  beforeAll(async () => {
    await new Promise((r) => sandboxServer.once('listening', r));
    sandboxUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    sandbox.setCallbackUrl(`${apiUrl}/v1/auth/pass/callback`);
    env = {
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${join(dir, 'wallet.db')}`,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS!,
      TEMPORAL_TASK_QUEUE: `proc-${randomUUID()}`,
      JWT_PRIVATE_JWK: testJwk(),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PASS_CALLBACK_API_KEY: secrets.apiKey,
      IDENTITY_PROVIDER_URL: sandboxUrl,
      IDENTITY_PROVIDER_CLIENT_SECRET: secrets.clientSecret,
      OCR_PROVIDER_URL: sandboxUrl,
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
      VC_ISSUER_KEY: randomBytes(32).toString('base64url'),
      BANK_API_URL: sandboxUrl,
      BANK_CLIENT_SECRET: secrets.bankClientSecret,
      BANK_WEBHOOK_SECRET: secrets.bankWebhookSecret,
      PRICE_FEED_URL: sandboxUrl,
      SECURITIES_API_URL: sandboxUrl,
      SECURITIES_CLIENT_SECRET: secrets.securitiesClientSecret,
      CEX_API_URL: sandboxUrl,
      CEX_CLIENT_SECRET: secrets.cexClientSecret,
      PIN_ENCRYPTION_JWK: testPinJwk(),
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      MAIL_API_URL: sandboxUrl,
      MAIL_API_KEY: secrets.mailApiKey,
      ID_CARD_CHECK_URL: sandboxUrl,
      ID_CARD_CHECK_API_KEY: secrets.idCardCheckApiKey,
      VC_STATUS_BASE_URL: apiUrl,
      RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
      RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
      SANCTIONS_LIST_URL: `${sandboxUrl}/ofac/sdn_advanced.xml`,
      SCREENING_PROVIDER_URL: sandboxUrl,
      SCREENING_PROVIDER_API_KEY: secrets.screeningApiKey,
    };
  });
  afterAll(async () => {
    for (const service of running) service.child.kill('SIGKILL');
    await new Promise((r) => sandboxServer.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (file: string) => {
    const service = runServiceProcess(file, env);
    running.push(service);
    return service;
  };

  it('refuses to start with a clear line for each bad setting', async () => {
    const api = runServiceProcess('api/main.ts', {
      ...env,
      API_PORT: 'eighty',
      DATA_ENCRYPTION_KEY: 'short',
      JWT_PRIVATE_JWK: '',
    });
    expect(await api.exited).toBe(1);
    expect(api.output()).toContain('Invalid configuration');
    expect(api.output()).toContain('API_PORT must be integer');
    expect(api.output()).toContain('DATA_ENCRYPTION_KEY must match pattern');
    expect(api.output()).toContain('JWT_PRIVATE_JWK is required');
  });

  it('refuses to start on a database whose schema is behind the code', async () => {
    const api = runServiceProcess('api/main.ts', env);
    expect(await api.exited).toBe(1);
    expect(api.output()).toContain('run `npm run db:migrate`');
  });

  it('registers through separate processes, and survives the worker being SIGKILLed mid-registration', async () => {
    const migrate = runServiceProcess('db/migrate-cli.ts', env);
    expect(await migrate.exited).toBe(0);
    start('api/main.ts');
    let worker = start('worker/main.ts');
    await waitFor(
      async () => (await call(`${apiUrl}/readyz`).catch(() => ({ status: 0 }))).status === 200,
      60_000,
      'api ready',
    );

    const stack = { apiUrl, sandboxUrl } as TestStack;
    const person = newPerson();
    const deviceId = randomUUID();
    const { passToken } = await verifyIdentity(stack, person);
    const begin = await call(`${apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': deviceId },
      json: { passToken },
    });
    expect(begin.status).toBe(201);
    const { regId } = begin.body;

    // Slow OCR keeps the activity running; the worker dies in the middle of it.
    sandbox.faults.set('ocr', { delayMs: 2500 });
    const ekyc = call(`${apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    await new Promise((r) => setTimeout(r, 1000));
    worker.child.kill('SIGKILL');
    await worker.exited;
    sandbox.faults.clear();
    worker = start('worker/main.ts');
    const ekycResult = await ekyc;
    expect(ekycResult.status).toBe(200);
    expect(ekycResult.body.step).toBe('backup');
    // The killed attempt reached the provider; the retry reused its Idempotency-Key, so one reading was billed.
    expect((await call(`${sandboxUrl}/ocr/v1/stats`)).body.billedReadings).toBe(1);

    const backup = await call(`${apiUrl}/v1/account/register/${regId}/backup`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      json: backupBody(),
    });
    expect(backup.status).toBe(200);
    expect(backup.body.step).toBe('completed');

    const orm = await createOrm(env.DATABASE_URL!);
    const em = orm.em.fork();
    expect(await em.count(UserEntity, { regId })).toBe(1);
    expect(await em.count(WalletBackupEntity, { regId })).toBe(1);
    expect(await em.count(UploadEntity, { regId })).toBe(1);
    await orm.close();

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
