import { randomUUID } from 'node:crypto';
import { Wallet, type BaseWallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { SoftwarePasskey, approveSlot } from '../helpers/software-passkey';

describe('passkeys: WebAuthn registration and passkey approval of chain operations', () => {
  let stack: TestStack;
  beforeAll(async () => { stack = await startTestStack(testDatabases()[0]!, { chains: true }); });
  afterAll(async () => { await stack?.stop(); });

  const options = (user: RegisteredUser) => call(`${stack.apiUrl}/v1/auth/passkeys/registration/options`, { method: 'POST', headers: bearer(user) });
  const register = (user: RegisteredUser, body: object) => call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user), json: body });
  async function addPasskey(user: RegisteredUser, passkey = new SoftwarePasskey()): Promise<SoftwarePasskey> {
    const { body } = await options(user);
    const added = await register(user, { challengeId: body.challengeId, name: 'Test phone', credential: passkey.create(body.publicKey) });
    if (added.status !== 201) throw new Error(`passkey registration failed: ${added.status} ${JSON.stringify(added.body)}`);
    return passkey;
  }
  const deployPrepare = (user: RegisteredUser, owner: BaseWallet, networkId = 'ETHEREUM') =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy/prepare`, { headers: bearer(user), json: { ownerAddress: owner.address } });
  const deployExecute = (user: RegisteredUser, items: object[], networkId = 'ETHEREUM') =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy`, { headers: { ...bearer(user), 'idempotency-key': randomUUID() }, json: { signing: { items } } });

  it('registers a passkey; the profile and the list show it', async () => {
    const user = await registerUser(stack);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods).toEqual([]);
    const { status, body } = await options(user);
    expect(status).toBe(200);
    expect(body.publicKey).toMatchObject({ rp: { id: 'localhost', name: 'Wallet' }, attestation: 'none', authenticatorSelection: { userVerification: 'required' } });
    const passkey = new SoftwarePasskey();
    const request = { challengeId: body.challengeId, name: 'Galaxy S25', credential: passkey.create(body.publicKey) };
    const key = randomUUID();
    const added = await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: { ...bearer(user), 'idempotency-key': key }, json: request });
    expect(added.status).toBe(201);
    // A retry after a lost answer (same key, same body) replays it instead of tripping over the spent challenge.
    const replayed = await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: { ...bearer(user), 'idempotency-key': key }, json: request });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(added.body);
    expect(added.body).toMatchObject({ name: 'Galaxy S25', deviceType: 'singleDevice', backedUp: false, lastUsedAt: null });
    expect(added.headers.get('location')).toBe(`/v1/auth/passkeys/${added.body.passkeyId}`);

    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) })).body.twoFactorMethods).toEqual(['passkey']);
    const list = await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) });
    expect(list.body.items.map((p: { passkeyId: string }) => p.passkeyId)).toEqual([added.body.passkeyId]);

    // The options of a second registration exclude the registered credential; registering it again is refused.
    const again = await options(user);
    expect(again.body.publicKey.excludeCredentials).toEqual([expect.objectContaining({ id: passkey.id })]);
    const duplicate = await register(user, { challengeId: again.body.challengeId, credential: passkey.create(again.body.publicKey) });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.type).toBe('/problems/passkey-exists');
  });

  it('refuses registrations that do not verify, reused or foreign challenges, and no token', async () => {
    const user = await registerUser(stack);
    const other = await registerUser(stack);
    const passkey = new SoftwarePasskey();

    const wrongOrigin = (await options(user)).body;
    const refused = await register(user, { challengeId: wrongOrigin.challengeId, credential: passkey.create(wrongOrigin.publicKey, { origin: 'https://evil.example' }) });
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/invalid-passkey-registration');
    // The challenge was spent by that attempt: it cannot be tried again.
    const reused = await register(user, { challengeId: wrongOrigin.challengeId, credential: passkey.create(wrongOrigin.publicKey) });
    expect(reused.status).toBe(409);

    const otherChallenge = (await options(user)).body;
    const signedForOther = passkey.create({ ...otherChallenge.publicKey, challenge: Buffer.from('another challenge').toString('base64url') });
    expect((await register(user, { challengeId: otherChallenge.challengeId, credential: signedForOther })).status).toBe(422);

    const fresh = (await options(user)).body;
    expect((await register(other, { challengeId: fresh.challengeId, credential: passkey.create(fresh.publicKey) })).status).toBe(404);
    expect((await register(user, { challengeId: `wac_${randomUUID()}`, credential: passkey.create(fresh.publicKey) })).status).toBe(404);
    const malformed = await register(user, { challengeId: fresh.challengeId, credential: { id: 'x', type: 'public-key' } });
    expect(malformed.status).toBe(400);
    expect((await call(`${stack.apiUrl}/v1/auth/passkeys`, {})).status).toBe(401);
    expect((await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items).toEqual([]);
  });

  it('a user with a passkey must approve a deployment with it; the approval binds to that operation', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const passkey = await addPasskey(user);

    const prepared = await deployPrepare(user, owner);
    expect(prepared.status).toBe(200);
    const [onChain, twoFactor] = prepared.body.items;
    expect(twoFactor).toMatchObject({
      id: `${onChain.id}.passkey`, payload: '',
      parameter: { authMethod: 'passkey', options: { rpId: 'localhost', userVerification: 'required', allowCredentials: [expect.objectContaining({ id: passkey.id })] } },
    });

    const missing = await deployExecute(user, [signSlot(onChain, owner)]);
    expect(missing.status).toBe(422);
    expect(missing.body.type).toBe('/problems/passkey-required');

    // An approval made for another operation (another prepare's challenge) does not approve this one.
    const otherPrepare = (await deployPrepare(user, owner, 'POLYGON')).body.items;
    const misbound = await deployExecute(user, [signSlot(onChain, owner), { ...approveSlot(otherPrepare[1], passkey), id: twoFactor.id }]);
    expect(misbound.status).toBe(422);
    expect(misbound.body.type).toBe('/problems/invalid-passkey-assertion');

    // A passkey of someone else, or an assertion without user verification, is refused.
    const stranger = new SoftwarePasskey();
    expect((await deployExecute(user, [signSlot(onChain, owner), approveSlot(twoFactor, stranger)])).body.type).toBe('/problems/unknown-passkey');
    const unverified = { id: twoFactor.id, parameter: { authMethod: 'passkey' }, signature: { authResponse: passkey.get(twoFactor.parameter.options, { userVerified: false }) } };
    expect((await deployExecute(user, [signSlot(onChain, owner), unverified])).status).toBe(422);
    expect((await deployExecute(user, [signSlot(onChain, owner), { ...approveSlot(twoFactor, passkey), parameter: { authMethod: 'sms' } }])).status).toBe(422);

    const accepted = await deployExecute(user, [signSlot(onChain, owner), approveSlot(twoFactor, passkey)]);
    expect(accepted.status).toBe(202);
    await waitFor(async () => (await call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${onChain.id}`, { headers: bearer(user) })).body.status === 'completed', 60_000, 'deployment');
    const [stored] = (await call(`${stack.apiUrl}/v1/auth/passkeys`, { headers: bearer(user) })).body.items;
    expect(stored.lastUsedAt).not.toBeNull();

    // The same approval cannot be replayed on a new operation.
    const replay = await deployExecute(user, [signSlot(otherPrepare[0], owner), approveSlot(twoFactor, passkey)], 'POLYGON');
    expect(replay.status).toBe(422);
  });

  it('key rotation and DID keys carry a passkey slot too, and execute once approved', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    await deployAccount(stack, user, owner, 'ETHEREUM');
    const passkey = await addPasskey(user);
    const newOwner = Wallet.createRandom();

    const rotation = await call(`${stack.apiUrl}/v1/wallet/keys/rotate/prepare`, { headers: bearer(user), json: { newOwnerAddress: newOwner.address, networkIds: ['ETHEREUM'] } });
    expect(rotation.status).toBe(200);
    const [root, approval] = rotation.body.items;
    expect(approval.parameter.authMethod).toBe('passkey');
    const execute = (items: object[]) => call(`${stack.apiUrl}/v1/wallet/keys/rotate`, { headers: { ...bearer(user), 'idempotency-key': randomUUID() }, json: { signing: { items } } });
    expect((await execute([signSlot(root, owner)])).body.type).toBe('/problems/passkey-required');
    expect((await execute([signSlot(root, owner), approveSlot(approval, passkey)])).status).toBe(202);
    await waitFor(async () => (await call(`${stack.apiUrl}/v1/wallet/keys/rotate/${root.id}`, { headers: bearer(user) })).body.status === 'completed', 60_000, 'rotation');

    const did = await call(`${stack.apiUrl}/v1/did/keys/assertion/prepare`, { headers: bearer(user), json: { keyType: 'EcdsaSecp256k1VerificationKey2019', publicKey: Wallet.createRandom().signingKey.compressedPublicKey } });
    const [didSlot, didApproval] = did.body.items;
    expect(didApproval.parameter.authMethod).toBe('passkey');
    const added = await call(`${stack.apiUrl}/v1/did/keys/assertion`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() }, json: { signing: { items: [signSlot(didSlot, newOwner), approveSlot(didApproval, passkey)] } },
    });
    expect(added.status).toBe(202);
  });

  it('a user without passkeys gets no passkey slot and may not send one', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const prepared = await deployPrepare(user, owner);
    expect(prepared.body.items).toHaveLength(1);
    const bogus = { id: `${prepared.body.items[0].id}.passkey`, parameter: { authMethod: 'passkey' }, signature: { authResponse: new SoftwarePasskey().get({ challenge: 'AAAA', rpId: 'localhost' }) } };
    const refused = await deployExecute(user, [signSlot(prepared.body.items[0], owner), bogus]);
    expect(refused.status).toBe(422);
    expect(refused.body.type).toBe('/problems/slot-mismatch');
  });
});
