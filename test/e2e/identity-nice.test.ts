import { randomUUID } from 'node:crypto';
import { IdentityRequestEntity } from '../../db/entities';
import { verifyInNiceWindow } from '../../sandbox/nice-person';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, newPerson, registerUser, type Person } from '../helpers/http';

/**
 * IDENTITY_PROVIDER=nice end to end: the app opens a verification (POST /v1/auth/pass/requests), the person verifies
 * in the sandbox's NICE window (NICE's published protocol: crypto token, AES-128-CBC request and result, HMAC
 * integrity, EUC-KR), NICE sends the browser back to the service, and the result reaches the registration and the
 * sign-in as the callback's does. And the attacks on the return: a forged, tampered or transplanted result is refused
 * and delivers nothing.
 */
describe.each(testDatabases().slice(-1))("identity verification in NICE's window on $name", (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database, { env: { IDENTITY_PROVIDER: 'nice', PASS_RESULT_WAIT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const open = async () => {
    const opened = await call(`${stack.apiUrl}/v1/auth/pass/requests`, { method: 'POST' });
    expect(opened.status).toBe(201);
    return opened.body as {
      passRequestId: string;
      passToken: string;
      expiresAt: string;
      window: { url: string; method: string; fields: Record<string, string> };
    };
  };
  const register = (passToken: string) =>
    call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
  const asPerson = (person: Person) => ({
    name: person.name,
    birthDate: person.birthDate,
    phone: person.phone,
    residentNumber: person.residentNumber,
  });
  /** The person verifies in the window, but the browser's return is kept instead of followed. */
  const verifiedReturn = async (window: { url: string; fields: Record<string, string> }, person: Person) => {
    const page = await (await fetch(window.url, { method: 'POST', body: new URLSearchParams(window.fields) })).text();
    const session = page.match(/name="session" value="([0-9a-f]+)"/)![1]!;
    const back = await fetch(new URL('/CheckPlusSafeModel/sandbox/verify', window.url), {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ session, ...asPerson(person), gender: '1', nationalinfo: '0', mobileco: '1' }),
    });
    return new URL(back.headers.get('location')!);
  };

  it('opens a verification, takes the result from the browser, and registers the person with the pass token it issued', async () => {
    const person = newPerson();
    const user = await registerUser(stack, person);
    expect(user.accessToken).toBeTruthy();
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
    });
    expect(profile.status).toBe(200);
    expect(profile.body.profile ?? profile.body).toMatchObject({ name: person.name });
    const row = await stack.orm.em
      .fork()
      .findOneOrFail(IdentityRequestEntity, { provider: 'nice', returnedAt: { $ne: null } });
    expect(row.resultCode).toBe('0000');
    // Nothing of the verification's keys is kept in the clear.
    expect(row.seedSealed).not.toContain('tokenVal');
  });

  it('answers pass-result-pending until the person has verified, then starts the registration', async () => {
    const person = newPerson();
    const opened = await open();
    expect(opened.window).toMatchObject({ method: 'POST', fields: { m: 'service' } });
    const early = await register(opened.passToken);
    expect([early.status, early.body.type]).toEqual([409, '/problems/pass-result-pending']);
    const back = await verifyInNiceWindow(opened.window, asPerson(person));
    expect(back.status).toBe(200);
    expect(back.page).toContain('본인확인이 완료되었습니다');
    const started = await register(opened.passToken);
    expect(started.status).toBe(201);
    expect(started.body.passInfo).toMatchObject({ name: person.name });
  });

  it('passes a failed verification on as failed (pass-verification-failed)', async () => {
    const opened = await open();
    const back = await verifyInNiceWindow(opened.window, { ...asPerson(newPerson()), outcome: 'failure' });
    expect(back.status).toBe(200);
    expect(back.page).toContain('본인확인에 실패했습니다');
    const refused = await register(opened.passToken);
    expect([refused.status, refused.body.type]).toEqual([422, '/problems/pass-verification-failed']);
  });

  it('routes the result of a person who has an account to a sign-in (duplicate-identity), as the callback does', async () => {
    const person = newPerson();
    await registerUser(stack, person);
    const opened = await open();
    expect((await verifyInNiceWindow(opened.window, asPerson(person))).status).toBe(200);
    const again = await register(opened.passToken);
    expect([again.status, again.body.type]).toEqual([409, '/problems/duplicate-identity']);
    const signIn = await call(`${stack.apiUrl}/v1/auth/sign-in`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken: opened.passToken },
    });
    expect(signIn.status).toBe(201);
  });

  describe('attacks on the return', () => {
    const returnTo = (url: URL) => fetch(url, { redirect: 'manual' });
    const resultReached = async (passRequestId: string) =>
      (await stack.orm.em.fork().findOneOrFail(IdentityRequestEntity, { id: passRequestId })).returnedAt !== null;

    it('refuses a result whose enc_data was changed (the integrity value no longer holds), and delivers nothing', async () => {
      const opened = await open();
      const url = await verifiedReturn(opened.window, newPerson());
      const enc = url.searchParams.get('enc_data')!;
      url.searchParams.set('enc_data', (enc[0] === 'A' ? 'B' : 'A') + enc.slice(1));
      const answer = await returnTo(url);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { type: string }).type).toBe('/problems/invalid-identity-return');
      expect(await resultReached(opened.passRequestId)).toBe(false);
      const pending = await register(opened.passToken);
      expect(pending.body.type).toBe('/problems/pass-result-pending');
    });

    it("refuses one person's result presented for another's verification (token_version_id swapped)", async () => {
      const victim = await open();
      const attacker = await open();
      const url = await verifiedReturn(attacker.window, newPerson());
      url.searchParams.set('token_version_id', victim.window.fields.token_version_id!);
      const answer = await returnTo(url);
      expect(answer.status).toBe(400);
      expect(await resultReached(victim.passRequestId)).toBe(false);
      expect(await resultReached(attacker.passRequestId)).toBe(false);
    });

    it('refuses a result forged without the keys (a made-up integrity value), and an unknown verification', async () => {
      const opened = await open();
      const forged = new URL(`${stack.apiUrl}/v1/auth/pass/nice/return`);
      forged.searchParams.set('token_version_id', opened.window.fields.token_version_id!);
      forged.searchParams.set('enc_data', Buffer.from('{"resultcode":"0000"}').toString('base64'));
      forged.searchParams.set('integrity_value', Buffer.alloc(32).toString('base64'));
      expect((await returnTo(forged)).status).toBe(400);
      forged.searchParams.set('token_version_id', 'nope');
      expect((await returnTo(forged)).status).toBe(400);
      expect(await resultReached(opened.passRequestId)).toBe(false);
      const missing = await call(`${stack.apiUrl}/v1/auth/pass/nice/return?token_version_id=x`);
      expect(missing.status).toBe(400);
    });

    it('keeps the first result of a verification: the same return again delivers nothing new', async () => {
      const person = newPerson();
      const opened = await open();
      const url = await verifiedReturn(opened.window, person);
      expect((await returnTo(url)).status).toBe(200);
      expect((await returnTo(url)).status).toBe(200);
      const started = await register(opened.passToken);
      expect(started.status).toBe(201);
      expect(started.body.passInfo).toMatchObject({ name: person.name });
    });
  });
});
