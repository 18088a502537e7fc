import { randomUUID } from 'node:crypto';
import {
  IdempotencyRecordEntity,
  RegistrationEntity,
  UploadEntity,
  UserEntity,
  WalletBackupEntity,
} from '../../db/entities';
import { registrationWorkflowId } from '../../workflows/messages';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { backupBody, call, idCardForm, newPerson, verifyIdentity, type Person } from '../helpers/http';

describe.each(testDatabases())('registration rejects bad input on $name', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const register = (passToken: string, headers: Record<string, string> = {}) =>
    call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID(), ...headers },
      json: { passToken },
    });
  const started = async (person: Person = newPerson()) => {
    const { passToken } = await verifyIdentity(stack, person);
    const result = await register(passToken);
    expect(result.status).toBe(201);
    return { person, passToken, regId: result.body.regId as string };
  };
  const registrationCount = () => stack.orm.em.fork().count(RegistrationEntity, {});

  it('answers 400 with JSON pointers when headers are missing or malformed, and stores nothing', async () => {
    const { passToken } = await verifyIdentity(stack, newPerson());
    const before = await registrationCount();
    const noKey = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'x-device-id': randomUUID() },
      json: { passToken },
    });
    expect(noKey.status).toBe(400);
    expect(noKey.headers.get('content-type')).toContain('application/problem+json');
    expect(noKey.body).toMatchObject({ type: '/problems/validation-error', status: 400 });
    expect(noKey.body.errors).toContainEqual({
      in: 'header',
      pointer: '/idempotency-key',
      detail: 'idempotency-key is required',
    });

    const badKey = await register(passToken, { 'idempotency-key': 'not-a-uuid' });
    expect(badKey.status).toBe(400);
    expect(badKey.body.errors[0]).toMatchObject({ in: 'header', pointer: '/idempotency-key' });

    const badDevice = await register(passToken, { 'x-device-id': 'a1b2c3d4-0000-1000-8000-000000000000' }); // UUIDv1, not v4
    expect(badDevice.status).toBe(400);
    expect(badDevice.body.errors[0]).toMatchObject({ in: 'header', pointer: '/x-device-id' });
    expect(await registrationCount()).toBe(before);
  });

  it('answers 400 listing every schema violation of the body', async () => {
    const result = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken: 42, extra: true },
    });
    expect(result.status).toBe(400);
    expect(result.body.errors).toEqual(
      expect.arrayContaining([
        { in: 'body', pointer: '/passToken', detail: 'must be string' },
        { in: 'body', pointer: '/extra', detail: 'extra is not allowed here' },
      ]),
    );
    const malformed = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      raw: '{"passToken":',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.type).toBe('/problems/malformed-json');
  });

  it('answers 401 for an unknown or expired pass token', async () => {
    expect((await register('no-such-token')).status).toBe(401);
    const { passToken } = await verifyIdentity(stack, newPerson(), { tokenTtlSeconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    const expired = await register(passToken);
    expect(expired.status).toBe(401);
    expect(expired.body.type).toBe('/problems/invalid-pass-token');
  });

  it('answers 422 when identity verification failed', async () => {
    const { passToken } = await verifyIdentity(stack, newPerson(), { outcome: 'failure' });
    const result = await register(passToken);
    expect(result.status).toBe(422);
    expect(result.body.type).toBe('/problems/pass-verification-failed');
  });

  it('checks X-Pass-Token: 404 for an unknown regId, 403 for a foreign token, 400 when missing', async () => {
    const mine = await started();
    const theirs = await started();
    const ekyc = (regId: string, headers: Record<string, string>) =>
      call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
        headers: { 'idempotency-key': randomUUID(), ...headers },
        form: idCardForm(mine.person),
      });
    expect((await ekyc('reg_000000000000000000000000', { 'x-pass-token': mine.passToken })).status).toBe(404);
    expect((await ekyc('not-a-reg-id', { 'x-pass-token': mine.passToken })).status).toBe(400);
    const foreign = await ekyc(mine.regId, { 'x-pass-token': theirs.passToken });
    expect(foreign.status).toBe(403);
    const missing = await ekyc(mine.regId, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toMatchObject({ in: 'header', pointer: '/x-pass-token' });
    expect(await stack.orm.em.fork().count(UploadEntity, { regId: mine.regId })).toBe(0);
  });

  it("checks X-Pass-Token before it reads the body: a foreign or missing token gets its answer, not the image's", async () => {
    const mine = await started();
    const theirs = await started();
    const url = `${stack.apiUrl}/v1/account/register/${mine.regId}/uploads`;
    const oversized = () =>
      idCardForm(mine.person, 'resident_id', makeIdCardPng(mine.person, stack.config.UPLOAD_MAX_BYTES + 1));
    // Were the multipart body parsed first, each of these would be 413 (the image is over the limit).
    expect((await call(url, { headers: { 'x-pass-token': theirs.passToken }, form: oversized() })).status).toBe(403);
    expect((await call(url, { headers: {}, form: oversized() })).status).toBe(400);
    expect((await call(url, { headers: { 'x-pass-token': mine.passToken }, form: oversized() })).status).toBe(413);
  });

  it('answers 401 once the pass token has expired mid-registration', async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person, { tokenTtlSeconds: 2 });
    const start = await register(passToken);
    expect(start.status).toBe(201);
    await new Promise((r) => setTimeout(r, 2100));
    const result = await call(`${stack.apiUrl}/v1/account/register/${start.body.regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    expect(result.status).toBe(401);
    expect(result.body.type).toBe('/problems/pass-token-expired');
  });

  it('answers 413 for an image over the limit and 415 for a file that is not an image', async () => {
    const { person, passToken, regId } = await started();
    const url = `${stack.apiUrl}/v1/account/register/${regId}/ekyc`;
    const big = await call(url, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person, 'resident_id', makeIdCardPng(person, stack.config.UPLOAD_MAX_BYTES + 1)),
    });
    expect(big.status).toBe(413);
    const text = new FormData();
    text.set('idCardType', 'resident_id');
    text.set('idCardImage', new Blob(['just text, not an image'], { type: 'image/png' }), 'card.png');
    const notImage = await call(url, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: text,
    });
    expect(notImage.status).toBe(415);
    const wrongType = await call(url, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken, 'content-type': 'text/plain' },
      raw: 'hello',
    });
    expect(wrongType.status).toBe(415);
    expect(await stack.orm.em.fork().count(UploadEntity, { regId })).toBe(0);
  });

  it('answers 409 for a step out of order and changes nothing', async () => {
    const { passToken, regId } = await started();
    const backup = await call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      json: backupBody(),
    });
    expect(backup.status).toBe(409);
    expect(backup.body.type).toBe('/problems/step-out-of-order');
    const status = await call(`${stack.apiUrl}/v1/account/register/${regId}`, {
      headers: { 'x-pass-token': passToken },
    });
    expect(status.body).toMatchObject({ step: 'ekyc', status: 'in_progress' });
  });

  it('answers 409 to a second eKYC once the step has passed, storing no image', async () => {
    const { person, passToken, regId } = await started();
    const ekyc = () =>
      call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
        headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
        form: idCardForm(person),
      });
    expect((await ekyc()).status).toBe(200);
    const second = await ekyc();
    expect(second.status).toBe(409);
    expect(second.body.type).toBe('/problems/step-out-of-order');
    expect(await stack.orm.em.fork().count(UploadEntity, { regId })).toBe(1);
  });

  it('answers a step sent again after its answer was lost with that answer, doing nothing twice', async () => {
    const { person, passToken, regId } = await started();
    // The API process that ran a step died before recording its answer: the Idempotency-Key record is gone.
    const answerLost = () => stack.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { scope: `reg:${regId}` });
    const ekycKey = randomUUID();
    const ekyc = () =>
      call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
        headers: { 'idempotency-key': ekycKey, 'x-pass-token': passToken },
        form: idCardForm(person),
      });
    const first = await ekyc();
    expect(first.status).toBe(200);
    await answerLost();
    const again = await ekyc();
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await stack.orm.em.fork().count(UploadEntity, { regId })).toBe(1);

    const backupKey = randomUUID();
    const body = backupBody();
    const backup = () =>
      call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
        headers: { 'idempotency-key': backupKey, 'x-pass-token': passToken },
        json: body,
      });
    const stored = await backup();
    expect(stored.status).toBe(200);
    await answerLost();
    const repeated = await backup();
    expect(repeated.status).toBe(200);
    expect(repeated.body).toEqual(stored.body);
    expect(await stack.orm.em.fork().count(WalletBackupEntity, { regId })).toBe(1);
    expect(await stack.orm.em.fork().count(UserEntity, { regId })).toBe(1);
    // Another request (another key) is not a repeat: refused as before, also once the workflow has closed.
    await stack.temporal.workflow.getHandle(registrationWorkflowId(regId)).result();
    const other = await call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      json: backupBody(),
    });
    expect(other.status).toBe(409);
    expect(other.body.type).toBe('/problems/registration-completed');
    await answerLost();
    expect((await backup()).body).toEqual(stored.body);
    const lateEkyc = await ekyc();
    expect(lateEkyc.body).toEqual(first.body);
  });

  it('takes eKYC as JSON with an uploadRef, and refuses an uploadRef of another registration', async () => {
    const mine = await started();
    const theirs = await started();
    const upload = async (who: typeof mine) => {
      const form = idCardForm(who.person);
      form.delete('idCardType');
      return call(`${stack.apiUrl}/v1/account/register/${who.regId}/uploads`, {
        headers: { 'x-pass-token': who.passToken },
        form,
      });
    };
    const theirUpload = await upload(theirs);
    expect(theirUpload.status).toBe(201);
    const foreign = await call(`${stack.apiUrl}/v1/account/register/${mine.regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': mine.passToken },
      json: { uploadRef: theirUpload.body.uploadRef, idCardType: 'resident_id' },
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.type).toBe('/problems/upload-not-found');

    const myUpload = await upload(mine);
    expect(myUpload.body).toMatchObject({ uploadRef: expect.stringMatching(/^upl_/), contentType: 'image/png' });
    const ekyc = await call(`${stack.apiUrl}/v1/account/register/${mine.regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': mine.passToken },
      json: { uploadRef: myUpload.body.uploadRef, idCardType: 'resident_id' },
    });
    expect(ekyc.status).toBe(200);
    expect(ekyc.body).toMatchObject({ step: 'backup', ocrResult: { verified: true } });
    const stored = await stack.orm.em.fork().findOneOrFail(UploadEntity, { id: myUpload.body.uploadRef });
    expect(Buffer.from(stored.dataSealed).includes(Buffer.from(mine.person.name))).toBe(false); // encrypted at rest
  });

  it('keeps the step at ekyc when the card does not match the verified identity', async () => {
    const { person, passToken, regId } = await started();
    const result = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person, 'resident_id', makeIdCardPng({ name: '김철수', birthDate: person.birthDate })),
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      step: 'ekyc',
      ocrResult: { name: '김철수', birthDate: person.birthDate, verified: false },
    });
  });

  it('refuses the callback with a bad API key and acknowledges a repeated one without acting twice', async () => {
    const bad = await call(`${stack.apiUrl}/v1/auth/pass/callback`, {
      headers: { 'x-api-key': 'wrong-key-wrong-key' },
      json: { passRequestId: 'pr_x', success: true },
    });
    expect(bad.status).toBe(401);
    const { passRequestId, regId, passToken } = await (async () => {
      const person = newPerson();
      const verification = await verifyIdentity(stack, person);
      const start = await register(verification.passToken);
      return { ...verification, regId: start.body.regId as string };
    })();
    const repeat = await call(`${stack.sandboxUrl}/pass/v1/verifications/${passRequestId}/callback`, {
      method: 'POST',
    });
    expect(repeat.body.status).toBe(200);
    const status = await call(`${stack.apiUrl}/v1/account/register/${regId}`, {
      headers: { 'x-pass-token': passToken },
    });
    expect(status.body.step).toBe('ekyc');
    expect(await stack.orm.em.fork().count(RegistrationEntity, { regId })).toBe(1);
  });

  it('lets one person hold one account: a second registration with the same identity is refused', async () => {
    const person = newPerson();
    const first = await (async () => {
      const { passToken } = await verifyIdentity(stack, person);
      const start = await register(passToken);
      const regId = start.body.regId;
      await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
        headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
        form: idCardForm(person),
      });
      return call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
        headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
        json: backupBody(),
      });
    })();
    expect(first.status).toBe(200);
    const { passToken } = await verifyIdentity(stack, person);
    const second = await register(passToken);
    expect(second.status).toBe(409);
    expect(second.body.type).toBe('/problems/duplicate-identity');
    expect(await stack.orm.em.fork().count(UserEntity, {})).toBeGreaterThanOrEqual(1);
  });
});
