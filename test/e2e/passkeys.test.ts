import { randomUUID } from 'node:crypto';
import { Wallet, type BaseWallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { bearer, deployAccount, signSlot, ownerApproval } from '../helpers/wallet';
import { EventEntity, WebauthnChallengeEntity } from '../../db/entities';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { SoftwarePasskey, approveSlot } from '@wallet-service/client';
import { ENROLMENT_PIN, enrolPasskey, passkeyPastItsHold } from '../helpers/passkeys';
import { encryptPin, ensurePin } from '../helpers/pin';
import { inbox, verifyEmail } from '../helpers/mail';
import { startSignIn, verifyOnNewDevice } from '../helpers/sign-in';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';

/** WebAuthn challenges a person may ask for in a minute, in this suite (the default is 20). */
const CHALLENGES_A_MINUTE = 12;

describe('passkeys: WebAuthn registration and passkey approval of chain operations', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      env: {
        NEW_PASSKEY_HOLD_SECONDS: '86400',
        // The suites' default (no limit in the way) but for WebAuthn challenges, which one test runs out of.
        RATE_LIMITS: JSON.stringify({
          ...Object.fromEntries(
            Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 100_000, seconds: 60 }]),
          ),
          'webauthn-challenge': { points: CHALLENGES_A_MINUTE, seconds: 60 },
        }),
      },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const options = (user: RegisteredUser) =>
    call(`${stack.apiUrl}/v1/auth/passkeys/registration/options`, { method: 'POST', headers: bearer(user) });
  /** A registration approved by the user's PIN bound to its challenge (the PIN is set first when the user has none). */
  const register = async (
    user: RegisteredUser,
    body: { challengeId: string } & Record<string, unknown>,
    headers: Record<string, string> = {},
  ) => {
    await ensurePin(stack, user, ENROLMENT_PIN);
    const pin = await encryptPin(stack, ENROLMENT_PIN, {
      request: { action: 'passkey_enrol', challenge_id: body.challengeId },
    });
    return call(`${stack.apiUrl}/v1/auth/passkeys`, {
      headers: { ...bearer(user), ...headers },
      json: { pin, ...body },
    });
  };
  const addPasskey = async (user: RegisteredUser): Promise<SoftwarePasskey> =>
    (await enrolPasskey(stack, user)).passkey;
  const deployPrepare = async (user: RegisteredUser, owner: BaseWallet, networkId = 'ETHEREUM') =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy/prepare`, {
      headers: bearer(user),
      json: { ownerAddress: owner.address, ...(await ownerApproval(stack, user, owner.address)) },
    });
  const deployExecute = (user: RegisteredUser, items: object[], networkId = 'ETHEREUM') =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { signing: { items } },
    });

  it('registers a passkey; the profile and the list show it', async () => {
    const user = await registerUser(stack);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods).toEqual(
      [],
    );
    const { status, body } = await options(user);
    expect(status).toBe(200);
    expect(body.publicKey).toMatchObject({
      rp: { id: 'localhost', name: 'Wallet' },
      attestation: 'none',
      authenticatorSelection: { userVerification: 'required' },
    });
    const passkey = new SoftwarePasskey();
    const request = { challengeId: body.challengeId, name: 'Galaxy S25', credential: passkey.create(body.publicKey) };
    const key = randomUUID();
    await ensurePin(stack, user, ENROLMENT_PIN);
    const approved = {
      ...request,
      pin: await encryptPin(stack, ENROLMENT_PIN, {
        request: { action: 'passkey_enrol', challenge_id: body.challengeId },
      }),
    };
    const added = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
      headers: { ...bearer(user), 'idempotency-key': key },
      json: approved,
    });
    expect(added.status).toBe(201);
    // A retry after a lost answer (same key, same body) replays it instead of tripping over the spent challenge.
    const replayed = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
      headers: { ...bearer(user), 'idempotency-key': key },
      json: approved,
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(added.body);
    expect(added.body).toMatchObject({
      name: 'Galaxy S25',
      deviceType: 'singleDevice',
      backedUp: false,
      lastUsedAt: null,
    });
    expect(new Date(added.body.heldUntil).getTime() - new Date(added.body.createdAt).getTime()).toBe(86_400_000);
    expect(added.headers.get('location')).toBe(`/v1/auth/passkeys/${added.body.passkeyId}`);

    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods).toEqual(
      ['passkey'],
    );
    const list = await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) });
    expect(list.body.items.map((p: { passkeyId: string }) => p.passkeyId)).toEqual([added.body.passkeyId]);

    // The options of a second registration exclude the registered credential; registering it again is refused.
    const again = await options(user);
    expect(again.body.publicKey.excludeCredentials).toEqual([expect.objectContaining({ id: passkey.id })]);
    const duplicate = await register(user, {
      challengeId: again.body.challengeId,
      credential: passkey.create(again.body.publicKey),
    });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.type).toBe('/problems/passkey-exists');
  });

  it('refuses registrations that do not verify, reused or foreign challenges, and no token', async () => {
    const user = await registerUser(stack);
    const other = await registerUser(stack);
    const passkey = new SoftwarePasskey();

    const wrongOrigin = (await options(user)).body;
    const refused = await register(user, {
      challengeId: wrongOrigin.challengeId,
      credential: passkey.create(wrongOrigin.publicKey, { origin: 'https://evil.example' }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/invalid-passkey-registration');
    // The challenge was spent by that attempt: it cannot be tried again.
    const reused = await register(user, {
      challengeId: wrongOrigin.challengeId,
      credential: passkey.create(wrongOrigin.publicKey),
    });
    expect(reused.status).toBe(409);

    const otherChallenge = (await options(user)).body;
    const signedForOther = passkey.create({
      ...otherChallenge.publicKey,
      challenge: Buffer.from('another challenge').toString('base64url'),
    });
    expect((await register(user, { challengeId: otherChallenge.challengeId, credential: signedForOther })).status).toBe(
      422,
    );

    const fresh = (await options(user)).body;
    expect(
      (await register(other, { challengeId: fresh.challengeId, credential: passkey.create(fresh.publicKey) })).status,
    ).toBe(404);
    expect(
      (await register(user, { challengeId: `wac_${randomUUID()}`, credential: passkey.create(fresh.publicKey) }))
        .status,
    ).toBe(404);
    const malformed = await register(user, {
      challengeId: fresh.challengeId,
      credential: { id: 'x', type: 'public-key' },
    });
    expect(malformed.status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/auth/passkeys`, {})).status).toBe(401);
    expect((await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items).toEqual([]);
  });

  it("counts a sign-in's passkey options against the person's WebAuthn challenges, as their own options", async () => {
    const user = await registerUser(stack);
    for (let i = 0; i < CHALLENGES_A_MINUTE; i += 1) expect((await options(user)).status).toBe(200);
    // A sign-in on a new phone asks by its pass token, not a session: the person's budget all the same (before, no
    // limit: a pass token asked for challenges without end).
    const phone = await verifyOnNewDevice(stack, user.person);
    const signIn = await startSignIn(stack, phone);
    expect(signIn.status).toBe(201);
    const asked = await call(`${stack.apiUrl}/v1/auth/sign-in/${signIn.body.signInId}/passkey/options`, {
      method: 'POST',
      headers: { 'x-pass-token': phone.passToken },
    });
    expect([asked.status, asked.body.type, Number(asked.headers.get('retry-after')) > 0]).toEqual([
      429,
      '/problems/rate-limited',
      true,
    ]);
    expect((await options(user)).status).toBe(429);
  });

  it("deletes challenges an hour past their expiry on the worker's housekeeping run; fresher ones are kept", async () => {
    const user = await registerUser(stack);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await options(user)).body.challengeId as string);
    const [longExpired, justExpired, fresh] = ids as [string, string, string];
    const em = stack.orm.em.fork();
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    await em.nativeUpdate(WebauthnChallengeEntity, { challengeId: longExpired }, { expiresAt: ago(61) });
    await em.nativeUpdate(WebauthnChallengeEntity, { challengeId: justExpired }, { expiresAt: ago(59) });
    const run = await stack.temporal.workflow.execute(housekeepingWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `housekeeping-test-${randomUUID()}`,
    });
    expect(run.expiredChallengesDeleted).toBeGreaterThanOrEqual(1);
    const left = await stack.orm.em
      .fork()
      .find(WebauthnChallengeEntity, { challengeId: { $in: ids } }, { fields: ['challengeId'] });
    expect(left.map((c) => c.challengeId).sort()).toEqual([justExpired, fresh].sort());
    // The one within the hour is still told expired (410); the swept one is unknown (404).
    const passkey = new SoftwarePasskey();
    const publicKey = (await options(user)).body.publicKey;
    const answers = [];
    for (const challengeId of [justExpired, longExpired])
      answers.push((await register(user, { challengeId, credential: passkey.create(publicKey) })).status);
    expect(answers).toEqual([410, 404]);
  });

  it('a user with a passkey must approve a deployment with it; the approval binds to that operation', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const passkey = await addPasskey(user);

    const prepared = await deployPrepare(user, owner);
    expect(prepared.status).toBe(200);
    const [onChain, twoFactor] = prepared.body.items;
    expect(twoFactor).toMatchObject({
      id: `${onChain.id}.passkey`,
      payload: '',
      parameter: {
        authMethod: 'passkey',
        options: {
          rpId: 'localhost',
          userVerification: 'required',
          allowCredentials: [expect.objectContaining({ id: passkey.id })],
        },
      },
    });

    const missing = await deployExecute(user, [signSlot(onChain, owner)]);
    expect(missing.status).toBe(422);
    expect(missing.body.type).toBe('/problems/passkey-required');

    // An approval made for another operation (another prepare's challenge) does not approve this one.
    const otherPrepare = (await deployPrepare(user, owner, 'POLYGON')).body.items;
    const misbound = await deployExecute(user, [
      signSlot(onChain, owner),
      { ...approveSlot(otherPrepare[1], passkey), id: twoFactor.id },
    ]);
    expect(misbound.status).toBe(422);
    expect(misbound.body.type).toBe('/problems/invalid-passkey-assertion');

    // A passkey of someone else, or an assertion without user verification, is refused.
    const stranger = new SoftwarePasskey();
    expect((await deployExecute(user, [signSlot(onChain, owner), approveSlot(twoFactor, stranger)])).body.type).toBe(
      '/problems/unknown-passkey',
    );
    const unverified = {
      id: twoFactor.id,
      parameter: { authMethod: 'passkey' },
      signature: { authResponse: passkey.get(twoFactor.parameter.options, { userVerified: false }) },
    };
    expect((await deployExecute(user, [signSlot(onChain, owner), unverified])).status).toBe(422);
    expect(
      (
        await deployExecute(user, [
          signSlot(onChain, owner),
          { ...approveSlot(twoFactor, passkey), parameter: { authMethod: 'sms' } },
        ])
      ).status,
    ).toBe(422);

    const accepted = await deployExecute(user, [signSlot(onChain, owner), approveSlot(twoFactor, passkey)]);
    expect(accepted.status).toBe(202);
    await waitFor(
      async () =>
        (await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${onChain.id}`, { headers: bearer(user) })).body.status ===
        'completed',
      60_000,
      'deployment',
    );
    const [stored] = (await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items;
    expect(stored.lastUsedAt).not.toBeNull();

    // The same approval cannot be replayed on a new operation.
    const replay = await deployExecute(
      user,
      [signSlot(otherPrepare[0], owner), approveSlot(twoFactor, passkey)],
      'POLYGON',
    );
    expect(replay.status).toBe(422);
  });

  it('key rotation and DID keys carry a passkey slot too, and execute once approved', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    await deployAccount(stack, user, owner, 'ETHEREUM');
    const passkey = await addPasskey(user);
    const newOwner = Wallet.createRandom();

    const rotation = await call(`${stack.apiUrl}/v1/wallet/keys/rotate/prepare`, {
      headers: bearer(user),
      json: { newOwnerAddress: newOwner.address, networkIds: ['ETHEREUM'] },
    });
    expect(rotation.status).toBe(200);
    const [root, approval] = rotation.body.items;
    expect(approval.parameter.authMethod).toBe('passkey');
    const execute = (items: object[]) =>
      call(`${stack.apiUrl}/v1/wallet/keys/rotate`, {
        headers: { ...bearer(user), 'idempotency-key': randomUUID() },
        json: { signing: { items } },
      });
    expect((await execute([signSlot(root, owner)])).body.type).toBe('/problems/passkey-required');
    expect((await execute([signSlot(root, owner), approveSlot(approval, passkey)])).status).toBe(202);
    await waitFor(
      async () =>
        (await call(`${stack.apiUrl}/v1/wallet/keys/rotate/${root.id}`, { headers: bearer(user) })).body.status ===
        'completed',
      60_000,
      'rotation',
    );

    const did = await call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, {
      headers: bearer(user),
      json: {
        keyType: 'EcdsaSecp256k1VerificationKey2019',
        publicKey: Wallet.createRandom().signingKey.compressedPublicKey,
      },
    });
    const [didSlot, didApproval] = did.body.items;
    expect(didApproval.parameter.authMethod).toBe('passkey');
    const added = await call(`${stack.apiUrl}/v1/did/keys/assertion`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { signing: { items: [signSlot(didSlot, newOwner), approveSlot(didApproval, passkey)] } },
    });
    expect(added.status).toBe(202);
  });

  it('a user without passkeys gets no passkey slot and may not send one', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const prepared = await deployPrepare(user, owner);
    expect(prepared.body.items).toHaveLength(1);
    const bogus = {
      id: `${prepared.body.items[0].id}.passkey`,
      parameter: { authMethod: 'passkey' },
      signature: { authResponse: new SoftwarePasskey().get({ challenge: 'AAAA', rpId: 'localhost' }) },
    };
    const refused = await deployExecute(user, [signSlot(prepared.body.items[0], owner), bogus]);
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/slot-mismatch');
  });
  describe('a stolen access token alone changes no passkey', () => {
    const approvalOptions = (user: RegisteredUser, request: object) =>
      call(`${stack.apiUrl}/v1/auth/passkeys/approvals/options`, { headers: bearer(user), json: { request } });
    const remove = (user: RegisteredUser, passkeyId: string, body: object = {}) =>
      call(`${stack.apiUrl}/v1/auth/passkeys/${passkeyId}/remove`, { headers: bearer(user), json: body });
    const listed = async (user: RegisteredUser) =>
      (await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items as Array<{
        passkeyId: string;
      }>;

    it('refuses an enrolment with the token alone, or with a PIN for another enrolment; the PIN bound to it, or an existing passkey, approves it', async () => {
      const user = await registerUser(stack, undefined, { pin: null });
      const attacker = new SoftwarePasskey();
      // No PIN set yet: nothing can approve, so nothing is added.
      const first = (await options(user)).body;
      const unset = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: {
          challengeId: first.challengeId,
          credential: attacker.create(first.publicKey),
          pin: await encryptPin(stack, ENROLMENT_PIN, {
            request: { action: 'passkey_enrol', challenge_id: first.challengeId },
          }),
        },
      });
      expect([unset.status, unset.body.type]).toEqual([409, '/problems/pin-not-set']);
      await ensurePin(stack, user, ENROLMENT_PIN);

      const challenge = (await options(user)).body;
      const credential = attacker.create(challenge.publicKey);
      const tokenOnly = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: { challengeId: challenge.challengeId, credential },
      });
      expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
      const otherEnrolment = await encryptPin(stack, ENROLMENT_PIN, {
        request: { action: 'passkey_enrol', challenge_id: first.challengeId },
      });
      const misbound = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: { challengeId: challenge.challengeId, credential, pin: otherEnrolment },
      });
      expect([misbound.status, misbound.body.type]).toEqual([422, '/problems/pin-not-for-this-request']);
      const closing = await encryptPin(stack, ENROLMENT_PIN, { request: { action: 'account_close' } });
      expect(
        (
          await call(`${stack.apiUrl}/v1/auth/passkeys`, {
            headers: bearer(user),
            json: { challengeId: challenge.challengeId, credential, pin: closing },
          })
        ).body.type,
      ).toBe('/problems/pin-not-for-this-request');
      const wrong = await encryptPin(stack, '864213', {
        request: { action: 'passkey_enrol', challenge_id: challenge.challengeId },
      });
      expect(
        (
          await call(`${stack.apiUrl}/v1/auth/passkeys`, {
            headers: bearer(user),
            json: { challengeId: challenge.challengeId, credential, pin: wrong },
          })
        ).body.type,
      ).toBe('/problems/wrong-pin');
      expect(await listed(user)).toEqual([]);
      expect(await stack.orm.em.fork().count(EventEntity, { userId: user.userId, type: 'passkey.added' })).toBe(0);

      // The person's own enrolment, with the PIN bound to it; then a second passkey approved by the first (once past
      // its new-passkey hold: a passkey added minutes ago approves nothing).
      const { passkey, passkeyId: firstId } = await enrolPasskey(stack, user, { name: 'Galaxy' });
      const early = (await options(user)).body;
      const earlyApproval = (await approvalOptions(user, { action: 'passkey_enrol', challenge_id: early.challengeId }))
        .body;
      const tooNew = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: {
          challengeId: early.challengeId,
          credential: new SoftwarePasskey().create(early.publicKey),
          passkeyAssertion: {
            challengeId: earlyApproval.challengeId,
            credential: passkey.get(earlyApproval.publicKey),
          },
        },
      });
      expect([tooNew.status, tooNew.body.type]).toEqual([403, '/problems/passkey-on-hold']);
      await passkeyPastItsHold(stack, firstId);
      const next = (await options(user)).body;
      const second = new SoftwarePasskey();
      const forClosing = (await approvalOptions(user, { action: 'account_close' })).body;
      const wrongPurpose = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: {
          challengeId: next.challengeId,
          credential: second.create(next.publicKey),
          passkeyAssertion: { challengeId: forClosing.challengeId, credential: passkey.get(forClosing.publicKey) },
        },
      });
      expect([wrongPurpose.status, wrongPurpose.body.type]).toEqual([
        422,
        '/problems/passkey-approval-not-for-this-request',
      ]);
      const approval = await approvalOptions(user, { action: 'passkey_enrol', challenge_id: next.challengeId });
      expect(approval.status).toBe(200);
      expect(approval.body.publicKey).toMatchObject({
        rpId: 'localhost',
        userVerification: 'required',
        allowCredentials: [expect.objectContaining({ id: passkey.id })],
      });
      const byStranger = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: {
          challengeId: next.challengeId,
          credential: second.create(next.publicKey),
          passkeyAssertion: { challengeId: approval.body.challengeId, credential: second.get(approval.body.publicKey) },
        },
      });
      expect(byStranger.body.type).toBe('/problems/unknown-passkey');
      const approval2 = (await approvalOptions(user, { action: 'passkey_enrol', challenge_id: next.challengeId })).body;
      const both = {
        challengeId: next.challengeId,
        credential: second.create(next.publicKey),
        passkeyAssertion: { challengeId: approval2.challengeId, credential: passkey.get(approval2.publicKey) },
      };
      expect(
        (await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user), json: { ...both, pin: closing } }))
          .body.type,
      ).toBe('/problems/step-up-ambiguous');
      const added = await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user), json: both });
      expect(added.status).toBe(201);
      // The approval challenge is spent: it approves nothing else.
      const third = (await options(user)).body;
      const replayed = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
        headers: bearer(user),
        json: { ...both, challengeId: third.challengeId, credential: new SoftwarePasskey().create(third.publicKey) },
      });
      expect(replayed.status).toBeGreaterThanOrEqual(409);
      expect(await listed(user)).toHaveLength(2);
      // A user without a passkey gets no approval challenge: the PIN is their proof.
      expect((await approvalOptions(await registerUser(stack), { action: 'account_close' })).body.type).toBe(
        '/problems/no-passkey',
      );
      // An action no request takes a passkey for: no challenge.
      expect((await approvalOptions(user, { action: 'transfer' })).body.type).toBe('/problems/step-up-action-unknown');
    });

    it('removes a passkey only with the same proof; every change is mailed to the person and written as an event', async () => {
      const user = await registerUser(stack);
      const email = `pk.${randomUUID().slice(0, 8)}@example.com`;
      await verifyEmail(stack, user, email);
      const { passkey, passkeyId } = await enrolPasskey(stack, user, { name: 'Pixel', pastItsHold: true });
      const other = await registerUser(stack);
      const othersKey = await enrolPasskey(stack, other);

      expect((await remove(user, passkeyId)).body.type).toBe('/problems/step-up-required');
      const bound = await encryptPin(stack, ENROLMENT_PIN, {
        request: { action: 'passkey_remove', passkey_id: passkeyId },
      });
      // Another user's passkey, with the caller's own PIN naming it: not found, as one that does not exist.
      const boundToTheirs = await encryptPin(stack, ENROLMENT_PIN, {
        request: { action: 'passkey_remove', passkey_id: othersKey.passkeyId },
      });
      expect((await remove(user, othersKey.passkeyId, { pin: boundToTheirs })).status).toBe(404);
      expect(
        (
          await remove(other, passkeyId, {
            pin: await encryptPin(stack, ENROLMENT_PIN, {
              request: { action: 'passkey_remove', passkey_id: passkeyId },
            }),
          })
        ).status,
      ).toBe(404);
      expect((await remove(user, 'not-an-id', { pin: bound })).status).toBe(400);
      expect(
        (
          await remove(user, passkeyId, {
            pin: await encryptPin(stack, ENROLMENT_PIN, {
              request: { action: 'passkey_remove', passkey_id: othersKey.passkeyId },
            }),
          })
        ).body.type,
      ).toBe('/problems/pin-not-for-this-request');
      expect(await listed(user)).toHaveLength(1);

      // Removed with the passkey's own approval (or the PIN): gone, and the profile no longer offers it.
      const approval = (await approvalOptions(user, { action: 'passkey_remove', passkey_id: passkeyId })).body;
      const removed = await remove(user, passkeyId, {
        passkeyAssertion: { challengeId: approval.challengeId, credential: passkey.get(approval.publicKey) },
      });
      expect([removed.status, removed.body]).toEqual([200, { passkeyId, removed: true }]);
      expect(await listed(user)).toEqual([]);
      expect(
        (await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods,
      ).toEqual([]);
      expect((await remove(user, passkeyId, { pin: bound })).status).toBe(404);

      const events = (
        await stack.orm.em
          .fork()
          .find(
            EventEntity,
            { userId: user.userId, type: { $in: ['passkey.added', 'passkey.removed'] } },
            { orderBy: { position: 'asc' } },
          )
      ).map((e) => [e.type, e.resourceId]);
      expect(events).toEqual([
        ['passkey.added', passkeyId],
        ['passkey.removed', passkeyId],
      ]);
      // The worker mails each change once (the notice waits for the change to commit; the event id is the message key).
      await waitFor(
        async () => (await inbox(stack, email)).filter((m) => /passkey/.test(m.subject)).length === 2,
        60_000,
        'two passkey notices',
      );
      const notices = (await inbox(stack, email))
        .filter((m) => /passkey/.test(m.subject))
        .map((m) => m.subject)
        .reverse();
      expect(notices).toEqual(['A passkey was added to your account', 'A passkey was removed from your account']);
      expect((await inbox(stack, email)).find((m) => m.subject.includes('added'))!.text).toContain('"Pixel"');
    });
  });
});
