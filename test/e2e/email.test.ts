import { randomUUID } from 'node:crypto';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { encryptPin, pinChangeBody } from '../helpers/pin';
import { setClockOffset } from '../../platform/clock';
import { UserEntity, EventEntity } from '../../db/entities';
import { securityNoticeWorkflowId } from '../../workflows/messages';

/** The email step over HTTP: a code mailed through the mail provider (the sandbox's stand-in), confirmed by the user. */
describe.each(testDatabases())('email verification on $name', (kind) => {
  /** A slow fault drill: on the last database only (helpers/databases.ts). */
  const drill = onLastDatabase(kind);
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
  /** The request an app sends: the address, and the user's PIN approving exactly it (the token alone cannot). */
  const emailBody = async (u: RegisteredUser, email: string) => ({
    email,
    pin: await encryptPin(stack, u.pin!, { request: { action: 'email_change', email } }),
  });
  const requestCode = async (
    u: RegisteredUser,
    email: string,
    headers: Record<string, string> = {},
    body?: Awaited<ReturnType<typeof emailBody>>,
  ) =>
    call(`${stack.apiUrl}/v1/account/email`, {
      headers: { ...bearer(u), ...headers },
      json: body ?? (await emailBody(u, email)),
    });
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
    const body = await emailBody(user, email);
    const started = await requestCode(user, email, { 'idempotency-key': key }, body);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ verificationId: expect.stringMatching(/^ev_/), sentTo: 'k***@example.com' });
    const retried = await requestCode(user, email, { 'idempotency-key': key }, body);
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
    await call(`${stack.sandboxUrl}/_faults/mail`, { method: 'PUT', json: { failTimes: 10, status: 451 } });
    const down = await requestCode(u, email);
    expect(down.status).toBe(503);
    expect(await inbox(email)).toHaveLength(0);

    await call(`${stack.sandboxUrl}/_faults/mail`, { method: 'PUT', json: { failTimes: 1, status: 451 } });
    const flaky = await requestCode(u, email);
    expect(flaky.status).toBe(200);
    expect(await inbox(email)).toHaveLength(1);
  });

  it('a stolen token cannot replace the email; a change is told to the replaced address, which gets every notice and can undo it', async () => {
    const u = await registerUser(stack);
    const owners = `owner.${randomUUID().slice(0, 8)}@example.com`;
    const thiefs = `thief.${randomUUID().slice(0, 8)}@example.com`;
    await confirmed(u, owners);

    // The thief holds the access token only: no code is mailed, nothing changes (before, this mailed the thief a code).
    const tokenOnly = await call(`${stack.apiUrl}/v1/account/email`, { headers: bearer(u), json: { email: thiefs } });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    expect(tokenOnly.body.stepUp.accepts).toEqual([['pin'], ['passkey'], ['identity', 'id_card']]);
    // A PIN approval of another address does not approve this one.
    const otherAddress = await call(`${stack.apiUrl}/v1/account/email`, {
      headers: bearer(u),
      json: { ...(await emailBody(u, owners)), email: thiefs },
    });
    expect(otherAddress.body.type).toBe('/problems/pin-not-for-this-request');
    expect(await inbox(thiefs)).toHaveLength(0);

    // The person changes it (with their PIN): the replaced address is told at once, with a code that undoes it.
    const changed = await confirmed(u, thiefs);
    expect(changed.email).toBe(thiefs);
    const change = await stack.orm.em.fork().findOneOrFail(EventEntity, { userId: u.userId, type: 'email.changed' });
    const toOld = await mailTo(owners, 'The email address of your wallet account was changed');
    const [, changeId, code] = /change (emc_[0-9a-f-]{36}) and code ([A-Za-z0-9_-]{43})/.exec(toOld.text)!;
    expect(changeId).toBe(change.resourceId);
    expect(toOld.text).not.toContain(thiefs);
    expect((await mailTo(thiefs, 'This is now the email address of your wallet account')).text).not.toContain(code!);

    // Until the change is final, every security notice goes to both addresses (a PIN change here).
    await changePin(u, u.pin!, '731904');
    await mailTo(owners, 'Your PIN was changed');
    await mailTo(thiefs, 'Your PIN was changed');

    const undo = (body: object) => call(`${stack.apiUrl}/v1/account/email/undo`, { json: body });
    const wrong = await undo({ changeId, code: `${code!.slice(0, 42)}${code!.endsWith('A') ? 'B' : 'A'}` });
    expect([wrong.status, wrong.body.type]).toEqual([401, '/problems/invalid-undo-code']);
    const undone = await undo({ changeId, code });
    expect(undone.status).toBe(200);
    expect(undone.body).toEqual({ undone: true, email: 'o***@example.com' });
    expect((await profile(u)).email).toBe(owners);
    expect((await undo({ changeId, code })).body.type).toBe('/problems/email-change-undone');
    await mailTo(owners, 'An email change of your wallet account was undone');
    // The address the change brought gets nothing more.
    const before = (await inbox(thiefs)).length;
    await changePin(u, '731904', '590382');
    await mailTo(owners, 'Your PIN was changed', 2);
    expect(await inbox(thiefs)).toHaveLength(before);
  });

  it('a new address the mail provider refuses does not keep the undo and the notices from the replaced address', async () => {
    const u = await registerUser(stack);
    const owners = `keep.${randomUUID().slice(0, 8)}@example.com`;
    const thiefs = `bounce.${randomUUID().slice(0, 8)}@example.com`;
    await confirmed(u, owners);
    const started = await requestCode(u, thiefs);
    const code = codeIn((await inbox(thiefs)).find((m) => m.subject.startsWith('Your verification code'))!);
    // The thief makes the new address bounce, so the provider refuses it from now on (as it does a suppressed
    // address). Before, the notice mailed the new address first and a refusal ended it: the replaced address never got
    // the undo code, nor any later notice.
    await call(`${stack.sandboxUrl}/_faults/mail`, {
      method: 'PUT',
      json: { errorRate: 1, status: 550, bodyIncludes: thiefs },
    });
    expect((await confirm(u, started.body.verificationId, code)).status).toBe(200);
    const toOld = await mailTo(owners, 'The email address of your wallet account was changed');
    expect(toOld.text).toMatch(/change emc_[0-9a-f-]{36} and code [A-Za-z0-9_-]{43}/);

    await changePin(u, u.pin!, '806215');
    await mailTo(owners, 'Your PIN was changed');
    // The refusal is the notice's recorded outcome, for the operator, and nothing was mailed to the refused address.
    expect((await inbox(thiefs)).filter((m) => m.subject === 'Your PIN was changed')).toHaveLength(0);
    const event = await stack.orm.em.fork().findOneOrFail(EventEntity, { userId: u.userId, type: 'pin.changed' });
    const outcome = await stack.temporal.workflow
      .getHandle(securityNoticeWorkflowId('pin.changed', event.eventId))
      .result();
    expect(outcome).toMatchObject({ mailed: true, addresses: 1, refused: ['current'] });
  });

  drill(
    'a mail provider refusing us (throttled, a wrong key) delays a notice, never drops it as a refused address',
    async () => {
      const u = await registerUser(stack);
      const email = `throttled.${randomUUID().slice(0, 8)}@example.com`;
      await confirmed(u, email);
      await call(`${stack.sandboxUrl}/_faults/mail`, {
        method: 'PUT',
        json: { failTimes: 2, status: 535, paths: ['AUTH'] },
      });
      await changePin(u, u.pin!, '640283');
      await mailTo(email, 'Your PIN was changed');
      const event = await stack.orm.em.fork().findOneOrFail(EventEntity, { userId: u.userId, type: 'pin.changed' });
      const outcome = await stack.temporal.workflow
        .getHandle(securityNoticeWorkflowId('pin.changed', event.eventId))
        .result();
      expect(outcome).toEqual({ mailed: true, eventId: event.eventId, addresses: 1 });
    },
  );

  it("takes no second change while the first can be undone, so the first one's undo still restores the person's address", async () => {
    const u = await registerUser(stack);
    const owners = `own.${randomUUID().slice(0, 8)}@example.com`;
    await confirmed(u, owners);
    const first = `t1.${randomUUID().slice(0, 8)}@example.com`;
    await confirmed(u, first);
    // A thief who changed it once cannot change it again and so silence the person's address (before: the second
    // change made the first's undo answer 409 and the person's address got nothing more).
    const second = await requestCode(u, `t2.${randomUUID().slice(0, 8)}@example.com`);
    expect([second.status, second.body.type]).toEqual([409, '/problems/email-change-pending']);
    const toOld = await mailTo(owners, 'The email address of your wallet account was changed');
    const [, changeId, code] = /change (emc_[0-9a-f-]{36}) and code ([A-Za-z0-9_-]{43})/.exec(toOld.text)!;
    const undone = await call(`${stack.apiUrl}/v1/account/email/undo`, { json: { changeId, code } });
    expect(undone.status).toBe(200);
    expect((await profile(u)).email).toBe(owners);
    // Undone, the address can change again.
    expect((await requestCode(u, `later.${randomUUID().slice(0, 8)}@example.com`)).status).toBe(200);
  });

  it('an email change can no longer be undone once EMAIL_CHANGE_UNDO_SECONDS have passed', async () => {
    const u = await registerUser(stack);
    const first = `first.${randomUUID().slice(0, 8)}@example.com`;
    await confirmed(u, first);
    await confirmed(u, `second.${randomUUID().slice(0, 8)}@example.com`);
    const toOld = await mailTo(first, 'The email address of your wallet account was changed');
    const [, changeId, code] = /change (emc_[0-9a-f-]{36}) and code ([A-Za-z0-9_-]{43})/.exec(toOld.text)!;
    setClockOffset(7 * 24 * 3600 * 1000 + 1000);
    try {
      const late = await call(`${stack.apiUrl}/v1/account/email/undo`, { json: { changeId, code } });
      expect([late.status, late.body.type]).toEqual([410, '/problems/email-change-final']);
    } finally {
      setClockOffset(0);
    }
  });

  /** Requests and confirms `email` with the user's PIN; answers the confirmation. */
  async function confirmed(u: RegisteredUser, email: string) {
    const started = await requestCode(u, email);
    expect(started.status).toBe(200);
    const code = codeIn((await inbox(email)).find((m) => m.subject.startsWith('Your verification code'))!);
    const done = await confirm(u, started.body.verificationId, code);
    expect(done.status).toBe(200);
    return done.body;
  }

  /** Changes the PIN with the current one (a security notice, mailed to every address the person has). */
  async function changePin(u: RegisteredUser, current: string, next: string) {
    const changed = await call(`${stack.apiUrl}/api/v1/pin`, {
      method: 'PUT',
      headers: bearer(u),
      json: await pinChangeBody(stack, current, next),
    });
    expect(changed.status).toBe(200);
  }

  /** The newest mail with this subject to the address, waited for (the worker mails notices), `count` of them. */
  async function mailTo(email: string, subject: string, count = 1): Promise<{ subject: string; text: string }> {
    for (let i = 0; i < 150; i += 1) {
      const found = (await inbox(email)).filter((m) => m.subject === subject);
      if (found.length >= count) return found[0]!;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no mail "${subject}" to ${email}: ${JSON.stringify((await inbox(email)).map((m) => m.subject))}`);
  }
});
