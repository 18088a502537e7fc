import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import {
  call,
  cardOf,
  idCardForm,
  registerUser,
  residentNumberFor,
  verifyIdentity,
  type RegisteredUser,
} from '../helpers/http';
import { backupReplaceRequest, encryptPin, ensurePin, pinChangeBody, transferPin } from '../helpers/pin';
import { inbox, verifyEmail } from '../helpers/mail';
import { enrolPasskey, ENROLMENT_PIN } from '../helpers/passkeys';
import {
  callbackDelivered,
  idCardProof,
  signInTokens,
  signInWithIdCard,
  startSignIn,
  verifyOnNewDevice,
} from '../helpers/sign-in';
import { EventEntity, RegistrationEntity, SignInEntity, UserEntity } from '../../db/entities';
import { freePort } from '../helpers/global-setup';
import { runServiceProcess, waitFor } from '../helpers/processes';

/**
 * Issue 24: a person, not a phone. The person verifies again on a new phone and proves it a second time (a passkey
 * of the account, or the ID card verified at registration, checked with the issuing authority); a SIM swap, a card
 * reported lost and another person's card with the same name and birth date get no token. A device signed in by ID
 * card only is held from risky actions; the person is told, and signs the device out from the other one at once.
 */
describe.each(testDatabases())('a new phone on $name', (kind) => {
  let stack: TestStack;
  let owner: RegisteredUser;
  const email = `owner.${randomUUID().slice(0, 8)}@example.com`;
  beforeAll(async () => {
    stack = await startTestStack(kind);
    owner = await registerUser(stack);
    await verifyEmail(stack, owner, email);
    await ensurePin(stack, owner, ENROLMENT_PIN);
  });
  afterAll(async () => stack?.stop());

  const bearer = (u: { accessToken: string }) => ({ authorization: `Bearer ${u.accessToken}` });

  it('registering again answers 409 duplicate-identity naming the sign-in route, and starts no registration', async () => {
    const device = await verifyOnNewDevice(stack, owner.person);
    const again = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': device.deviceId },
      json: { passToken: device.passToken },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ type: '/problems/duplicate-identity', signIn: '/v1/auth/sign-in' });
    expect(again.body.detail).toContain('POST /v1/auth/sign-in');
    expect(await stack.orm.em.fork().count(RegistrationEntity, { passRequestId: device.passRequestId })).toBe(0);
  });

  it("a SIM swap (the victim's valid identity result on the attacker's phone, no card, no passkey) gets no token", async () => {
    const attacker = await verifyOnNewDevice(stack, owner.person);
    const started = await startSignIn(stack, attacker);
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'in_progress', proofs: ['id_card'] });
    const { signInId } = started.body;
    // No proof: no token.
    expect((await signInTokens(stack, attacker, signInId)).body.type).toBe('/problems/sign-in-not-completed');
    // The account has no passkey to assert.
    expect(
      (
        await call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/passkey/options`, {
          method: 'POST',
          headers: { 'x-pass-token': attacker.passToken },
        })
      ).body.type,
    ).toBe('/problems/no-passkey');
    // A made-up card: the name and birth date the carrier leaked, no number, then a number of the right form.
    const noNumber = await idCardProof(stack, attacker, signInId, {
      name: owner.person.name,
      birthDate: owner.person.birthDate,
    });
    expect(noNumber.status).toBe(422);
    expect(noNumber.body).toMatchObject({ type: '/problems/id-card-unreadable', attemptsLeft: 2 });
    const forged = await idCardProof(stack, attacker, signInId, {
      ...cardOf(owner.person),
      idNumber: residentNumberFor(owner.person.birthDate),
    });
    expect(forged.body).toMatchObject({ type: '/problems/id-card-mismatch', attemptsLeft: 1 });
    // The third wrong card fails the sign-in for good, even with the right card after it.
    const third = await idCardProof(stack, attacker, signInId, {
      ...cardOf(owner.person),
      idNumber: residentNumberFor(owner.person.birthDate),
    });
    expect(third.body.type).toBe('/problems/sign-in-failed');
    expect((await idCardProof(stack, attacker, signInId, cardOf(owner.person))).status).toBe(409);
    expect((await signInTokens(stack, attacker, signInId)).status).toBe(409);
    expect((await stack.orm.em.fork().findOneOrFail(SignInEntity, { signInId })).status).toBe('failed');
    // The same verification starts no second sign-in: verify again.
    const again = await startSignIn(stack, attacker);
    expect([again.status, again.body.type]).toEqual([409, '/problems/pass-token-used']);
  });

  it('another person with the same name and birth date proves nothing with their own genuine card; a card reported lost proves nothing', async () => {
    const namesake = {
      ...owner.person,
      residentNumber: residentNumberFor(owner.person.birthDate),
      phone: '01099990000',
    };
    // The namesake is another person to the identity provider (another CI): no account, so told to register.
    const own = await verifyIdentity(stack, namesake);
    await callbackDelivered(stack, own.passRequestId);
    const notRegistered = await startSignIn(stack, {
      deviceId: randomUUID(),
      passToken: own.passToken,
      passRequestId: own.passRequestId,
    });
    expect(notRegistered.status).toBe(404);
    expect(notRegistered.body.type).toBe('/problems/not-registered');
    // With the victim's identity result (a SIM swap) and the namesake's genuine card: not the card on file.
    const attacker = await verifyOnNewDevice(stack, owner.person);
    const { signInId } = (await startSignIn(stack, attacker)).body;
    const theirs = await idCardProof(stack, attacker, signInId, cardOf(namesake));
    expect(theirs.status).toBe(422);
    expect(theirs.body.type).toBe('/problems/id-card-mismatch');

    // Another user's card, reported lost after registration (the thief has it): the issuing authority refuses it.
    const victim = await registerUser(stack);
    expect(
      (await call(`${stack.sandboxUrl}/useb/_reports`, { json: { idNumber: victim.person.residentNumber } })).status,
    ).toBe(201);
    const thief = await verifyOnNewDevice(stack, victim.person);
    const thiefSignIn = (await startSignIn(stack, thief)).body.signInId;
    const lost = await idCardProof(stack, thief, thiefSignIn, cardOf(victim.person));
    expect(lost.status).toBe(422);
    expect(lost.body.type).toBe('/problems/id-card-invalid');
    expect(lost.body.detail).toContain('reported lost');
    expect((await signInTokens(stack, thief, thiefSignIn)).status).toBe(409);
  });

  it('the owner signs in with their ID card: the same user, the device held from risky actions and told to the person; the other device revokes it at once', async () => {
    const mailsBefore = (await inbox(stack, email)).length;
    const phone = await signInWithIdCard(stack, owner);
    const profile = await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(phone) });
    expect(profile.status).toBe(200);
    expect(profile.body.userId).toBe(owner.userId);
    // A sign-in is exchanged for tokens once.
    expect(
      (
        await signInTokens(
          stack,
          { deviceId: phone.deviceId, passToken: phone.passToken, passRequestId: '' },
          phone.signInId,
        )
      ).body.type,
    ).toBe('/problems/sign-in-used');
    // Its status, read with the pass token: completed by ID card, tokens issued.
    const signIn = await call(`${stack.apiUrl}/v1/auth/sign-in/${phone.signInId}`, {
      headers: { 'x-pass-token': phone.passToken },
    });
    expect([signIn.status, signIn.body]).toEqual([
      200,
      expect.objectContaining({ signInId: phone.signInId, status: 'completed', method: 'id_card', tokensIssued: true }),
    ]);

    const devices = await call(`${stack.apiUrl}/v1/account/devices`, { headers: bearer(phone) });
    expect(devices.body.items).toHaveLength(2);
    const mine = devices.body.items.find((d: { current: boolean }) => d.current);
    expect(mine).toMatchObject({ deviceId: phone.deviceId, label: 'New phone', signInMethod: 'id_card' });
    const holdUntil = Date.parse(mine.holdUntil);
    expect(holdUntil).toBeGreaterThan(Date.now() + 23 * 3600 * 1000); // NEW_DEVICE_HOLD_SECONDS: 24 h (the person has a verified email)
    expect(devices.body.items.find((d: { current: boolean }) => !d.current)).toMatchObject({
      deviceId: owner.deviceId,
      signInMethod: 'registration',
      holdUntil: null,
    });

    // The person is told at once, by mail and by event (no label, no personal data in the event).
    for (let i = 0; i < 200 && (await inbox(stack, email)).length <= mailsBefore; i += 1)
      await new Promise((r) => setTimeout(r, 100));
    expect((await inbox(stack, email))[0]!.subject).toBe('A new device signed in to your account');
    const [added] = await stack.orm.em.fork().find(EventEntity, { type: 'device.added', userId: owner.userId });
    expect(added!.data).toEqual({ deviceId: phone.deviceId, signInMethod: 'id_card', holdUntil: mine.holdUntil });

    // Held: funds, PIN, email, address book, transfer keys, the backup.
    const held = [
      call(`${stack.apiUrl}/api/v1/pin`, {
        method: 'PUT',
        headers: bearer(phone),
        json: await pinChangeBody(stack, ENROLMENT_PIN, '111222'),
      }),
      call(`${stack.apiUrl}/v1/account/email`, { headers: bearer(phone), json: { email: 'attacker@example.com' } }),
      call(`${stack.apiUrl}/api/v1/transfer/address-book`, {
        headers: bearer(phone),
        json: { network: 'ETHEREUM', address: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
      }),
      (async () => {
        const sample = {
          to_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
          network: 'ETHEREUM',
          token: 'ETH',
          amount: '0.1',
        };
        return call(`${stack.apiUrl}/api/v1/transfer/crypto/execute`, {
          headers: bearer(phone),
          json: { ...sample, pin: await transferPin(stack, ENROLMENT_PIN, sample) },
        });
      })(),
      call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(phone) }),
      call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key/prepare`, {
        headers: bearer(phone),
        json: { action: 'revoke' },
      }),
      // Closing the account, removing a passkey, signing out another device, renewing KYC, a recovery, a new backup.
      call(`${stack.apiUrl}/v1/account/close`, {
        headers: bearer(phone),
        json: {
          confirm: 'CLOSE',
          pin: await encryptPin(stack, ENROLMENT_PIN, { request: { action: 'account_close' } }),
        },
      }),
      call(`${stack.apiUrl}/v1/auth/passkeys/pk_${randomUUID()}/remove`, { headers: bearer(phone), json: {} }),
      call(`${stack.apiUrl}/v1/account/devices/${owner.deviceId}`, {
        method: 'DELETE',
        headers: bearer(phone),
        json: {
          pin: await encryptPin(stack, ENROLMENT_PIN, {
            request: { action: 'device_revoke', device_id: owner.deviceId },
          }),
        },
      }),
      call(`${stack.apiUrl}/v1/account/kyc/renew`, {
        headers: { ...bearer(phone), 'idempotency-key': randomUUID() },
        form: idCardForm(owner.person),
      }),
      call(`${stack.apiUrl}/v1/account/recovery`, {
        headers: { ...bearer(phone), 'idempotency-key': randomUUID() },
        json: { newOwnerAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3' },
      }),
      call(`${stack.apiUrl}/v1/account/backup`, {
        method: 'PUT',
        headers: { ...bearer(phone), 'idempotency-key': randomUUID() },
        json: { ...owner.backup },
      }),
    ];
    for (const answer of await Promise.all(held)) {
      expect(answer.status).toBe(403);
      expect(JSON.stringify(answer.body)).toContain('device-on-hold');
      expect(JSON.stringify(answer.body)).toContain(mine.holdUntil);
    }

    // The owner's own phone reads the backup back (mailed), and signs the new device out with the PIN.
    const backup = await call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(owner) });
    expect(backup.status).toBe(200);
    expect(backup.body).toMatchObject({ version: 1, ...owner.backup });
    const revoke = (body: unknown) =>
      call(`${stack.apiUrl}/v1/account/devices/${phone.deviceId}`, {
        method: 'DELETE',
        headers: bearer(owner),
        json: body,
      });
    expect((await revoke({})).body.type).toBe('/problems/step-up-required');
    const revoked = await revoke({
      pin: await encryptPin(stack, ENROLMENT_PIN, { request: { action: 'device_revoke', device_id: phone.deviceId } }),
    });
    expect([revoked.status, revoked.body]).toEqual([200, { deviceId: phone.deviceId, revoked: true }]);
    // Its access token is refused at once (not when it expires), its refresh token too.
    const after = await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(phone) });
    expect(after.status).toBe(401);
    expect(after.body.type).toBe('/problems/device-signed-out');
    const refresh = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': phone.deviceId },
      json: { grantType: 'refresh_token', refreshToken: phone.refreshToken },
    });
    expect(refresh.status).toBe(401);
    expect(
      (await call(`${stack.apiUrl}/v1/account/devices`, { headers: bearer(owner) })).body.items.map(
        (d: { deviceId: string }) => d.deviceId,
      ),
    ).toEqual([owner.deviceId]);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'device.revoked', userId: owner.userId })).toBe(1);
  });

  it('a passkey of the account signs in a new phone with no hold, and reads the backup', async () => {
    const person = await registerUser(stack);
    const { passkey } = await enrolPasskey(stack, person, { pastItsHold: true });
    const device = await verifyOnNewDevice(stack, person.person);
    const started = await startSignIn(stack, device, 'Tablet');
    expect(started.body.proofs).toEqual(['passkey', 'id_card']);
    const { signInId } = started.body;
    const options = await call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/passkey/options`, {
      method: 'POST',
      headers: { 'x-pass-token': device.passToken },
    });
    expect(options.status).toBe(200);
    const proved = await call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/passkey`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': device.passToken },
      json: {
        passkeyAssertion: { challengeId: options.body.challengeId, credential: passkey.get(options.body.publicKey) },
      },
    });
    expect(proved.status).toBe(200);
    expect(proved.body).toEqual({ signInId, status: 'completed', method: 'passkey' });
    const tokens = await signInTokens(stack, device, signInId);
    expect(tokens.status).toBe(200);
    expect(tokens.body.userId).toBe(person.userId);
    const devices = await call(`${stack.apiUrl}/v1/account/devices`, { headers: bearer(tokens.body) });
    expect(devices.body.items.find((d: { current: boolean }) => d.current)).toMatchObject({
      label: 'Tablet',
      signInMethod: 'passkey',
      holdUntil: null,
    });
    expect((await call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(tokens.body) })).body).toMatchObject({
      version: 1,
      ...person.backup,
    });
  });

  it('a device released from its hold by a passkey older than the sign-in; a new backup version is stored and the old one kept', async () => {
    const person = await registerUser(stack);
    const { passkey } = await enrolPasskey(stack, person, { pastItsHold: true });
    const phone = await signInWithIdCard(stack, person);
    expect((await call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(phone) })).status).toBe(403);
    const options = await call(`${stack.apiUrl}/v1/auth/passkeys/approvals/options`, {
      headers: bearer(phone),
      json: { request: { action: 'device_release', device_id: phone.deviceId } },
    });
    const released = await call(`${stack.apiUrl}/v1/account/devices/${phone.deviceId}/release`, {
      headers: bearer(phone),
      json: {
        passkeyAssertion: { challengeId: options.body.challengeId, credential: passkey.get(options.body.publicKey) },
      },
    });
    expect(released.status).toBe(200);
    const newer = {
      encryptedMnemonic: 'bmV3LWNpcGhlcg',
      encryptedDerivationPaths: 'bS80NCc',
      encryptionMethod: 'AES-256-GCM',
    };
    const replace = async (body: object) =>
      call(`${stack.apiUrl}/v1/account/backup`, {
        method: 'PUT',
        headers: { ...bearer(phone), 'idempotency-key': randomUUID() },
        json: body,
      });
    // A new backup decides what a new phone restores: the token alone stores none.
    expect((await replace(newer)).body.type).toBe('/problems/step-up-required');
    // An approval names its backup: one seen in transit, raced with another backup, stores nothing (before, it named
    // only {"action":"backup_replace"} and approved whatever backup came with it).
    const intercepted = await encryptPin(stack, person.pin!, { request: await backupReplaceRequest(newer) });
    const raced = await replace({ ...newer, encryptedMnemonic: 'the-thief-s-own-mnemonic', pin: intercepted });
    expect([raced.status, raced.body.type]).toEqual([422, '/problems/pin-not-for-this-request']);
    const stored = await replace({
      ...newer,
      pin: await encryptPin(stack, person.pin!, { request: await backupReplaceRequest(newer) }),
    });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ version: 2, ...newer });
    expect((await call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(phone) })).body).toMatchObject({
      version: 2,
      ...newer,
    });
    expect((await call(`${stack.apiUrl}/v1/account/backup?version=1`, { headers: bearer(phone) })).body).toMatchObject({
      version: 1,
      ...person.backup,
    });
  });

  it("a sign-in cannot take the place of a device signed in already: an attacker who learnt the owner's device id cannot sign the owner's phone out", async () => {
    const person = await registerUser(stack);
    // SIM swap plus the stolen card, with the X-Device-Id of the owner's phone (before: the owner's phone was signed
    // out and the attacker's device took its session and its label).
    const device = { ...(await verifyOnNewDevice(stack, person.person)), deviceId: person.deviceId };
    const started = await startSignIn(stack, device, 'My phone');
    expect([started.status, started.body.type]).toEqual([409, '/problems/device-signed-in']);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(person) })).status).toBe(200);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'device.added', userId: person.userId })).toBe(0);
  });

  it('a stolen token cannot sign out the only device of an account with nothing else to sign in with', async () => {
    const person = await registerUser(stack);
    // An account registered before card numbers were kept, without a passkey: signed out, it could never sign in.
    await stack.orm.em.fork().nativeUpdate(UserEntity, { id: person.userId }, { idCardHash: null });
    const signOut = () => call(`${stack.apiUrl}/v1/auth/sign-out`, { method: 'POST', headers: bearer(person) });
    const refused = await signOut();
    expect([refused.status, refused.body.type]).toEqual([409, '/problems/last-device']);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(person) })).status).toBe(200);
    // With a passkey to sign in again with, it may.
    await enrolPasskey(stack, person);
    expect((await signOut()).status).toBe(200);
  });

  it('sign-out ends this device at once, and the registration pass token cannot bring it back', async () => {
    const person = await registerUser(stack);
    expect((await call(`${stack.apiUrl}/v1/auth/sign-out`, { method: 'POST', headers: bearer(person) })).status).toBe(
      200,
    );
    const refused = await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(person) });
    expect(refused.body.type).toBe('/problems/device-signed-out');
    const again = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': person.deviceId, 'x-pass-token': person.passToken },
      json: { grantType: 'registration', regId: person.regId },
    });
    expect(again.status).toBe(403);
    expect(again.body.type).toBe('/problems/device-revoked');
    // A stranger's device id is no device of this account.
    const other = await registerUser(stack);
    const stranger = randomUUID();
    expect(
      (
        await call(`${stack.apiUrl}/v1/account/devices/${stranger}`, {
          method: 'DELETE',
          headers: bearer(other),
          json: {
            pin: await encryptPin(stack, other.pin!, { request: { action: 'device_revoke', device_id: stranger } }),
          },
        })
      ).status,
    ).toBe(404);
  });

  it("a thief's passkey (enrolled with the token and a known PIN) approves nothing during its hold, and signs in only a held device", async () => {
    const victim = await registerUser(stack);
    // Worst case: the thief has the victim's token and has seen the PIN, and enrols a passkey of their own.
    const { passkey: thiefs, passkeyId } = await enrolPasskey(stack, victim, { name: 'Not mine' });
    const approve = async (user: RegisteredUser, request: Record<string, string | null>) => {
      const options = await call(`${stack.apiUrl}/v1/auth/passkeys/approvals/options`, {
        headers: bearer(user),
        json: { request },
      });
      return { challengeId: options.body.challengeId, credential: thiefs.get(options.body.publicKey) };
    };
    // It approves no step-up while it is new (before the step-up policy read the hold, each of these passed).
    const closing = await call(`${stack.apiUrl}/v1/account/close`, {
      headers: bearer(victim),
      json: { confirm: 'CLOSE', passkeyAssertion: await approve(victim, { action: 'account_close' }) },
    });
    expect([closing.status, closing.body.type]).toEqual([403, '/problems/passkey-on-hold']);
    const backup = await call(`${stack.apiUrl}/v1/account/backup`, {
      method: 'PUT',
      headers: { ...bearer(victim), 'idempotency-key': randomUUID() },
      json: { ...victim.backup, passkeyAssertion: await approve(victim, await backupReplaceRequest(victim.backup)) },
    });
    expect(backup.body.type).toBe('/problems/passkey-on-hold');

    // A SIM swap gives the thief the victim's identity result on their own phone; with their passkey they sign in,
    // but only to a held device (before: no hold, the backup readable at once).
    const device = await verifyOnNewDevice(stack, victim.person);
    const { signInId } = (await startSignIn(stack, device, 'Thief')).body;
    const options = await call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/passkey/options`, {
      method: 'POST',
      headers: { 'x-pass-token': device.passToken },
    });
    const proved = await call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/passkey`, {
      headers: { 'idempotency-key': randomUUID(), 'x-pass-token': device.passToken },
      json: {
        passkeyAssertion: { challengeId: options.body.challengeId, credential: thiefs.get(options.body.publicKey) },
      },
    });
    expect(proved.body).toMatchObject({ status: 'completed', method: 'passkey' });
    const phone = { ...victim, ...(await signInTokens(stack, device, signInId)).body, deviceId: device.deviceId };
    const mine = (await call(`${stack.apiUrl}/v1/account/devices`, { headers: bearer(phone) })).body.items.find(
      (d: { current: boolean }) => d.current,
    );
    expect(mine).toMatchObject({ signInMethod: 'passkey', holdUntil: expect.any(String) });
    expect((await call(`${stack.apiUrl}/v1/account/backup`, { headers: bearer(phone) })).body.type).toBe(
      '/problems/device-on-hold',
    );
    // Nor does it release that hold.
    const released = await call(`${stack.apiUrl}/v1/account/devices/${phone.deviceId}/release`, {
      headers: bearer(phone),
      json: { passkeyAssertion: await approve(phone, { action: 'device_release', device_id: phone.deviceId }) },
    });
    expect([released.status, released.body.type]).toEqual([403, '/problems/passkey-on-hold']);
    // The victim removes it with their PIN.
    const removed = await call(`${stack.apiUrl}/v1/auth/passkeys/${passkeyId}/remove`, {
      headers: bearer(victim),
      json: {
        pin: await encryptPin(stack, victim.pin!, { request: { action: 'passkey_remove', passkey_id: passkeyId } }),
      },
    });
    expect(removed.status).toBe(200);
  });

  it('a device revoked through one api process is refused at once by another (PostgreSQL: several api processes share the database)', async () => {
    if (kind.name !== 'postgresql') return; // the embedded mode runs one api process
    const port = await freePort();
    const metricsPort = await freePort();
    const other = runServiceProcess('api/main.ts', { ...stack.apiProcessEnv(port), METRICS_PORT: String(metricsPort) });
    /** How many of the other process's session checks were served from its cache (session_cache_lookups_total). */
    const hits = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return Number(/^session_cache_lookups_total\{[^}]*result="hit"[^}]*\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const otherUrl = `http://127.0.0.1:${port}`;
    /** The other process's answer to `who`'s profile once it refuses it (2 s at most): [status, problem type]. */
    const refusedByOther = async (who: Parameters<typeof bearer>[0], what: string) => {
      let answer = await call(`${otherUrl}/v1/account/profile`, { headers: bearer(who) });
      await waitFor(
        async () => (answer = await call(`${otherUrl}/v1/account/profile`, { headers: bearer(who) })).status === 401,
        2_000,
        `the other process refusing ${what}`,
      );
      return [answer.status, answer.body.type];
    };
    try {
      await waitFor(
        async () => (await fetch(`${otherUrl}/healthz`).catch(() => undefined))?.ok === true,
        60_000,
        'second API process',
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${other.output()}`);
      });
      const person = await registerUser(stack);
      // The other process has verified (and cached) the token and the session before the revocation: its second
      // request is served from its session cache.
      expect((await call(`${otherUrl}/v1/account/profile`, { headers: bearer(person) })).status).toBe(200);
      const before = await hits();
      expect((await call(`${otherUrl}/v1/account/profile`, { headers: bearer(person) })).status).toBe(200);
      expect(await hits()).toBe(before + 1);
      expect((await call(`${stack.apiUrl}/v1/auth/sign-out`, { method: 'POST', headers: bearer(person) })).status).toBe(
        200,
      );
      // Refused by the other process as soon as its LISTEN connection delivers the change, which the database sent at
      // commit: within milliseconds, but a loaded machine may hand the next request to that process first (CI found a
      // request served from its cache right after the sign-out answered): within 2 s here.
      expect(await refusedByOther(person, 'the signed-out device')).toEqual([401, '/problems/device-signed-out']);

      // A change written by anything else (here plain SQL, as an operator or the worker would) is told by the
      // database's trigger to every process's listener: once the first process's has heard it, the other's has too
      // or will within milliseconds (a loaded machine may hand the other process the next request before its own
      // LISTEN connection's delivery: CI found one served from the cache right after), and the cached session of a
      // suspended user is no longer served there: within 2 s here, as the sign-out's above.
      const suspended = await registerUser(stack);
      for (let i = 0; i < 2; i += 1)
        expect((await call(`${otherUrl}/v1/account/profile`, { headers: bearer(suspended) })).status).toBe(200);
      const told = stack.sessions!.whenTold(suspended.userId);
      await stack.orm.em.fork().nativeUpdate(UserEntity, { id: suspended.userId }, { status: 'suspended' });
      await told();
      expect(await refusedByOther(suspended, 'the suspended user')).toEqual([401, '/problems/invalid-token']);

      // The profile's two-factor methods come with the cached session: a passkey enrolled through the first process
      // shows in the other's answers as soon as the other's LISTEN connection delivers the change (the enrolment
      // answers once the first process's has; the other's comes within milliseconds, later under load: CI found it).
      const enrolling = await registerUser(stack);
      const profileOnOther = async () =>
        (await call(`${otherUrl}/v1/account/profile`, { headers: bearer(enrolling) })).body.twoFactorMethods;
      expect([await profileOnOther(), await profileOnOther()]).toEqual([[], []]);
      await enrolPasskey(stack, enrolling);
      await waitFor(
        async () => JSON.stringify(await profileOnOther()) === '["passkey"]',
        2_000,
        "the passkey in the other process's profile",
      );
    } finally {
      other.child.kill('SIGTERM');
      await other.exited;
    }
  });
});
