import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, Wallet, getAddress, parseEther, type BaseWallet, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { ANVIL_RECOVERY_KEY } from '../../dev/chains';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { encryptPin, transferPin } from '../helpers/pin';
import { inbox, verifyEmail } from '../helpers/mail';
import { signInWithIdCard } from '../helpers/sign-in';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { EventEntity, RecoveryEntity, SignedOperationEntity, SmartAccountEntity } from '../../db/entities';
import { startIdentityCheck, verifiedIdentityCheck } from '../helpers/identity-checks';

const DELAY = 10;
const HOLD = 2;
const COOLDOWN = 3600;
const PIN = '371902';
/** Addresses of the OFAC snapshot the sandbox's SDN list names. */
const LISTED = readFileSync(join(__dirname, '..', '..', 'data', 'ofac-sdn', 'ETH.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);

/**
 * Issue 24, point 5: a person whose phone and backup are gone gets their wallet back, through the account's upgrade to
 * the recoverable implementation and a recovery with a time lock; an attacker who signed in with a stolen ID card gets
 * nothing: held, told to the person, cancelled by the owner key within the delay, revoked.
 */
describe.each(testDatabases())('owner recovery on real chains, $name', (kind) => {
  /** A slow fault drill: on the last database only (helpers/databases.ts). */
  const drill = onLastDatabase(kind);
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        RECOVERY_DELAY_SECONDS: String(DELAY),
        NEW_DEVICE_HOLD_SECONDS: String(HOLD),
        RECOVERY_COOLDOWN_SECONDS: String(COOLDOWN),
      },
    });
  });
  afterAll(async () => stack?.stop());

  const chain = () => stack.chains[0]!;
  const accountAt = (address: string) =>
    new Contract(address, loadArtifact('WalletAccountRecoverable').abi as InterfaceAbi, chain().provider);
  const ownerOnChain = async (address: string) =>
    String(await accountAt(address).getFunction('owner').staticCall({ blockTag: 'latest' }));
  /** A registered person with a verified email, a PIN, and an account on ETHEREUM holding 1 ETH. */
  const person = async () => {
    const user = await registerUser(stack, undefined, { pin: PIN });
    const email = `rcv.${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, user, email);
    const owner = Wallet.createRandom();
    const account = await deployAccount(stack, user, owner, 'ETHEREUM');
    const nonce = await chain().provider.getTransactionCount(chain().funder.address, 'latest');
    await (await chain().funder.sendTransaction({ to: account, value: parseEther('1'), nonce })).wait();
    return { user, owner, account, email };
  };
  /** Prepare, sign with `signer`, execute, and wait for the operation (upgrade or cancellation) to complete. */
  const signedOperation = async (
    user: RegisteredUser,
    prepare: string,
    execute: string,
    signer: BaseWallet,
    json?: unknown,
  ) => {
    const prepared = await call(`${stack.apiUrl}${prepare}`, {
      method: 'POST',
      headers: bearer(user),
      ...(json ? { json } : {}),
    });
    expect([prepared.status, prepared.body.type]).toEqual([200, undefined]);
    const accepted = await call(`${stack.apiUrl}${execute}`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { signing: { items: [signSlot(prepared.body.items[0], signer)] } },
    });
    expect(accepted.status).toBe(202);
    const opId = (accepted.body.opId ?? accepted.body.jobId) as string;
    const statusPath = opId.startsWith('tkop_')
      ? `/v1/wallet/transfer-key-operations/${opId}`
      : `/v1/wallet/operations/${opId}`;
    await waitFor(
      async () => (await call(`${stack.apiUrl}${statusPath}`, { headers: bearer(user) })).body.status === 'completed',
      60_000,
      'operation',
    );
    return opId;
  };
  const upgrade = (user: RegisteredUser, owner: BaseWallet) =>
    signedOperation(
      user,
      '/v1/wallet/networks/ETHEREUM/upgrade/prepare',
      '/v1/wallet/networks/ETHEREUM/upgrade',
      owner,
    );
  const recoveryOf = (user: RegisteredUser, recoveryId: string) =>
    call(`${stack.apiUrl}/v1/account/recovery/${recoveryId}`, { headers: bearer(user) });
  /**
   * Asks for a recovery as the app does: the person verifies again with the identity provider on this device and
   * shows the ID card verified at registration, for this very request (the access token alone asks for nothing).
   */
  const askRecovery = async (user: RegisteredUser, newOwnerAddress: string) =>
    call(`${stack.apiUrl}/v1/account/recovery`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: {
        newOwnerAddress,
        identityCheckId: await verifiedIdentityCheck(stack, user, {
          action: 'recovery_start',
          new_owner_address: newOwnerAddress,
        }),
      },
    });

  it("upgrades an account of today's factory by an owner-signed operation: same address, owner, transfer key, caps and balance", async () => {
    const { user, owner, account } = await person();
    const view = () => call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/recovery`, { headers: bearer(user) });
    expect((await view()).body).toMatchObject({
      accountAddress: account,
      recoverable: false,
      upgradeAvailable: true,
      recoveryDelaySeconds: null,
    });
    // Nothing to recover before the upgrade: the recovery says so per network.
    const transferKey = async () =>
      (await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key`, { headers: bearer(user) })).body;
    const before = {
      key: await transferKey(),
      balance: await chain().provider.getBalance(account),
      owner: await ownerOnChain(account),
    };
    await upgrade(user, owner);
    expect((await view()).body).toMatchObject({
      recoverable: true,
      upgradeAvailable: false,
      recoveryDelaySeconds: DELAY,
      pendingOwner: null,
    });
    expect({
      key: await transferKey(),
      balance: await chain().provider.getBalance(account),
      owner: await ownerOnChain(account),
    }).toEqual(before);
    expect(
      await stack.orm.em.fork().count(EventEntity, { type: 'account_upgrade.completed', userId: user.userId }),
    ).toBe(1);
    expect(
      (
        await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/upgrade/prepare`, {
          method: 'POST',
          headers: bearer(user),
        })
      ).body.type,
    ).toBe('/problems/already-upgraded');
  });

  it('the phone and the backup are gone: the person signs in with the ID card, asks for recovery after the hold, and the new key controls the account after the delay, not before', async () => {
    const { user, owner, account, email } = await person();
    await upgrade(user, owner);
    const phone = await signInWithIdCard(stack, user);
    const newKey = Wallet.createRandom();
    const ask = () => askRecovery(phone, newKey.address);
    expect((await ask()).body.type).toBe('/problems/device-on-hold');
    await new Promise((r) => setTimeout(r, HOLD * 1000 + 200));
    const asked = await ask();
    expect(asked.status).toBe(202);
    const { recoveryId } = asked.body;
    await waitFor(async () => (await recoveryOf(phone, recoveryId)).body.status === 'scheduled', 30_000, 'scheduled');
    const scheduled = await recoveryOf(phone, recoveryId);
    expect(scheduled.body.networks).toEqual([
      expect.objectContaining({
        networkId: 'ETHEREUM',
        accountAddress: account,
        status: 'scheduled',
        executeAfter: expect.any(String),
      }),
    ]);
    expect(Number(scheduled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Executed before its delay: refused on chain (the recovery key itself tries) and not done by the service.
    const key = new Wallet(ANVIL_RECOVERY_KEY, chain().provider);
    await expect(
      (accountAt(account).connect(key) as Contract)
        .getFunction('executeRecovery')
        .staticCall(newKey.address, { blockTag: 'latest' }),
    ).rejects.toThrow(/too early/);
    expect(await ownerOnChain(account)).toBe(owner.address);
    await waitFor(
      async () => (await inbox(stack, email)).some((m) => m.subject === 'A recovery of your wallet was requested'),
      30_000,
      'recovery mail',
    );
    await waitFor(async () => (await recoveryOf(phone, recoveryId)).body.status === 'executed', 60_000, 'executed');
    expect(await ownerOnChain(account)).toBe(newKey.address);
    expect(
      (await stack.orm.em.fork().findOneOrFail(SmartAccountEntity, { userId: user.userId, networkId: 'ETHEREUM' }))
        .ownerAddress,
    ).toBe(newKey.address);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'recovery.executed', userId: user.userId })).toBe(1);
    // The new key signs for the account now (a transfer-key change, from the new phone).
    await signedOperation(
      phone,
      '/v1/wallet/networks/ETHEREUM/transfer-key/prepare',
      '/v1/wallet/networks/ETHEREUM/transfer-key',
      newKey,
      { action: 'set-caps', caps: { ETH: '2' } },
    );
    expect(
      (await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/transfer-key`, { headers: bearer(phone) })).body.caps[0],
    ).toMatchObject({ symbol: 'ETH', dailyCap: '2 ETH' });
  });

  it("an attacker signed in with a stolen ID card moves nothing during the hold; the person is told, cancels the attacker's recovery with the owner key within the delay, and revokes the device", async () => {
    const { user, owner, account, email } = await person();
    await upgrade(user, owner);
    const balance = await chain().provider.getBalance(account);
    // SIM swap plus the victim's stolen card: a sign-in by ID card only.
    const attacker = await signInWithIdCard(stack, user);
    const sample = { to_address: Wallet.createRandom().address, network: 'ETHEREUM', token: 'ETH', amount: '0.5' };
    const theft = await call(`${stack.apiUrl}/api/v1/transfer/crypto/execute`, {
      headers: bearer(attacker),
      json: { ...sample, pin: await transferPin(stack, PIN, sample) },
    });
    expect([theft.status, JSON.stringify(theft.body)]).toEqual([403, expect.stringContaining('device-on-hold')]);
    await waitFor(
      async () => (await inbox(stack, email)).some((m) => m.subject === 'A new device signed in to your account'),
      30_000,
      'new device mail',
    );
    // The hold passes before the person acts: the attacker (the SIM swap's identity result, the stolen card) asks for
    // a recovery to their own key.
    await new Promise((r) => setTimeout(r, HOLD * 1000 + 200));
    const thiefKey = Wallet.createRandom();
    const asked = await askRecovery(attacker, thiefKey.address);
    expect(asked.status).toBe(202);
    const { recoveryId } = asked.body;
    await waitFor(async () => (await recoveryOf(user, recoveryId)).body.status === 'scheduled', 30_000, 'scheduled');
    await waitFor(
      async () => (await inbox(stack, email)).some((m) => m.subject === 'A recovery of your wallet was requested'),
      30_000,
      'recovery mail',
    );
    // The person cancels from their own phone with the owner key, within the delay.
    await signedOperation(
      user,
      `/v1/account/recovery/${recoveryId}/networks/ETHEREUM/cancel/prepare`,
      `/v1/account/recovery/${recoveryId}/networks/ETHEREUM/cancel`,
      owner,
    );
    await waitFor(async () => (await recoveryOf(user, recoveryId)).body.status === 'cancelled', 30_000, 'cancelled');
    expect((await recoveryOf(user, recoveryId)).body.networks[0].status).toBe('cancelled');
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'recovery.cancelled', userId: user.userId })).toBe(1);
    // ...and signs the attacker's device out with the PIN: its token is refused at once.
    const revoked = await call(`${stack.apiUrl}/v1/account/devices/${attacker.deviceId}`, {
      method: 'DELETE',
      headers: bearer(user),
      json: {
        pin: await encryptPin(stack, PIN, { request: { action: 'device_revoke', device_id: attacker.deviceId } }),
      },
    });
    expect(revoked.status).toBe(200);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(attacker) })).status).toBe(401);
    // Past the delay nothing happened on chain: the owner and the funds are the person's.
    await new Promise((r) => setTimeout(r, DELAY * 1000));
    expect(await ownerOnChain(account)).toBe(owner.address);
    expect(await chain().provider.getBalance(account)).toBe(balance);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'recovery.executed', userId: user.userId })).toBe(0);
  });

  it('a stolen access token starts no recovery; the new owner is screened; after a cancellation a new one waits; every address the person has is told', async () => {
    const { user, owner, email } = await person();
    await upgrade(user, owner);
    // The person changed their address lately: the replaced one still gets every notice (a thief may have changed it).
    const newEmail = `rcv-new.${randomUUID().slice(0, 8)}@example.com`;
    await verifyEmail(stack, user, newEmail);
    const thiefKey = Wallet.createRandom();
    // The token alone (before the step-up policy: 202, the thief's key scheduled as owner).
    const tokenOnly = await call(`${stack.apiUrl}/v1/account/recovery`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { newOwnerAddress: thiefKey.address },
    });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    expect(tokenOnly.body.stepUp.accepts).toEqual([['identity', 'id_card']]);
    // A fresh identity verification without the ID card does not approve it.
    const started = await startIdentityCheck(stack, user, {
      action: 'recovery_start',
      new_owner_address: thiefKey.address,
    });
    expect(started.body).toMatchObject({ status: 'in_progress', proofs: ['id_card'] });
    const unproved = await call(`${stack.apiUrl}/v1/account/recovery`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { newOwnerAddress: thiefKey.address, identityCheckId: started.body.identityCheckId },
    });
    expect(unproved.body.type).toBe('/problems/identity-check-not-verified');
    // A key on a sanctions list is refused before the service pays any gas for it.
    const listed = getAddress(LISTED[2]!.toLowerCase());
    const sanctioned = await askRecovery(user, listed);
    expect([sanctioned.status, sanctioned.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect(await stack.orm.em.fork().count(RecoveryEntity, { userId: user.userId })).toBe(0);
    expect(
      await stack.orm.em.fork().count(SignedOperationEntity, { userId: user.userId, kind: 'recovery_cancel' }),
    ).toBe(0);

    // Asked with the identity check and the card: scheduled, and told at both addresses.
    const asked = await askRecovery(user, Wallet.createRandom().address);
    expect(asked.status).toBe(202);
    const { recoveryId } = asked.body;
    await waitFor(async () => (await recoveryOf(user, recoveryId)).body.status === 'scheduled', 30_000, 'scheduled');
    for (const address of [email, newEmail])
      await waitFor(
        async () => (await inbox(stack, address)).some((m) => m.subject === 'A recovery of your wallet was requested'),
        30_000,
        `recovery mail to ${address}`,
      );
    // Cancelled by the owner key; asking again at once waits out the cool-down.
    await signedOperation(
      user,
      `/v1/account/recovery/${recoveryId}/networks/ETHEREUM/cancel/prepare`,
      `/v1/account/recovery/${recoveryId}/networks/ETHEREUM/cancel`,
      owner,
    );
    await waitFor(async () => (await recoveryOf(user, recoveryId)).body.status === 'cancelled', 30_000, 'cancelled');
    const again = await askRecovery(user, Wallet.createRandom().address);
    expect([again.status, again.body.type]).toEqual([409, '/problems/recovery-cooling-down']);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(COOLDOWN - 60);
  });

  drill('a worker SIGKILLed during the delay: a new worker executes the recovery once per network', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const accounts = [
      await deployAccount(stack, user, owner, 'ETHEREUM'),
      await deployAccount(stack, user, owner, 'POLYGON'),
    ];
    for (const networkId of ['ETHEREUM', 'POLYGON']) {
      await signedOperation(
        user,
        `/v1/wallet/networks/${networkId}/upgrade/prepare`,
        `/v1/wallet/networks/${networkId}/upgrade`,
        owner,
      );
    }
    const newKey = Wallet.createRandom();
    await stack.stopWorker();
    const workers: ServiceProcess[] = [];
    try {
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const asked = await askRecovery(user, newKey.address);
      expect(asked.status).toBe(202);
      const { recoveryId } = asked.body;
      await waitFor(
        async () => (await recoveryOf(user, recoveryId)).body.status === 'scheduled',
        60_000,
        'scheduled',
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${workers[0]!.output()}`);
      });
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull();
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      await waitFor(
        async () => (await recoveryOf(user, recoveryId)).body.status === 'executed',
        90_000,
        'executed by the second worker',
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${workers[1]!.output()}`);
      });
      for (const [i, chain] of stack.chains.entries()) {
        const contract = new Contract(
          accounts[i]!,
          loadArtifact('WalletAccountRecoverable').abi as InterfaceAbi,
          chain.provider,
        );
        expect(String(await contract.getFunction('owner').staticCall({ blockTag: 'latest' }))).toBe(newKey.address);
        const executedLogs = await chain.provider.getLogs({
          address: accounts[i]!,
          topics: [contract.interface.getEvent('RecoveryExecuted')!.topicHash],
          fromBlock: 0,
        });
        expect(executedLogs).toHaveLength(1);
      }
      expect(await stack.orm.em.fork().count(EventEntity, { type: 'recovery.executed', userId: user.userId })).toBe(2);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await stack.startWorker();
    }
  });
});
