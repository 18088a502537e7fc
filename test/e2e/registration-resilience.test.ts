import { randomUUID } from 'node:crypto';
import { UploadEntity, UserEntity, WalletBackupEntity, RegistrationEntity, EventEntity } from '../../db/entities';
import { registrationWorkflowId } from '../../workflows/messages';
import { PROVIDER_REQUEST_INVALID } from '../../platform/failures';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import { backupBody, call, cardOf, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

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

  /** A registration at its eKYC step, and how to submit a card to it. */
  const atEkyc = async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person);
    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    const regId = start.body.regId as string;
    const submit = (image = makeIdCardPng(cardOf(person))) =>
      call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
        headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
        form: idCardForm(person, 'resident_id', image),
      });
    return { person, regId, submit };
  };

  it('reads an upload cut short as unreadable without asking CLOVA', async () => {
    const { person, submit } = await atEkyc();
    const before = await ocrStats();
    // Its card text comes before its pixels: whole enough for the sandbox's reader, not for a decoder.
    const ekyc = await submit(makeIdCardPng(cardOf(person)).subarray(0, -30));
    expect([ekyc.status, ekyc.body.step, ekyc.body.ocrResult?.verified]).toEqual([200, 'ekyc', false]);
    expect((await ocrStats()).requests).toBe(before.requests);
  });

  it('answers 503 at once when CLOVA refuses (0011) the body of an image that decodes: no retry, never "no card"', async () => {
    const { regId, submit } = await atEkyc();
    stack.faults.set('ocr', {
      answer: { status: 400, body: { code: '0011', message: 'Request body invalid.', path: '/id-card', traceId: 'x' } },
    });
    const refused = await submit();
    expect(refused.status).toBe(503);
    expect(refused.body.type).toMatch(/service-unavailable$/);
    // The activity failed on its first attempt, as not retryable: CLOVA was asked once.
    const { events } = await stack.temporal.workflow.getHandle(registrationWorkflowId(regId)).fetchHistory();
    const ocr = new Set(
      events!
        .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runIdCardOcr')
        .map((e) => String(e.eventId)),
    );
    const of = (id: unknown) => ocr.has(String(id));
    const started = events!.filter((e) => of(e.activityTaskStartedEventAttributes?.scheduledEventId));
    const failed = events!.filter((e) => of(e.activityTaskFailedEventAttributes?.scheduledEventId));
    expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1]);
    expect(failed.map((e) => e.activityTaskFailedEventAttributes!.failure?.applicationFailureInfo)).toEqual([
      expect.objectContaining({ type: PROVIDER_REQUEST_INVALID, nonRetryable: true }),
    ]);
    // Once the request is right again (here: CLOVA answers), the same registration goes on.
    stack.faults.clear();
    const ekyc = await submit();
    expect([ekyc.status, ekyc.body.step, ekyc.body.ocrResult?.verified]).toEqual([200, 'backup', true]);
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
