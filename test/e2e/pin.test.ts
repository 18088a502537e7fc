import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import {
  TEST_PIN,
  call,
  cardOf,
  completeRegistration,
  newPerson,
  registerUser,
  type CompletedRegistration,
  type RegisteredUser,
} from '../helpers/http';
import { callApi } from '../helpers/bank';
import { backupReplaceRequest, encryptPin, pinChangeBody, pinChangePin, pinSetRequest } from '../helpers/pin';
import { proveIdentityCheck, startIdentityCheck, verifiedIdentityCheck } from '../helpers/identity-checks';
import { verifyOnNewDevice } from '../helpers/sign-in';
import { inbox, verifyEmail } from '../helpers/mail';
import { EventEntity, IdempotencyRecordEntity, PinApprovalEntity, UserPinEntity } from '../../db/entities';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { setClockOffset } from '../../platform/clock';
import { DataEncryption } from '../../platform/data-encryption';

describe.each(testDatabases())('transaction PIN on $name', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database, { env: { PIN_LOCK_SECONDS: '2' } });
  });
  afterAll(async () => {
    setClockOffset(0);
    await stack?.stop();
  });
  const api = (path: string, u: RegisteredUser, init: { json?: unknown; method?: string; key?: string } = {}) =>
    callApi(stack, path, u, init);
  const change = async (u: RegisteredUser, current: string, next: string) =>
    api('/api/v1/pin', u, { method: 'PUT', json: await pinChangeBody(stack, current, next) });
  const registrationPin = (reg: CompletedRegistration, body: unknown, key = randomUUID()) =>
    call(`${stack.apiUrl}/v1/account/register/${reg.regId}/pin`, {
      headers: { 'x-pass-token': reg.passToken, 'idempotency-key': key },
      json: body,
    });
  const events = (userId: string, type: string) =>
    stack.orm.em.fork().count(EventEntity, { userId, type: type as never });
  const digest = async (jwe: string) =>
    Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(jwe))).toString('base64url');

  it('sets the first PIN within the registration with its pass token, before the first token, and stores only a slow hash', async () => {
    const reg = await completeRegistration(stack);
    expect((await registrationPin(reg, { pin: '482915' })).status).toBe(400); // in clear
    expect((await registrationPin(reg, { pin: await encryptPin(stack, '123456') })).body.type).toBe(
      '/problems/weak-pin',
    );
    const stale = await encryptPin(stack, '482915', { iat: Math.floor(Date.now() / 1000) - 3600 });
    expect((await registrationPin(reg, { pin: stale })).status).toBe(422);
    expect((await registrationPin(reg, { pin: await encryptPin(stack, '4829') })).status).toBe(422);
    const tampered = (await encryptPin(stack, '482915')).replace(/\.([A-Za-z0-9_-])/, '.A$1');
    expect((await registrationPin(reg, { pin: tampered })).status).toBe(422);
    // Another registration's pass token is not this one's.
    const other = await completeRegistration(stack);
    const foreign = await call(`${stack.apiUrl}/v1/account/register/${reg.regId}/pin`, {
      headers: { 'x-pass-token': other.passToken },
      json: { pin: await encryptPin(stack, '482915') },
    });
    expect(foreign.status).toBe(403);

    const body = { pin: await encryptPin(stack, '482915') };
    const key = randomUUID();
    expect((await registrationPin(reg, body, key)).status).toBe(201);
    expect((await registrationPin(reg, body, key)).headers.get('idempotent-replayed')).toBe('true');
    expect((await registrationPin(reg, { pin: await encryptPin(stack, '482916') })).body.type).toBe(
      '/problems/pin-already-set',
    );
    const tokens = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': reg.deviceId, 'x-pass-token': reg.passToken },
      json: { grantType: 'registration', regId: reg.regId },
    });
    const user = { ...reg, pin: '482915', ...tokens.body } as RegisteredUser;
    expect((await api('/api/v1/pin', user)).body).toEqual({ pin_set: true });
    const stored = await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId });
    // A keyed hash: the row alone tests no PIN; with the service's key it is the PIN's.
    const [scheme, salt, mac] = stored.pinHash.split('$');
    expect(scheme).toBe('hmac-sha256');
    expect(mac).toBe(stack.encryption.fingerprint(`${salt}|482915`, 'pin'));
    expect(new DataEncryption(randomBytes(32).toString('base64')).fingerprint(`${salt}|482915`, 'pin')).not.toBe(mac);
    expect(stored.pinHash).not.toContain('482915');
    expect(await events(user.userId, 'pin.set')).toBe(1);

    // Once a token exists (one that could be stolen), the registration's pass token no longer sets a PIN.
    const late = await completeRegistration(stack);
    await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': late.deviceId, 'x-pass-token': late.passToken },
      json: { grantType: 'registration', regId: late.regId },
    });
    const after = await registrationPin(late, { pin: await encryptPin(stack, '482915') });
    expect([after.status, after.body.type]).toEqual([409, '/problems/registration-tokens-issued']);
  });

  it("a stolen access token sets no first PIN (it would be the thief's): only a fresh identity check of the holder with the ID card, once, told to the person", async () => {
    const victim = await registerUser(stack, undefined, { pin: null });
    const email = `pin-${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, victim, email); // with an identity check: the victim has no PIN
    const thiefsPin = await encryptPin(stack, '630517');

    // The thief holds the victim's access token only. Before the step-up policy this answered 201.
    const tokenOnly = await api('/api/v1/pin', victim, { json: { pin: thiefsPin } });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    expect(tokenOnly.body.stepUp).toEqual({ request: pinSetRequest(thiefsPin), accepts: [['identity', 'id_card']] });
    // The thief's own identity verification is not the account holder's.
    const thiefs = await verifyOnNewDevice(stack, newPerson());
    const mismatch = await startIdentityCheck(stack, victim, pinSetRequest(thiefsPin), thiefs.passToken);
    expect([mismatch.status, mismatch.body.type]).toEqual([422, '/problems/identity-mismatch']);
    // A SIM swap gives the thief the victim's own verification: without the ID card it approves nothing.
    const swapped = await startIdentityCheck(stack, victim, pinSetRequest(thiefsPin));
    expect(swapped.body).toMatchObject({ status: 'in_progress', proofs: ['id_card'] });
    const unproved = await api('/api/v1/pin', victim, {
      json: { pin: thiefsPin, identityCheckId: swapped.body.identityCheckId },
    });
    expect([unproved.status, unproved.body.type]).toEqual([409, '/problems/identity-check-not-verified']);
    expect((await api('/api/v1/pin', victim)).body).toEqual({ pin_set: false });
    expect(await events(victim.userId, 'pin.set')).toBe(0);

    // A check made for another request does not approve this one.
    const forReset = await verifiedIdentityCheck(stack, victim, {
      action: 'pin_reset',
      new_pin_sha256: 'x'.repeat(43),
    });
    const misused = await api('/api/v1/pin', victim, {
      json: { pin: await encryptPin(stack, '630517'), identityCheckId: forReset },
    });
    expect([misused.status, misused.body.type]).toEqual([422, '/problems/identity-check-not-for-this-request']);

    // The person verifies again on their phone and shows their card: the check approves this one PIN, once.
    const ownPin = await encryptPin(stack, '630517');
    const started = await startIdentityCheck(stack, victim, pinSetRequest(ownPin));
    const identityCheckId = started.body.identityCheckId;
    expect((await proveIdentityCheck(stack, victim, identityCheckId)).body).toMatchObject({
      status: 'verified',
      request: pinSetRequest(ownPin),
    });
    // Another PIN than the one the check names is refused.
    const another = await api('/api/v1/pin', victim, { json: { pin: thiefsPin, identityCheckId } });
    expect(another.body.type).toBe('/problems/identity-check-not-for-this-request');
    const set = await api('/api/v1/pin', victim, { json: { pin: ownPin, identityCheckId } });
    expect(set.status).toBe(201);
    expect(
      (await call(`${stack.apiUrl}/v1/auth/identity-checks/${identityCheckId}`, { headers: auth(victim) })).body,
    ).toMatchObject({ status: 'used' });
    expect(await events(victim.userId, 'pin.set')).toBe(1);
    await waitForMail(email, 'A PIN was set on your account');
  });

  it('refuses an identity check once it is older than STEP_UP_IDENTITY_SECONDS', async () => {
    const user = await registerUser(stack, undefined, { pin: null });
    const pin = await encryptPin(stack, '630517');
    const identityCheckId = await verifiedIdentityCheck(stack, user, pinSetRequest(pin));
    setClockOffset(301_000);
    try {
      const late = await api('/api/v1/pin', user, { json: { pin, identityCheckId } });
      expect([late.status, late.body.type]).toEqual([410, '/problems/identity-check-expired']);
    } finally {
      setClockOffset(0);
    }
    expect((await api('/api/v1/pin', user)).body).toEqual({ pin_set: false });
  });

  it('a PIN stored as scrypt (before the keyed hash) still proves itself, and is stored keyed from its first right use', async () => {
    const user = await registerUser(stack);
    const salt = randomBytes(16);
    const hash = scryptSync(TEST_PIN, salt, 32, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const legacy = `scrypt$32768$8$1$${salt.toString('base64')}$${hash.toString('base64')}`;
    await stack.orm.em.fork().nativeUpdate(UserPinEntity, { userId: user.userId }, { pinHash: legacy });
    const stored = async () =>
      (await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).pinHash;
    const replaceBackup = async (pin: string) =>
      api('/v1/account/backup', user, {
        method: 'PUT',
        key: randomUUID(),
        json: {
          ...user.backup,
          pin: await encryptPin(stack, pin, { request: await backupReplaceRequest(user.backup) }),
        },
      });
    // A wrong PIN is counted and changes nothing stored.
    expect((await replaceBackup('731904')).body.type).toBe('/problems/wrong-pin');
    expect(await stored()).toBe(legacy);
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(1);
    expect((await replaceBackup(TEST_PIN)).status).toBe(201);
    const [scheme, keyedSalt, mac] = (await stored()).split('$');
    expect(scheme).toBe('hmac-sha256');
    expect(mac).toBe(stack.encryption.fingerprint(`${keyedSalt}|${TEST_PIN}`, 'pin'));
    // The keyed row proves the same PIN and refuses another.
    expect((await replaceBackup(TEST_PIN)).status).toBe(201);
    expect((await replaceBackup('731904')).body.type).toBe('/problems/wrong-pin');
  });

  it('changes the PIN only with the current one, naming the new one, and tells the person', async () => {
    const user = await registerUser(stack);
    const email = `pin-${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, user, email);
    // Only the current PIN, naming the new one, approves a change: without it the step-up says what it must name
    // (before, 400 validation-error: nothing told the app which request to approve).
    const newPin = await encryptPin(stack, '731904');
    const tokenOnly = await api('/api/v1/pin', user, { method: 'PUT', json: { new_pin: newPin } });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    expect(tokenOnly.body.stepUp).toEqual({
      request: { action: 'pin_change', new_pin_sha256: await digest(newPin) },
      accepts: [['pin']],
    });
    expect(await events(user.userId, 'pin.changed')).toBe(0);
    expect((await change(user, TEST_PIN, '731904')).body).toEqual({ changed: true });
    expect((await change(user, TEST_PIN, '111222')).body.type).toBe('/problems/wrong-pin');
    expect((await change(user, '731904', '590382')).status).toBe(200);
    expect(await events(user.userId, 'pin.changed')).toBe(2);
    await waitForMail(email, 'Your PIN was changed');
  });

  it('resets a forgotten or locked PIN only with an identity check proved with the ID card, and tells the person', async () => {
    const user = await registerUser(stack);
    const email = `pin-${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, user, email);
    await Promise.all(Array.from({ length: 5 }, (_, i) => change(user, `90000${i}`, '590382')));
    expect((await change(user, TEST_PIN, '590382')).status).toBe(423);

    const newPin = await encryptPin(stack, '264810');
    const request = { action: 'pin_reset', new_pin_sha256: await digest(newPin) };
    const reset = (identityCheckId?: string) =>
      api('/api/v1/pin/reset', user, { json: { new_pin: newPin, ...(identityCheckId ? { identityCheckId } : {}) } });
    expect((await reset()).body.type).toBe('/problems/step-up-required');
    // The identity verification alone is not enough for a reset: the check waits for the ID card.
    const started = await startIdentityCheck(stack, user, request);
    expect(started.body).toMatchObject({ status: 'in_progress', proofs: ['id_card'] });
    const unproved = await reset(started.body.identityCheckId);
    expect([unproved.status, unproved.body.type]).toEqual([409, '/problems/identity-check-not-verified']);
    // Another person's genuine card with the same name and birth date is not the card verified at registration.
    const wrongCard = await proveIdentityCheck(stack, user, started.body.identityCheckId, {
      ...cardOf(user.person),
      idNumber: cardOf(newPerson()).idNumber,
    });
    expect([wrongCard.status, wrongCard.body.type, wrongCard.body.attemptsLeft]).toEqual([
      422,
      '/problems/id-card-mismatch',
      2,
    ]);
    const proved = await proveIdentityCheck(stack, user, started.body.identityCheckId);
    expect(proved.body).toMatchObject({ status: 'verified', proofs: [] });
    expect((await reset(started.body.identityCheckId)).status).toBe(200);
    // The lockout is over; the old PIN is gone, the new one works.
    expect((await change(user, TEST_PIN, '590382')).body.type).toBe('/problems/wrong-pin');
    expect((await change(user, '264810', '590382')).status).toBe(200);
    expect(await events(user.userId, 'pin.reset')).toBe(1);
    await waitForMail(email, 'Your PIN was reset');
  });

  it('locks after five wrong PINs, even when they arrive at once, and unlocks after the lock time', async () => {
    const user = await registerUser(stack);
    const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => change(user, `90000${i}`, '590382')));
    // Checks of one user run one at a time: exactly four are told "attempts left", the fifth locks, the rest find it locked.
    expect(guesses.filter((g) => g.status === 422)).toHaveLength(4);
    expect(guesses.filter((g) => g.status === 423)).toHaveLength(4);
    const locked = await change(user, TEST_PIN, '590382'); // the right PIN, but locked
    expect(locked.status).toBe(423);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await change(user, TEST_PIN, '590382')).status).toBe(200);
  });

  it('a thief guessing a few at a time is stopped for good at the third lock in a row, and the person is told of every lock', async () => {
    const user = await registerUser(stack);
    const email = `pin-${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, user, email);
    const guessFive = async (round: number) => {
      const answers = [];
      for (let i = 0; i < 5; i += 1) answers.push(await change(user, `9${round}000${i}`, '590382'));
      return answers.at(-1)!;
    };
    // Before, each lock ended after PIN_LOCK_SECONDS and counting started over: five guesses every lock, without end,
    // and nobody told.
    for (const round of [1, 2]) {
      const locked = await guessFive(round);
      expect([locked.status, locked.body.type]).toEqual([423, '/problems/pin-locked']);
      await waitForMail(email, 'Your PIN was locked', round);
      await new Promise((r) => setTimeout(r, 2100));
    }
    const third = await guessFive(3);
    expect([third.status, third.body.type]).toEqual([423, '/problems/pin-reset-required']);
    expect(third.headers.get('retry-after')).toBeNull();
    await waitForMail(email, 'Your PIN is locked until you reset it');
    await new Promise((r) => setTimeout(r, 2100));
    // Not even the right PIN opens it now; only a reset with an identity check and the ID card does.
    expect((await change(user, TEST_PIN, '590382')).body.type).toBe('/problems/pin-reset-required');
    expect(await events(user.userId, 'pin.locked')).toBe(3);

    const newPin = await encryptPin(stack, '264810');
    const started = await startIdentityCheck(stack, user, {
      action: 'pin_reset',
      new_pin_sha256: await digest(newPin),
    });
    expect((await proveIdentityCheck(stack, user, started.body.identityCheckId)).body.status).toBe('verified');
    const reset = await api('/api/v1/pin/reset', user, {
      json: { new_pin: newPin, identityCheckId: started.body.identityCheckId },
    });
    expect(reset.status).toBe(200);
    expect((await change(user, '264810', '590382')).status).toBe(200);
  });

  it('takes an encrypted PIN as approval of the request it names, once', async () => {
    const user = await registerUser(stack);
    const newPin = await encryptPin(stack, '590382');
    const changeWith = async (current: string, key?: string) =>
      callApi(stack, '/api/v1/pin', user, { method: 'PUT', json: { current_pin: current, new_pin: newPin }, key });
    // Not bound at all, or bound to another request (a transfer's PIN replayed as a PIN change): refused, nothing counted.
    expect((await changeWith(await encryptPin(stack, TEST_PIN))).body.type).toBe('/problems/pin-not-bound');
    const transferApproval = await encryptPin(stack, TEST_PIN, {
      request: {
        action: 'transfer',
        to_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        network: 'ETHEREUM',
        token: 'ETH',
        amount: '1',
        idempotency_key: null,
      },
    });
    const misused = await changeWith(transferApproval);
    expect([misused.status, misused.body.type]).toEqual([422, '/problems/pin-not-for-this-request']);
    expect(misused.body.detail).toContain('action');
    // A PIN change's approval names the new PIN it approves; one for another new PIN does not approve this one.
    const forOther = await pinChangePin(stack, TEST_PIN, await encryptPin(stack, '590382'));
    expect((await changeWith(forOther)).body.type).toBe('/problems/pin-not-for-this-request');
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);

    // Used once; the same JWE for another request (another Idempotency-Key, or none) is refused; the same request
    // retried with its key is answered from the first (the idempotency layer).
    const approval = await pinChangePin(stack, TEST_PIN, newPin);
    const key = randomUUID();
    expect((await changeWith(approval, key)).status).toBe(200);
    const again = await changeWith(approval, randomUUID());
    expect([again.status, again.body.type]).toEqual([409, '/problems/pin-already-used']);
    expect((await changeWith(approval)).body.type).toBe('/problems/pin-already-used');

    // A used approval is refused before its PIN is compared, so its right PIN resets no count of wrong ones; an
    // approval whose PIN was wrong is not used up (presented again, it is counted again).
    const samePin = await encryptPin(stack, '590382');
    const used = await pinChangePin(stack, '590382', samePin);
    const changeTo = (current: string, key: string) =>
      callApi(stack, '/api/v1/pin', user, { method: 'PUT', json: { current_pin: current, new_pin: samePin }, key });
    expect((await changeTo(used, randomUUID())).status).toBe(200);
    const wrong = await pinChangePin(stack, '900001', samePin);
    for (const attempt of [1, 2]) {
      const answer = await changeTo(wrong, randomUUID());
      expect([attempt, answer.status, answer.body.type]).toEqual([attempt, 422, '/problems/wrong-pin']);
    }
    const replayed = await changeTo(used, randomUUID());
    expect([replayed.status, replayed.body.type]).toEqual([409, '/problems/pin-already-used']);
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(2);
  });

  it('a captured approval replayed with its request and Idempotency-Key (its record released) undoes no count of wrong PINs', async () => {
    const user = await registerUser(stack);
    const samePin = await encryptPin(stack, TEST_PIN);
    const approval = await pinChangePin(stack, TEST_PIN, samePin);
    const changeWith = (current: string, key: string) =>
      callApi(stack, '/api/v1/pin', user, { method: 'PUT', json: { current_pin: current, new_pin: samePin }, key });
    const key = randomUUID();
    expect((await changeWith(approval, key)).status).toBe(200);
    // As a request that failed after its PIN was checked leaves it (409, 429, 5xx, a thrown problem): no record to
    // replay, so the same request with the same key runs again.
    await stack.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { scope: `user:${user.userId}` });
    for (const guess of ['900001', '900002']) {
      const wrong = await changeWith(await pinChangePin(stack, guess, samePin), randomUUID());
      expect(wrong.body.type).toBe('/problems/wrong-pin');
    }
    expect((await changeWith(approval, key)).status).toBe(200);
    // Before, the replay's right PIN (and the change it approved) ended the count: guesses between two replays were
    // never locked out.
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(2);
  });

  it('an approval captured and presented under another account (whose PIN is the same) does not use it up for its owner', async () => {
    const [owner, other] = [await registerUser(stack), await registerUser(stack)];
    const newPin = await encryptPin(stack, '731946');
    const approval = await pinChangePin(stack, TEST_PIN, newPin);
    const changeAs = (user: RegisteredUser) =>
      callApi(stack, '/api/v1/pin', user, { method: 'PUT', json: { current_pin: approval, new_pin: newPin } });
    expect((await changeAs(other)).status).toBe(200);
    expect((await changeAs(owner)).status).toBe(200);
  });

  it("keeps a used PIN approval while its JWE could be fresh; the worker's housekeeping deletes it once past", async () => {
    const user = await registerUser(stack);
    const newPin = await encryptPin(stack, '731946');
    const approval = await pinChangePin(stack, TEST_PIN, newPin);
    const used = await callApi(stack, '/api/v1/pin', user, {
      method: 'PUT',
      json: { current_pin: approval, new_pin: newPin },
    });
    expect(used.status).toBe(200);
    const approvals = () =>
      stack.orm.em.fork().find(PinApprovalEntity, { userId: user.userId }, { orderBy: { createdAt: 'asc' } });
    const [kept] = await approvals();
    expect(kept!.expiresAt.getTime()).toBeGreaterThan(Date.now()); // the request did not delete it
    const expired = `expired-${randomUUID()}`;
    await stack.orm.em.fork().insert(PinApprovalEntity, {
      jtiHash: expired,
      userId: user.userId,
      idempotencyKey: null,
      expiresAt: new Date(Date.now() - 1000),
      createdAt: new Date(Date.now() - 600_000),
    });
    await stack.temporal.workflow.execute(housekeepingWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `housekeeping-test-${randomUUID()}`,
    });
    expect((await approvals()).map((a) => a.jtiHash)).toEqual([kept!.jtiHash]);
  });

  it('an intercepted PIN change cannot be raced with another new PIN: the current PIN approves the new PIN it names only', async () => {
    const user = await registerUser(stack);
    const usersNewPin = await encryptPin(stack, '590382');
    const approval = await pinChangePin(stack, TEST_PIN, usersNewPin);
    // An attacker who sees the request in flight sends the user's approval first, with a new PIN of their own.
    const raced = await api('/api/v1/pin', user, {
      method: 'PUT',
      json: { current_pin: approval, new_pin: await encryptPin(stack, '713904') },
    });
    expect([raced.status, raced.body.type]).toEqual([422, '/problems/pin-not-for-this-request']);
    expect(raced.body.detail).toContain('new_pin_sha256');
    expect((await change(user, '713904', '246813')).body.type).toBe('/problems/wrong-pin');
    // The user's own request still goes through, and only the PIN they chose works afterwards.
    expect(
      (await api('/api/v1/pin', user, { method: 'PUT', json: { current_pin: approval, new_pin: usersNewPin } })).status,
    ).toBe(200);
    expect((await change(user, '590382', '246813')).status).toBe(200);
  });

  const auth = (u: RegisteredUser) => ({ authorization: `Bearer ${u.accessToken}` });
  /** Waits for `count` mails with this subject to the address. */
  async function waitForMail(email: string, subject: string, count = 1): Promise<void> {
    for (let i = 0; i < 100; i += 1) {
      if ((await inbox(stack, email)).filter((m) => m.subject === subject).length >= count) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no mail "${subject}" to ${email}: ${JSON.stringify(await inbox(stack, email))}`);
  }
});
