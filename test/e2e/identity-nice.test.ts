import { randomUUID } from 'node:crypto';
import { IdentityRequestEntity } from '../../db/entities';
import { verifyInNiceWindow } from '../../sandbox/nice-person';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, newPerson, newPkce, registerUser, type Person } from '../helpers/http';

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

  const open = async (pkce = newPkce()) => {
    const opened = await call(`${stack.apiUrl}/v1/auth/pass/requests`, {
      json: { codeChallenge: pkce.challenge, codeChallengeMethod: 'S256' },
    });
    expect(opened.status).toBe(201);
    return {
      ...(opened.body as {
        passRequestId: string;
        expiresAt: string;
        window: { url: string; method: string; fields: Record<string, string> };
      }),
      verifier: pkce.verifier,
    };
  };
  const exchange = (passRequestId: string, code: string, codeVerifier: string) =>
    call(`${stack.apiUrl}/v1/auth/pass/requests/${passRequestId}/token`, { json: { code, codeVerifier } });
  /** Opens a verification, the person verifies in the window, the app exchanges its code: the pass token. */
  const verified = async (person: Person, outcome: 'success' | 'failure' = 'success') => {
    const opened = await open();
    const back = await verifyInNiceWindow(opened.window, { ...asPerson(person), outcome });
    expect(back.status).toBe(200);
    const issued = await exchange(opened.passRequestId, back.code!, opened.verifier);
    expect(issued.status).toBe(201);
    return { ...opened, page: back.page, passToken: issued.body.passToken as string };
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

  it('issues the pass token once, for the code of the return and the verifier of the challenge, after the result; a retry gets the same', async () => {
    const person = newPerson();
    const opened = await open();
    expect(opened.window).toMatchObject({ method: 'POST', fields: { m: 'service' } });
    expect(opened).not.toHaveProperty('passToken');
    const back = await verifyInNiceWindow(opened.window, asPerson(person));
    expect(back.status).toBe(200);
    expect(back.page).toContain('본인확인이 완료되었습니다');
    // The verifier of another challenge, or another code: nothing.
    const wrongVerifier = await exchange(opened.passRequestId, back.code!, newPkce().verifier);
    expect([wrongVerifier.status, wrongVerifier.body.type]).toEqual([400, '/problems/invalid-pass-code']);
    expect((await exchange(opened.passRequestId, 'A'.repeat(43), opened.verifier)).status).toBe(400);
    const issued = await exchange(opened.passRequestId, back.code!, opened.verifier);
    expect(issued.status).toBe(201);
    // Issued once: a retry after a lost answer gets the same token; the wrong verifier still nothing.
    const retried = await exchange(opened.passRequestId, back.code!, opened.verifier);
    expect([retried.status, retried.body.passToken]).toEqual([201, issued.body.passToken]);
    expect((await exchange(opened.passRequestId, back.code!, newPkce().verifier)).status).toBe(400);
    const started = await register(issued.body.passToken);
    expect(started.status).toBe(201);
    expect(started.body.passInfo).toMatchObject({ name: person.name });
  });

  it('passes a failed verification on as failed (pass-verification-failed)', async () => {
    const { passToken, page } = await verified(newPerson(), 'failure');
    expect(page).toContain('본인확인에 실패했습니다');
    const refused = await register(passToken);
    expect([refused.status, refused.body.type]).toEqual([422, '/problems/pass-verification-failed']);
  });

  it('routes the result of a person who has an account to a sign-in (duplicate-identity), as the callback does', async () => {
    const person = newPerson();
    await registerUser(stack, person);
    const { passToken } = await verified(person);
    const again = await register(passToken);
    expect([again.status, again.body.type]).toEqual([409, '/problems/duplicate-identity']);
    const signIn = await call(`${stack.apiUrl}/v1/auth/sign-in`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    expect(signIn.status).toBe(201);
  });

  it('refuses a challenge that is not S256 of a verifier, and a body with more', async () => {
    for (const json of [
      { codeChallenge: 'short', codeChallengeMethod: 'S256' },
      { codeChallenge: newPkce().challenge, codeChallengeMethod: 'plain' },
      { codeChallenge: newPkce().challenge, codeChallengeMethod: 'S256', passToken: 'mine' },
      {},
    ]) {
      const refused = await call(`${stack.apiUrl}/v1/auth/pass/requests`, { json });
      expect([refused.status, refused.body.type]).toEqual([400, '/problems/validation-error']);
    }
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

    it('gives nothing to whoever opened a window someone else verified in (the code goes to the browser that verified)', async () => {
      // The attacker opens a verification and lures the victim to its window (a link that posts the form); the victim
      // verifies with NICE in their own browser, which gets the code.
      const attacker = await open();
      const victim = newPerson();
      await registerUser(stack, victim);
      const back = await verifyInNiceWindow(attacker.window, asPerson(victim));
      expect(back.status).toBe(200);
      // The attacker has the verifier, not the code: no pass token; its own guesses neither.
      expect((await exchange(attacker.passRequestId, 'x'.repeat(43), attacker.verifier)).status).toBe(400);
      // Had the code leaked to the attacker with the page (a shared link), it is useless to whoever lacks the verifier,
      // and once the rightful exchange is made it is spent.
      expect((await exchange(attacker.passRequestId, back.code!, newPkce().verifier)).status).toBe(400);
      const row = await stack.orm.em.fork().findOneOrFail(IdentityRequestEntity, { id: attacker.passRequestId });
      expect(row.passTokenHash).toBeNull();
    });

    it('keeps the first result of a verification: the same return again (a reload) gives a new code and delivers nothing new', async () => {
      const person = newPerson();
      const opened = await open();
      const url = await verifiedReturn(opened.window, person);
      const first = await returnTo(url);
      expect(first.status).toBe(200);
      const firstCode = (await first.text()).match(/id="pass-code" hidden>([A-Za-z0-9_-]+)</)![1]!;
      const again = await returnTo(url);
      const code = (await again.text()).match(/id="pass-code" hidden>([A-Za-z0-9_-]+)</)![1]!;
      expect((await exchange(opened.passRequestId, firstCode, opened.verifier)).status).toBe(400);
      const issued = await exchange(opened.passRequestId, code, opened.verifier);
      expect(issued.status).toBe(201);
      // Once the pass token is issued, the return is spent.
      expect((await returnTo(url)).status).toBe(400);
      const started = await register(issued.body.passToken);
      expect(started.status).toBe(201);
      expect(started.body.passInfo).toMatchObject({ name: person.name });
    });
  });
});

describe("NICE's return sent on to the app's link (IDENTITY_PROVIDER_APP_RETURN_URL)", () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      env: { IDENTITY_PROVIDER: 'nice', IDENTITY_PROVIDER_APP_RETURN_URL: 'com.example.wallet://pass-return' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('redirects the browser to the app with passRequestId and the code, which the app exchanges', async () => {
    const pkce = newPkce();
    const opened = await call(`${stack.apiUrl}/v1/auth/pass/requests`, {
      json: { codeChallenge: pkce.challenge, codeChallengeMethod: 'S256' },
    });
    const person = newPerson();
    const back = await verifyInNiceWindow(opened.body.window, {
      name: person.name,
      birthDate: person.birthDate,
      phone: person.phone,
      residentNumber: person.residentNumber,
    });
    expect(back.status).toBe(303);
    expect(back.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const issued = await call(`${stack.apiUrl}/v1/auth/pass/requests/${opened.body.passRequestId}/token`, {
      json: { code: back.code, codeVerifier: pkce.verifier },
    });
    expect(issued.status).toBe(201);
    const user = await registerUser(stack, newPerson());
    expect(user.accessToken).toBeTruthy();
  });
});
