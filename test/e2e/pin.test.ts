import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { encryptPin, pinChangeBody, pinChangePin } from '../helpers/pin';
import { UserPinEntity } from '../../db/entities';

describe.each(testDatabases())('transaction PIN on %s', (database) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(database, { env: { PIN_LOCK_SECONDS: '2' } });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  const api = (path: string, u: RegisteredUser, init: { json?: unknown; method?: string } = {}) =>
    callApi(stack, path, u, init);
  const change = async (u: RegisteredUser, current: string, next: string) =>
    api('/api/v1/pin', u, { method: 'PUT', json: await pinChangeBody(stack, current, next) });

  it('sets a PIN sent encrypted, stores only a slow hash, and changes it with the current one', async () => {
    const user = await registerUser(stack);
    expect((await api('/api/v1/pin', user)).body).toEqual({ pin_set: false });
    expect((await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '123456') } })).body.type).toBe(
      '/problems/weak-pin',
    );
    const setBody = { pin: await encryptPin(stack, '482915') };
    const key = randomUUID();
    const set = () => callApi(stack, '/api/v1/pin', user, { json: setBody, key });
    expect((await set()).status).toBe(201);
    expect((await set()).headers.get('idempotent-replayed')).toBe('true'); // a retry of the same request, not a second PIN
    expect((await api('/api/v1/pin', user)).body).toEqual({ pin_set: true });
    expect((await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '482916') } })).status).toBe(409);
    const stored = await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId });
    expect(stored.pinHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored.pinHash).not.toContain('482915');

    expect((await change(user, '482915', '731904')).body).toEqual({ changed: true });
    expect((await change(user, '482915', '111222')).body.type).toBe('/problems/wrong-pin');
    expect((await change(user, '731904', '590382')).status).toBe(200);
  });

  it('refuses PINs in clear, stale or malformed encryptions', async () => {
    const user = await registerUser(stack);
    expect((await api('/api/v1/pin', user, { json: { pin: '482915' } })).status).toBe(400);
    // Well-formed but unusable (stale, too short, undecryptable): 422.
    expect(
      (
        await api('/api/v1/pin', user, {
          json: { pin: await encryptPin(stack, '482915', { iat: Math.floor(Date.now() / 1000) - 3600 }) },
        })
      ).status,
    ).toBe(422);
    expect((await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '4829') } })).status).toBe(422);
    const tampered = (await encryptPin(stack, '482915')).replace(/\.([A-Za-z0-9_-])/, '.A$1');
    expect((await api('/api/v1/pin', user, { json: { pin: tampered } })).status).toBe(422);
    expect((await change(user, '482915', '590382')).body.type).toBe('/problems/pin-not-set');
  });

  it('locks after five wrong PINs, even when they arrive at once, and unlocks after the lock time', async () => {
    const user = await registerUser(stack);
    await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '482915') } });
    const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => change(user, `90000${i}`, '590382')));
    // Checks of one user run one at a time: exactly four are told "attempts left", the fifth locks, the rest find it locked.
    expect(guesses.filter((g) => g.status === 422)).toHaveLength(4);
    expect(guesses.filter((g) => g.status === 423)).toHaveLength(4);
    const locked = await change(user, '482915', '590382'); // the right PIN, but locked
    expect(locked.status).toBe(423);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await change(user, '482915', '590382')).status).toBe(200);
  });

  it('takes an encrypted PIN as approval of the request it names, once', async () => {
    const user = await registerUser(stack);
    await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '482915') } });
    const newPin = await encryptPin(stack, '590382');
    const changeWith = async (current: string, key?: string) =>
      callApi(stack, '/api/v1/pin', user, { method: 'PUT', json: { current_pin: current, new_pin: newPin }, key });
    // Not bound at all, or bound to another request (a transfer's PIN replayed as a PIN change): refused, nothing counted.
    expect((await changeWith(await encryptPin(stack, '482915'))).body.type).toBe('/problems/pin-not-bound');
    const transferApproval = await encryptPin(stack, '482915', {
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
    const forOther = await pinChangePin(stack, '482915', await encryptPin(stack, '590382'));
    expect((await changeWith(forOther)).body.type).toBe('/problems/pin-not-for-this-request');
    expect((await stack.orm.em.fork().findOneOrFail(UserPinEntity, { userId: user.userId })).failedAttempts).toBe(0);

    // Used once; the same JWE for another request (another Idempotency-Key, or none) is refused; the same request
    // retried with its key is answered from the first (the idempotency layer).
    const approval = await pinChangePin(stack, '482915', newPin);
    const key = randomUUID();
    expect((await changeWith(approval, key)).status).toBe(200);
    const again = await changeWith(approval, randomUUID());
    expect([again.status, again.body.type]).toEqual([409, '/problems/pin-already-used']);
    expect((await changeWith(approval)).body.type).toBe('/problems/pin-already-used');
  });

  it('an intercepted PIN change cannot be raced with another new PIN: the current PIN approves the new PIN it names only', async () => {
    const user = await registerUser(stack);
    await api('/api/v1/pin', user, { json: { pin: await encryptPin(stack, '482915') } });
    const usersNewPin = await encryptPin(stack, '590382');
    const approval = await pinChangePin(stack, '482915', usersNewPin);
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
});
