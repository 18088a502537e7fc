import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, Wallet, ZeroAddress, getAddress, parseEther, type BaseWallet, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { EventEntity, SignedOperationEntity, SmartAccountEntity } from '../../db/entities';
import { deployWorkflowId } from '../../workflows/messages';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { ownerApproval } from '../helpers/wallet';
import { encryptPin } from '../helpers/pin';

/** Addresses of the OFAC snapshot the sandbox's SDN list names. */
const LISTED = readFileSync(join(__dirname, '..', '..', 'data', 'ofac-sdn', 'ETH.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);

describe('smart-account deployment over HTTP on two real chains', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  const owner = Wallet.createRandom();
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
    user = await registerUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const auth = (u: RegisteredUser = user) => ({ authorization: `Bearer ${u.accessToken}` });
  /** The first prepare names the owner key: the user's PIN approves it (ignored by later prepares). */
  const prepare = async (networkId: string, body: { ownerAddress?: string } = {}, u: RegisteredUser = user) =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy/prepare`, {
      headers: auth(u),
      json: {
        ...body,
        ...(body.ownerAddress?.startsWith('0x') ? await ownerApproval(stack, u, body.ownerAddress) : {}),
      },
    });
  const execute = (networkId: string, items: object[], u: RegisteredUser = user, key = randomUUID()) =>
    call(`${stack.apiUrl}/v1/wallet/networks/${networkId}/deploy`, {
      headers: { ...auth(u), 'idempotency-key': key },
      json: { signing: { items } },
    });
  const signSlot = (slot: { id: string; parameter: object; payload: string }, signer: BaseWallet = owner) => ({
    id: slot.id,
    parameter: slot.parameter,
    signature: { authResponse: { signature: signer.signingKey.sign(slot.payload).serialized } },
  });
  const jobStatus = (jobId: string, u: RegisteredUser = user) =>
    call(`${stack.apiUrl}/v1/wallet/deploy-jobs/${jobId}`, { headers: auth(u) });
  const completed = async (jobId: string) => {
    await waitFor(
      async () => ['completed', 'failed'].includes((await jobStatus(jobId)).body.status),
      60_000,
      `job ${jobId}`,
    );
    return (await jobStatus(jobId)).body;
  };

  it('deploys the counterfactual account on ETHEREUM and POLYGON, visible on chain', async () => {
    const first = await prepare('ETHEREUM', { ownerAddress: owner.address });
    expect(first.status).toBe(200);
    const [slot] = first.body.items;
    expect(slot.parameter).toMatchObject({
      algorithm: 'eip712-erc4337-userop-v1',
      keyUri: `key:secp256k1:${owner.address}`,
    });
    expect(slot.parameter.domain).toMatchObject({
      name: 'ERC4337',
      version: '1',
      chainId: 31337,
      verifyingContract: stack.chains[0]!.entryPoint,
    });
    const address = slot.parameter.domain.accountAddress;
    expect(await stack.chains[0]!.provider.getCode(address)).toBe('0x');

    const accepted = await execute('ETHEREUM', [signSlot(slot)]);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ jobId: slot.id, status: 'submitted' });
    expect(accepted.headers.get('location')).toBe(`/v1/wallet/deploy-jobs/${slot.id}`);
    const job = await completed(slot.id);
    expect(job).toMatchObject({
      status: 'completed',
      accountAddress: address,
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(await stack.chains[0]!.provider.getCode(address)).not.toBe('0x');
    // The same signed slot again (a retry whose answer was lost, with a new Idempotency-Key): the same acceptance,
    // nothing started again (found by the cluster drill, where it answered 409).
    const retried = await execute('ETHEREUM', [signSlot(slot)]);
    expect([retried.status, retried.body]).toEqual([202, { jobId: slot.id, status: 'submitted' }]);
    expect((await jobStatus(slot.id)).body.status).toBe('completed');
    // The job reads completed once its activity recorded it; the workflow closes right after (found by CI: RUNNING).
    const handle = stack.temporal.workflow.getHandle(deployWorkflowId(user.userId, 'ETHEREUM', slot.id));
    await handle.result();
    const description = await handle.describe();
    expect(description.status.name).toBe('COMPLETED');
    // The transfer key is bounded on chain as the prepare answer said: an expiry, and a daily cap per token.
    const { transferSigner, transferSignerValidUntil, transferSignerDailyCaps } = slot.parameter.domain;
    // The default caps name ETH, USDT and USDC (WBTC has none: the transfer key cannot send it).
    expect(transferSignerDailyCaps).toEqual({
      ETH: parseEther('5').toString(),
      USDT: '10000000000',
      USDC: '10000000000',
    });
    expect(transferSignerValidUntil).toBeGreaterThan(Date.now() / 1000 + 364 * 24 * 3600);
    const account = new Contract(address, loadArtifact('WalletAccount').abi as InterfaceAbi, stack.chains[0]!.provider);
    expect(await account.getFunction('transferSigner')()).toBe(transferSigner);
    expect(await account.getFunction('transferSignerValidUntil')()).toBe(BigInt(transferSignerValidUntil));
    expect((await account.getFunction('transferAllowances')(ZeroAddress)).dailyCap).toBe(parseEther('5'));
    expect((await account.getFunction('transferAllowances')(stack.chains[0]!.usdt)).dailyCap).toBe(10_000_000_000n);

    // The owner is remembered: the second network needs no ownerAddress, and the address is the same.
    const second = await prepare('POLYGON');
    expect(second.body.items[0].parameter.domain.accountAddress).toBe(address);
    expect((await execute('POLYGON', [signSlot(second.body.items[0])])).status).toBe(202);
    expect((await completed(second.body.items[0].id)).status).toBe('completed');
    expect(await stack.chains[1]!.provider.getCode(address)).not.toBe('0x');
    const accounts = await stack.orm.em.fork().find(SmartAccountEntity, { userId: user.userId });
    expect(accounts.map((a) => [a.networkId, a.status, a.address]).sort()).toEqual([
      ['ETHEREUM', 'deployed', address],
      ['POLYGON', 'deployed', address],
    ]);
    // One deploy.completed per job, written with the job's completion.
    const events = await stack.orm.em.fork().find(EventEntity, { resourceId: slot.id });
    expect(events.map((e) => [e.type, e.sequence, e.data])).toEqual([
      ['deploy.completed', 1, { opId: slot.id, networkId: 'ETHEREUM', accountAddress: address, txHash: job.txHash }],
    ]);
  });

  it('refuses a second deployment where the account exists, and a replayed slot', async () => {
    const again = await prepare('ETHEREUM');
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('/problems/account-already-deployed');
    const job = await stack.orm.em
      .fork()
      .findOneOrFail(SignedOperationEntity, { userId: user.userId, networkId: 'ETHEREUM', status: 'completed' });
    const replay = await execute('ETHEREUM', [
      {
        id: job.operationId,
        parameter: { algorithm: 'eip712-erc4337-userop-v1', keyUri: `key:secp256k1:${owner.address}` },
        signature: { authResponse: { signature: `0x${'11'.repeat(65)}` } },
      },
    ]);
    expect(replay.status).toBe(409);
    expect(replay.body.type).toBe('/problems/slot-already-used');
  });

  it('refuses a wrong signature, a malformed one, slots that do not match, unknown networks and another user’s job', async () => {
    const other = await registerUser(stack);
    const otherOwner = Wallet.createRandom();
    const prepared = await prepare('ETHEREUM', { ownerAddress: otherOwner.address }, other);
    const slot = prepared.body.items[0];

    const wrongKey = await execute('ETHEREUM', [signSlot(slot, Wallet.createRandom())], other);
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.body.type).toBe('/problems/invalid-signature');
    const malformed = await execute(
      'ETHEREUM',
      [{ ...signSlot(slot, otherOwner), signature: { authResponse: { signature: '0x1234' } } }],
      other,
    );
    expect(malformed.status).toBe(422);
    const mismatch = await execute(
      'ETHEREUM',
      [{ ...signSlot(slot, otherOwner), parameter: { ...slot.parameter, algorithm: 'eip191-personal-sign' } }],
      other,
    );
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.type).toBe('/problems/slot-mismatch');
    expect((await execute('POLYGON', [signSlot(slot, otherOwner)], other)).status).toBe(404);
    expect((await execute('ETHEREUM', [signSlot(slot, otherOwner)])).status).toBe(404); // the first user cannot use it
    expect((await jobStatus(slot.id)).status).toBe(404);
    const unknown = await prepare('SOLANA_X');
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe('/problems/unknown-network');
    expect((await prepare('ethereum')).status).toBe(400);
    expect((await prepare('ETHEREUM', { ownerAddress: 'not-an-address' }, other)).status).toBe(400);

    const stillPrepared = await stack.orm.em.fork().findOneOrFail(SignedOperationEntity, { operationId: slot.id });
    expect(stillPrepared.status).toBe('prepared');
    const ok = await execute('ETHEREUM', [signSlot(slot, otherOwner)], other);
    expect(ok.status).toBe(202);
  });

  it('needs the owner address on the first prepare', async () => {
    const fresh = await registerUser(stack);
    const result = await prepare('ETHEREUM', {}, fresh);
    expect(result.status).toBe(422);
    expect(result.body.type).toBe('/problems/owner-address-required');
    // Found by Schemathesis: a mixed-case address failing its EIP-55 checksum was a 500.
    const owner = Wallet.createRandom().address;
    const flipped =
      owner.slice(0, 2) +
      [...owner.slice(2)]
        .map((c) => (/[a-f]/.test(c) ? c.toUpperCase() : /[A-F]/.test(c) ? c.toLowerCase() : c))
        .join('');
    const badChecksum = await prepare('ETHEREUM', { ownerAddress: flipped }, fresh);
    if (/[a-f]/.test(flipped.slice(2)) && /[A-F]/.test(flipped.slice(2)))
      expect([badChecksum.status, badChecksum.body.type]).toEqual([422, '/problems/invalid-address']);
  });

  it('a stolen token names no first owner key: the first prepare needs the PIN naming it; a sanctioned key is refused before any gas', async () => {
    const victim = await registerUser(stack);
    const thiefs = Wallet.createRandom().address;
    const raw = (body: object) =>
      call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, { headers: auth(victim), json: body });
    // The token alone (before the step-up policy: 200, the thief's key recorded as the owner of every account).
    const tokenOnly = await raw({ ownerAddress: thiefs });
    expect([tokenOnly.status, tokenOnly.body.type]).toEqual([422, '/problems/step-up-required']);
    const forAnother = await raw({
      ownerAddress: thiefs,
      pin: await encryptPin(stack, victim.pin!, {
        request: { action: 'owner_set', owner_address: Wallet.createRandom().address },
      }),
    });
    expect(forAnother.body.type).toBe('/problems/pin-not-for-this-request');
    expect(await stack.orm.em.fork().count(SmartAccountEntity, { userId: victim.userId })).toBe(0);
    // A key on a sanctions list, with the person's own PIN: refused, nothing recorded, nothing sponsored.
    const listed = getAddress(LISTED[3]!.toLowerCase());
    const sanctioned = await prepare('ETHEREUM', { ownerAddress: listed }, victim);
    expect([sanctioned.status, sanctioned.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect(await stack.orm.em.fork().count(SmartAccountEntity, { userId: victim.userId })).toBe(0);
    expect(await stack.orm.em.fork().count(SignedOperationEntity, { userId: victim.userId })).toBe(0);
    // The person's own key, with their PIN naming it: prepared; later prepares name it without a proof.
    const mine = Wallet.createRandom().address;
    expect((await prepare('ETHEREUM', { ownerAddress: mine }, victim)).status).toBe(200);
    expect((await raw({})).status).toBe(200);
    expect((await raw({ ownerAddress: thiefs })).body.type).toBe('/problems/owner-mismatch');
  });
});
