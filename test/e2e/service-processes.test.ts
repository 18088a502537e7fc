import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createOrm } from '../../db/orm';
import { housekeepingScheduleId, sanctionsScheduleId } from '../../workflows/messages';
import { HOUSEKEEPING_EVERY_MS } from '../../worker/schedules';
import { ANVIL_PAYMASTER_SIGNER_KEY, ANVIL_RECOVERY_ADDRESS, ANVIL_RECOVERY_KEY } from '../../dev/chains';
import { UploadEntity, UserEntity, WalletBackupEntity } from '../../db/entities';
import { freePort, testNamespace } from '../helpers/global-setup';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { startTestSandbox, testJwk, testPinJwk, type TestStack } from '../helpers/stack';
import { backupBody, call, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

/** The production entry points as separate processes (npm run api / npm run worker), configured only by env. */
describe('api and worker processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-proc-'));
  let testSandbox: Awaited<ReturnType<typeof startTestSandbox>>;
  const running: ServiceProcess[] = [];
  let env: Record<string, string>;
  let apiUrl: string;
  let sandboxUrl: string;

  beforeAll(async () => {
    testSandbox = await startTestSandbox();
    sandboxUrl = testSandbox.url;
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    testSandbox.sandbox.setCallbackUrl(`${apiUrl}/v1/auth/pass/callback`);
    env = {
      ...testSandbox.env,
      LOG_LEVEL: 'warn',
      DATABASE_URL: `sqlite:${join(dir, 'wallet.db')}`,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS!,
      TEMPORAL_NAMESPACE: testNamespace(),
      TEMPORAL_TASK_QUEUE: `proc-${randomUUID()}`,
      JWT_PRIVATE_JWK: testJwk(),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
      VC_ISSUER_KEY: randomBytes(32).toString('base64url'),
      PIN_ENCRYPTION_JWK: testPinJwk(),
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      VC_STATUS_BASE_URL: apiUrl,
      RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
      RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
    };
  });
  afterAll(async () => {
    for (const service of running) service.child.kill('SIGKILL');
    await testSandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (file: string, extra: Record<string, string> = {}) => {
    const service = runServiceProcess(file, { ...env, ...extra });
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

  // The workers as docs/production.md lays them out: one process for the workflows, one for the capabilities' queues.
  const workflowsWorker = () => start('worker/main.ts', { WORKER_CAPABILITIES: 'workflows' });
  const capabilitiesWorker = () => start('worker/main.ts', { WORKER_CAPABILITIES: 'chains,bank,messaging,compliance' });

  it('registers through separate processes, the workflows and the capabilities in workers of their own, and survives the one running the OCR being SIGKILLed mid-registration', async () => {
    const migrate = runServiceProcess('db/migrate-cli.ts', env);
    expect(await migrate.exited).toBe(0);
    start('api/main.ts');
    const workflows = workflowsWorker();
    let worker = capabilitiesWorker();
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
    testSandbox.sandbox.faults.set('ocr', { delayMs: 2500 });
    const ekyc = call(`${apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    // Killed once its reading has reached the provider (which bills it even though no one takes the answer): on a busy
    // machine a fixed second was not always enough for the request to arrive (found by CI: billed once, not twice).
    await waitFor(async () => (testSandbox.sandbox.faults.get('ocr')?.calls ?? 0) >= 1, 60_000, 'the OCR reading sent');
    await new Promise((r) => setTimeout(r, 200));
    // The OCR is compliance's: the capabilities' worker runs it, and dies; the workflows' worker goes on.
    worker.child.kill('SIGKILL');
    await worker.exited;
    testSandbox.sandbox.faults.clear();
    worker = capabilitiesWorker();
    const ekycResult = await ekyc;
    expect(ekycResult.status).toBe(200);
    expect(ekycResult.body.step).toBe('backup');
    // The killed attempt reached the provider, which takes no idempotency key and bills every reading: its retry was
    // billed again (accepted, docs/providers.md). The reading is kept with the upload from then on: no third one.
    expect((await call(`${sandboxUrl}/clova/_stats`)).body.billedReadings).toBe(2);

    const backup = await call(`${apiUrl}/v1/account/register/${regId}/backup`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      json: backupBody(),
    });
    expect(backup.status).toBe(200);
    expect(backup.body.step).toBe('completed');
    expect((await call(`${sandboxUrl}/clova/_stats`)).body.billedReadings).toBe(2);

    const orm = await createOrm(env.DATABASE_URL!);
    const em = orm.em.fork();
    expect(await em.count(UserEntity, { regId })).toBe(1);
    expect(await em.count(WalletBackupEntity, { regId })).toBe(1);
    expect(await em.count(UploadEntity, { regId })).toBe(1);
    await orm.close();

    // The workflows' worker process made its schedules: the sanctions list's and the hourly housekeeping (expired
    // challenges).
    const client = new Client({
      connection: await Connection.connect({ address: env.TEMPORAL_ADDRESS! }),
      namespace: env.TEMPORAL_NAMESPACE!,
    });
    try {
      const housekeeping = await client.schedule.getHandle(housekeepingScheduleId(env.TEMPORAL_TASK_QUEUE!)).describe();
      expect([housekeeping.spec.intervals?.[0]?.every, housekeeping.action.workflowType]).toEqual([
        HOUSEKEEPING_EVERY_MS,
        'housekeepingWorkflow',
      ]);
      const sanctions = await client.schedule.getHandle(sanctionsScheduleId(env.TEMPORAL_TASK_QUEUE!)).describe();
      expect(sanctions.action.workflowType).toBe('sanctionsListRefreshWorkflow');
      for (const id of [housekeepingScheduleId, sanctionsScheduleId])
        await client.schedule.getHandle(id(env.TEMPORAL_TASK_QUEUE!)).delete();
    } finally {
      await client.connection.close();
    }

    for (const process of [worker, workflows]) {
      process.child.kill('SIGTERM');
      expect(await process.exited).toBe(0);
    }
  });
});
