import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { UserEntity, EventEntity } from '../../db/entities';

/** The email step over HTTP: a code mailed through the mail provider (the sandbox's stand-in), confirmed by the user. */
describe.each(testDatabases())('email verification on $name', (kind) => {
  let stack: TestStack;
  let user: RegisteredUser;
  beforeAll(async () => {
    stack = await startTestStack(kind, { env: { EMAIL_VERIFICATION_MAX_ATTEMPTS: '3' } });
    user = await registerUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  });

  const bearer = (u: RegisteredUser) => ({ authorization: `Bearer ${u.accessToken}` });
  const requestCode = (u: RegisteredUser, email: string, headers: Record<string, string> = {}) =>
    call(`${stack.apiUrl}/v1/account/email`, { headers: { ...bearer(u), ...headers }, json: { email } });
  const confirm = (u: RegisteredUser, verificationId: string, code: string) =>
    call(`${stack.apiUrl}/v1/account/email/confirm`, { headers: bearer(u), json: { verificationId, code } });
  /** What the sandbox's mail provider delivered to an address, newest first. */
  const inbox = async (email: string): Promise<Array<{ subject: string; text: string }>> =>
    (await call(`${stack.sandboxUrl}/mail/v1/_inbox/${encodeURIComponent(email)}`)).body.messages;
  const codeIn = (message: { text: string }) => /code is (\d{6})/.exec(message.text)![1]!;
  const profile = async (u: RegisteredUser) =>
    (await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(u) })).body;

  it('shows no email until one is confirmed, mails a code once per request (a retried request mails nothing more), and then shows the address', async () => {
    const before = await profile(user);
    expect(before).toMatchObject({ email: '', emailVerified: false, emailVerifiedAt: null });

    const email = `kim.${randomUUID().slice(0, 8)}@Example.COM`;
    const key = randomUUID();
    const started = await requestCode(user, email, { 'idempotency-key': key });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ verificationId: expect.stringMatching(/^ev_/), sentTo: 'k***@example.com' });
    const retried = await requestCode(user, email, { 'idempotency-key': key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(retried.body.verificationId).toBe(started.body.verificationId);
    const delivered = await inbox(email.toLowerCase());
    expect(delivered).toHaveLength(1);
    // Nothing but the code's hash is stored; the address itself is sealed.
    const stored = await stack.orm.em
      .fork()
      .getConnection()
      .execute(`select * from email_verifications where verification_id = '${started.body.verificationId}'`);
    expect(JSON.stringify(stored)).not.toContain(codeIn(delivered[0]!));
    expect(JSON.stringify(stored).toLowerCase()).not.toContain('example.com');

    const confirmKey = randomUUID();
    const confirmed = await call(`${stack.apiUrl}/v1/account/email/confirm`, {
      headers: { ...bearer(user), 'idempotency-key': confirmKey },
      json: { verificationId: started.body.verificationId, code: codeIn(delivered[0]!) },
    });
    expect(confirmed.status).toBe(200);
    // A retry of the same confirmation (same key, the answer lost on the way) gets the same answer, not a 409.
    const replayed = await call(`${stack.apiUrl}/v1/account/email/confirm`, {
      headers: { ...bearer(user), 'idempotency-key': confirmKey },
      json: { verificationId: started.body.verificationId, code: codeIn(delivered[0]!) },
    });
    expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body]).toEqual([
      200,
      'true',
      confirmed.body,
    ]);
    expect(confirmed.body).toMatchObject({ verified: true, email: `${email.split('@')[0]}@example.com` });
    const after = await profile(user);
    expect(after).toMatchObject({
      email: `${email.split('@')[0]}@example.com`,
      emailVerified: true,
      emailVerifiedAt: confirmed.body.emailVerifiedAt,
    });
    const row = await stack.orm.em.fork().findOneOrFail(UserEntity, { id: user.userId });
    expect(row.emailSealed).not.toContain('example.com');

    const again = await confirm(user, started.body.verificationId, codeIn(delivered[0]!));
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/already-verified');
  });

  it("refuses malformed input with a pointer to the field, and another user's verification like one that does not exist", async () => {
    for (const email of ['not-an-address', 'two@@example.com', '', `${'a'.repeat(250)}@example.com`]) {
      const refused = await requestCode(user, email);
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].pointer).toBe('/email');
    }
    const extra = await call(`${stack.apiUrl}/v1/account/email`, {
      headers: bearer(user),
      json: { email: 'a@example.com', verified: true },
    });
    expect(extra.status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/account/email`, { headers: bearer(user), raw: '{"email": ' })).status).toBe(
      400,
    );
    expect((await call(`${stack.apiUrl}/v1/account/email`, { json: { email: 'a@example.com' } })).status).toBe(401);

    const other = await registerUser(stack);
    const email = `lee.${randomUUID().slice(0, 8)}@example.com`;
    const theirs = await requestCode(other, email);
    const code = codeIn((await inbox(email))[0]!);
    for (const [verificationId, badCode, status] of [
      [theirs.body.verificationId, code, 404],
      [`ev_${randomUUID()}`, '123456', 404],
      ['ev_1', '123456', 400],
      [theirs.body.verificationId, '12345', 400],
      [theirs.body.verificationId, 'abcdef', 400],
    ] as const) {
      expect((await confirm(user, verificationId, badCode)).status).toBe(status);
    }
    // The owner's verification was not spent by those attempts.
    expect((await confirm(other, theirs.body.verificationId, code)).status).toBe(200);
    expect((await profile(user)).email).not.toBe(email);
  });

  it('locks a verification after too many wrong codes (the answer counts down), and a new request starts over', async () => {
    const u = await registerUser(stack);
    const email = `park.${randomUUID().slice(0, 8)}@example.com`;
    const started = await requestCode(u, email);
    const code = codeIn((await inbox(email))[0]!);
    const wrong = code === '000000' ? '000001' : '000000';
    const first = await confirm(u, started.body.verificationId, wrong);
    expect(first.status).toBe(422);
    expect(first.body.detail).toContain('2 attempts left');
    expect((await confirm(u, started.body.verificationId, wrong)).body.detail).toContain('1 attempt left');
    expect((await confirm(u, started.body.verificationId, wrong)).body.detail).toContain('now locked');
    const locked = await confirm(u, started.body.verificationId, code);
    expect(locked.status).toBe(409);
    expect(locked.body.type).toBe('/problems/verification-locked');
    expect((await profile(u)).emailVerified).toBe(false);
    // Told once, by the request that locked it.
    const lockedEvents = await stack.orm.em.fork().find(EventEntity, { resourceId: started.body.verificationId });
    expect(lockedEvents.map((e) => [e.type, e.userId, e.data])).toEqual([
      ['email.locked', u.userId, { verificationId: started.body.verificationId }],
    ]);

    const fresh = await requestCode(u, email);
    const freshCode = codeIn((await inbox(email))[0]!);
    expect((await confirm(u, fresh.body.verificationId, freshCode)).status).toBe(200);
  });

  it('answers 503 when the mail provider keeps failing, and mails once when it recovers within the retries', async () => {
    const u = await registerUser(stack);
    const email = `choi.${randomUUID().slice(0, 8)}@example.com`;
    await call(`${stack.sandboxUrl}/_faults/mail`, { method: 'PUT', json: { failTimes: 10, status: 503 } });
    const down = await requestCode(u, email);
    expect(down.status).toBe(503);
    expect(await inbox(email)).toHaveLength(0);

    await call(`${stack.sandboxUrl}/_faults/mail`, { method: 'PUT', json: { failTimes: 1, status: 503 } });
    const flaky = await requestCode(u, email);
    expect(flaky.status).toBe(200);
    expect(await inbox(email)).toHaveLength(1);
  });
});
