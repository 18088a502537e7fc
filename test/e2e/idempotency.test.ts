import { randomUUID } from 'node:crypto';
import { IdempotencyRecordEntity, RegistrationEntity, UploadEntity } from '../../db/entities';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

describe.each(testDatabases())('Idempotency-Key on $name', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const registerUrl = () => `${stack.apiUrl}/v1/account/register`;

  it('returns the stored response when the same Idempotency-Key is retried', async () => {
    const { passToken } = await verifyIdentity(stack, newPerson());
    const headers = { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() };
    const first = await call(registerUrl(), { headers, json: { passToken } });
    const retry = await call(registerUrl(), { headers, json: { passToken } });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
  });

  it('answers 422 when the same key comes with another payload', async () => {
    const a = await verifyIdentity(stack, newPerson());
    const b = await verifyIdentity(stack, newPerson());
    const headers = { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() };
    expect((await call(registerUrl(), { headers, json: { passToken: a.passToken } })).status).toBe(201);
    const reused = await call(registerUrl(), { headers, json: { passToken: b.passToken } });
    expect(reused.status).toBe(422);
    expect(reused.body.type).toBe('/problems/idempotency-key-reused');
  });

  it('answers 409 to a concurrent duplicate while the first request is still running', async () => {
    // The provider's callback is slow, so the first request waits inside the workflow update.
    const { passToken } = await verifyIdentity(stack, newPerson(), { callbackDelayMs: 1500 });
    const headers = { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() };
    const first = call(registerUrl(), { headers, json: { passToken } });
    await new Promise((r) => setTimeout(r, 300));
    const duplicate = await call(registerUrl(), { headers, json: { passToken } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.type).toBe('/problems/idempotency-request-in-progress');
    expect(duplicate.headers.get('retry-after')).toBe('1');
    expect((await first).status).toBe(201);
    const replay = await call(registerUrl(), { headers, json: { passToken } });
    expect(replay.status).toBe(201);
  });

  it('never fails with a server error when duplicates race a request that fails and releases its key', async () => {
    // Found by Schemathesis: a duplicate arriving just as the first request failed (and released its key) was a 500.
    const headers = { 'idempotency-key': randomUUID(), 'x-pass-token': 'not-a-pass-token' };
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call(`${stack.apiUrl}/v1/account/register/reg_000000000000000000000000/backup`, {
          headers,
          json: { encryptedMnemonic: 'x', encryptedDerivationPaths: 'y', encryptionMethod: 'AES-256-GCM' },
        }),
      ),
    );
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(new Set(answers.map((a) => a.status))).not.toContain(200);
    // A malformed key is refused, even an empty one (found by Schemathesis: it was taken for "no key").
    expect(
      (
        await call(registerUrl(), {
          headers: { 'idempotency-key': '', 'x-device-id': randomUUID() },
          json: { passToken: 'x' },
        })
      ).status,
    ).toBe(400);
  });

  it('scopes keys to the caller: another device may use the same key', async () => {
    const key = randomUUID();
    const a = await verifyIdentity(stack, newPerson());
    const b = await verifyIdentity(stack, newPerson());
    const first = await call(registerUrl(), {
      headers: { 'idempotency-key': key, 'x-device-id': randomUUID() },
      json: { passToken: a.passToken },
    });
    const second = await call(registerUrl(), {
      headers: { 'idempotency-key': key, 'x-device-id': randomUUID() },
      json: { passToken: b.passToken },
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.regId).not.toBe(first.body.regId);
  });

  it('runs an eKYC retry once: one upload stored, one OCR reading billed', async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person);
    const start = await call(registerUrl(), {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    const { regId } = start.body;
    const before = (await call(`${stack.sandboxUrl}/clova/_stats`)).body.billedReadings;
    const headers = { 'idempotency-key': randomUUID(), 'x-pass-token': passToken };
    const first = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers,
      form: idCardForm(person),
    });
    const retry = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers,
      form: idCardForm(person),
    });
    expect(first.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(await stack.orm.em.fork().count(UploadEntity, { regId })).toBe(1);
    expect((await call(`${stack.sandboxUrl}/clova/_stats`)).body.billedReadings).toBe(before + 1);
  });

  it('lets a retry take over a key left in progress by a crashed request', async () => {
    const { passToken } = await verifyIdentity(stack, newPerson());
    const deviceId = randomUUID();
    const key = randomUUID();
    const em = stack.orm.em.fork();
    // What a process that died mid-request leaves behind: an in-progress record older than the lock.
    em.create(IdempotencyRecordEntity, {
      scope: `device:${deviceId}`,
      key,
      fingerprint: 'x',
      state: 'in_progress',
      createdAt: new Date(Date.now() - 120_000),
      expiresAt: new Date(Date.now() + 3_600_000),
    });
    await em.flush();
    const result = await call(registerUrl(), {
      headers: { 'idempotency-key': key, 'x-device-id': deviceId },
      json: { passToken },
    });
    expect(result.status).toBe(201);
    expect(await stack.orm.em.fork().count(RegistrationEntity, { regId: result.body.regId })).toBe(1);
  });
});
