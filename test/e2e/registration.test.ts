import { randomUUID } from 'node:crypto';
import { UserEntity, WalletBackupEntity, RegistrationEntity } from '../../db/entities';
import { RegistrationStepSA, UserIdSA, registrationWorkflowId } from '../../workflows/messages';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { backupBody, call, idCardForm, newPerson, verifyIdentity } from '../helpers/http';

describe.each(testDatabases())('registration over HTTP on $name', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('registers a user end to end: start, eKYC, backup, tokens, profile, basic info', async () => {
    const person = newPerson();
    const deviceId = randomUUID();
    const { passToken } = await verifyIdentity(stack, person);

    const start = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': deviceId },
      json: { passToken },
    });
    expect(start.status).toBe(201);
    expect(start.body).toMatchObject({ step: 'ekyc', passInfo: { name: person.name, phone: person.phone } });
    expect(start.body.regId).toMatch(/^reg_[0-9a-f]{24}$/);
    expect(start.body.allSteps.map((s: { step: string }) => s.step)).toEqual(['pass', 'ekyc', 'backup', 'completed']);
    expect(new Date(start.body.passTokenExpiresAt).getTime()).toBeGreaterThan(Date.now());
    const { regId } = start.body;

    const ekyc = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    expect(ekyc.status).toBe(200);
    expect(ekyc.body).toEqual({
      step: 'backup',
      ocrResult: { name: person.name, birthDate: person.birthDate, verified: true },
    });
    // What is kept for Idempotency-Key replays and the OCR result are sealed: no name, phone or birth date in the clear.
    const stored = JSON.stringify([
      await stack.orm.em.getConnection().execute('select response_body from idempotency_records'),
      await stack.orm.em.getConnection().execute('select ocr_result from registrations where reg_id = ?', [regId]),
    ]);
    for (const personal of [person.name, person.phone, person.birthDate]) expect(stored).not.toContain(personal);

    const backup = backupBody();
    const backupStored = await call(`${stack.apiUrl}/v1/account/register/${regId}/backup`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      json: backup,
    });
    expect(backupStored.status).toBe(200);
    expect(backupStored.body).toEqual({ step: 'completed', backupId: expect.stringMatching(/^bkp_/) });

    const token = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': deviceId, 'x-pass-token': passToken },
      json: { grantType: 'registration', regId },
    });
    expect(token.status).toBe(200);
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, {
      headers: { authorization: `Bearer ${token.body.accessToken}` },
    });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({
      userId: token.body.userId,
      name: person.name,
      status: 'active',
      twoFactorMethods: [],
    });
    expect(profile.body.maskedPhone).toBe(`${person.phone.slice(0, 3)}-****-${person.phone.slice(-4)}`);

    const basicInfo = await call(`${stack.apiUrl}/api/v1/kyc/basic-info`, {
      headers: { authorization: `Bearer ${token.body.accessToken}` },
      json: {
        full_name: person.name,
        eng_surname: 'HONG',
        eng_name: 'GILDONG',
        nationality: 'KR',
        kyc_session_id: 'kyc-1',
      },
    });
    expect(basicInfo.status).toBe(200);
    expect(basicInfo.body).toEqual({
      status: 'ok',
      data: { step: 'basic_info', completed: true, vcId: expect.stringMatching(/^vc_/) },
    });

    const handle = stack.temporal.workflow.getHandle(registrationWorkflowId(regId));
    expect(await handle.result()).toEqual({ status: 'completed', userId: token.body.userId });
    const description = await handle.describe();
    expect(description.taskQueue).toBe(stack.taskQueue);
    expect(description.typedSearchAttributes.get(RegistrationStepSA)).toBe('completed');
    expect(description.typedSearchAttributes.get(UserIdSA)).toBe(token.body.userId);
    const found = await stack.temporal.workflow.count(
      `RegistrationStep = 'completed' AND UserId = '${token.body.userId}'`,
    );
    expect(found.count).toBe(1);

    const again = await call(`${stack.apiUrl}/v1/account/register/${regId}/ekyc`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': passToken },
      form: idCardForm(person),
    });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/registration-completed');
    const em = stack.orm.em.fork();
    const backups = await em.find(WalletBackupEntity, { regId });
    expect(backups).toHaveLength(1);
    expect(backups[0]!.encryptedMnemonic).toBe(backup.encryptedMnemonic);
    expect(await em.count(UserEntity, { regId })).toBe(1);
    expect((await em.findOneOrFail(RegistrationEntity, { regId })).status).toBe('completed');
  });
});
