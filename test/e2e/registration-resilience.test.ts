import { randomUUID } from 'node:crypto';
import { UploadEntity, UserEntity, WalletBackupEntity, RegistrationEntity, EventEntity } from '../../db/entities';
import { registrationWorkflowId } from '../../workflows/messages';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { backupBody, call, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

describe.each(testDatabases())('registration survives faults on $name', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    stack.faults.clear();
    await stack.startWorker();
  });

  const ocrStats = async () =>
    (await call(`${stack.sandboxUrl}/clova/_stats`)).body as { requests: number; billedReadings: number };

  it('completes once when the worker is stopped and restarted between steps, and while a step waits', async () => {
    const person = newPerson();
    const deviceId = randomUUID();
    const { passToken } = await verifyIdentity(stack, person);
    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': deviceId },
      json: { passToken },
    });
    expect(start.status).toBe(201);
    const { regId } = start.body;
    const headers = () => ({ 'idempotency-key': randomUUID(), 'x-pass-token': passToken });

    await stack.stopWorker();
    await stack.startWorker();
    const billedBefore = (await ocrStats()).billedReadings;
    const ekyc = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: headers(),
      form: idCardForm(person),
    });
    expect(ekyc.status).toBe(200);
    expect(ekyc.body.step).toBe('backup');

    // The backup call arrives while no worker runs; it completes when a new worker starts.
    await stack.stopWorker();
    const pending = call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
      headers: headers(),
      json: backupBody(),
    });
    await new Promise((r) => setTimeout(r, 1500));
    await stack.startWorker();
    const backup = await pending;
    expect(backup.status).toBe(200);
    expect(backup.body.step).toBe('completed');

    const handle = stack.temporal.workflow.getHandle(registrationWorkflowId(regId));
    expect((await handle.result()).status).toBe('completed');
    const em = stack.orm.em.fork();
    expect(await em.count(UserEntity, { regId })).toBe(1);
    expect(await em.count(WalletBackupEntity, { regId })).toBe(1);
    expect(await em.count(UploadEntity, { regId })).toBe(1);
    expect((await ocrStats()).billedReadings).toBe(billedBefore + 1);
  });

  it('retries a failing OCR provider and bills the reading once', async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person);
    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    const before = await ocrStats();
    stack.faults.set('ocr', { failTimes: 2, status: 503 });
    const ekyc = await call(`${stack.apiUrl}/v1/account/register/${start.body.regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    expect(ekyc.status).toBe(200);
    expect(ekyc.body.ocrResult.verified).toBe(true);
    const after = await ocrStats();
    expect(after.billedReadings).toBe(before.billedReadings + 1);
  });

  it('answers 502 when the identity provider is down, and starts nothing', async () => {
    const { passToken } = await verifyIdentity(stack, newPerson());
    stack.faults.set('identity', { failTimes: 1, status: 500 });
    const before = await stack.orm.em.fork().count(RegistrationEntity, {});
    const result = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    expect(result.status).toBe(502);
    expect(await stack.orm.em.fork().count(RegistrationEntity, {})).toBe(before);
  });

  it('takes the callback whether it arrives before or after the start call', async () => {
    const person = newPerson();
    // The callback is held back: the start call arrives first and waits for it.
    const { passToken } = await verifyIdentity(stack, person, { callbackDelayMs: 1000 });
    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    expect(start.status).toBe(201);
    expect(start.body.step).toBe('ekyc');
  });
});

describe('abandoned registrations', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { env: { REGISTRATION_TTL_SECONDS: '3' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('end themselves after the configured time and refuse further steps', async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person);
    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    expect(start.status).toBe(201);
    const handle = stack.temporal.workflow.getHandle(registrationWorkflowId(start.body.regId));
    expect(await handle.result()).toEqual({ status: 'expired' });
    const told = await stack.orm.em
      .fork()
      .find(EventEntity, { resourceId: start.body.regId }, { orderBy: { sequence: 'asc' } });
    expect(told.map((e) => [e.type, e.data.step])).toEqual([
      ['registration.step_changed', 'pass'],
      ['registration.step_changed', 'ekyc'],
      ['registration.expired', 'ekyc'],
    ]);
    const ekyc = await call(`${stack.apiUrl}/v1/account/register/${start.body.regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    expect(ekyc.status).toBe(410);
    expect(ekyc.body.type).toBe('/problems/registration-expired');
  });
});
