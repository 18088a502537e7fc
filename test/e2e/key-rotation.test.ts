import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Contract, Wallet, getAddress, type BaseWallet } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES } from '../../integrations/evm/user-operation';
import { keyRotationWorkflowId } from '../../workflows/messages';
import { ComplianceCaseEntity, EventEntity, KeyRotationTaskEntity } from '../../db/entities';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';

/** Addresses of the OFAC snapshot the sandbox's SDN list names. */
const LISTED = readFileSync(join(__dirname, '..', '..', 'data', 'ofac-sdn', 'ETH.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);

describe('key rotation over HTTP on two real chains', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    for (const chain of stack.chains) chain.proxy.down = false;
  });

  const ownerOf = (chain: StackChain, account: string) =>
    new Contract(account, loadArtifact('WalletAccount').abi as never, chain.provider).getFunction(
      'owner',
    )() as Promise<string>;
  const prepare = (user: RegisteredUser, body: object) =>
    call(`${stack.apiUrl}/v1/wallet/keys/rotate/prepare`, { headers: bearer(user), json: body });
  const execute = (user: RegisteredUser, items: object[]) =>
    call(`${stack.apiUrl}/v1/wallet/keys/rotate`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { signing: { items } },
    });
  const status = (user: RegisteredUser, taskId: string) =>
    call(`${stack.apiUrl}/v1/wallet/keys/rotate/${taskId}`, { headers: bearer(user) });
  const settled = async (user: RegisteredUser, taskId: string) => {
    await waitFor(async () => (await status(user, taskId)).body.status !== 'processing', 90_000, `rotation ${taskId}`);
    return status(user, taskId);
  };
  const setUp = async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const account = await deployAccount(stack, user, owner, 'ETHEREUM');
    await deployAccount(stack, user, owner, 'POLYGON');
    return { user, owner, account };
  };

  it('rotates the owner on both networks with one merkle-root signature; the new key then controls each account', async () => {
    const { user, owner, account } = await setUp();
    const newOwner = Wallet.createRandom();
    const prepared = await prepare(user, { newOwnerAddress: newOwner.address });
    expect(prepared.status).toBe(200);
    const [slot] = prepared.body.items;
    expect(slot.parameter).toMatchObject({
      algorithm: 'eip712-erc4337-merkleroot-v1',
      keyUri: `key:secp256k1:${owner.address}`,
    });
    expect(slot.parameter.domain.operations.map((o: { networkId: string }) => o.networkId)).toEqual([
      'ETHEREUM',
      'POLYGON',
    ]);
    // One signature, made by an independent EIP-712 signer over the root the slot names.
    const rootSignature = await owner.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, {
      root: slot.parameter.domain.root,
    });
    const accepted = await execute(user, [
      { id: slot.id, parameter: slot.parameter, signature: { authResponse: { signature: rootSignature } } },
    ]);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ taskId: slot.id, status: 'processing' });

    const result = await settled(user, slot.id);
    expect(Number(result.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(result.body.status).toBe('completed');
    for (const network of result.body.networks) {
      expect(network).toMatchObject({
        status: 'completed',
        error: null,
        retryable: false,
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
    }
    for (const chain of stack.chains) expect(await ownerOf(chain, account)).toBe(newOwner.address);
    // The task's status is recorded by the workflow's last activity, just before the workflow itself closes.
    const handle = stack.temporal.workflow.getHandle(keyRotationWorkflowId(slot.id));
    await handle.result();
    expect((await handle.describe()).status.name).toBe('COMPLETED');

    // The new key controls the accounts: it can rotate them back; the old key no longer can.
    // Found by Schemathesis: a mixed-case address failing its EIP-55 checksum was a 500.
    const flipped = `0x${[...owner.address.slice(2)].map((c) => (/[a-f]/.test(c) ? c.toUpperCase() : /[A-F]/.test(c) ? c.toLowerCase() : c)).join('')}`;
    if (/[a-f]/.test(flipped) && /[A-F]/.test(flipped.slice(2)))
      expect((await prepare(user, { newOwnerAddress: flipped })).body.type).toBe('/problems/invalid-address');
    const back = await prepare(user, { newOwnerAddress: owner.address });
    expect(back.body.items[0].parameter.keyUri).toBe(`key:secp256k1:${newOwner.address}`);
    expect((await execute(user, [signSlot(back.body.items[0], owner)])).status).toBe(422);
    expect((await execute(user, [signSlot(back.body.items[0], newOwner)])).status).toBe(202);
    expect((await settled(user, back.body.items[0].id)).body.status).toBe('completed');
    for (const chain of stack.chains) expect(await ownerOf(chain, account)).toBe(owner.address);
  });

  it('reports partial_failure with retryable when a chain is down, then retries that network alone to completed', async () => {
    const { user, owner, account } = await setUp();
    const newOwner: BaseWallet = Wallet.createRandom();
    const prepared = await prepare(user, { newOwnerAddress: newOwner.address });
    const slot = prepared.body.items[0];
    stack.chains[1]!.proxy.down = true; // POLYGON's RPC stops answering
    expect((await execute(user, [signSlot(slot, owner)])).status).toBe(202);
    const partial = await settled(user, slot.id);
    expect(partial.body.status).toBe('partial_failure');
    const [ethereum, polygon] = partial.body.networks;
    expect(ethereum).toMatchObject({ networkId: 'ETHEREUM', status: 'completed', retryable: false });
    expect(polygon).toMatchObject({ networkId: 'POLYGON', status: 'failed', retryable: true, txHash: '' });
    expect(typeof polygon.error).toBe('string');
    expect(
      (
        await call(`${stack.apiUrl}/v1/wallet/keys/rotate/${slot.id}/networks/ETHEREUM/retry`, {
          method: 'POST',
          headers: bearer(user),
        })
      ).status,
    ).toBe(409);

    stack.chains[1]!.proxy.down = false;
    const ethereumTx = ethereum.txHash;
    const retried = await call(`${stack.apiUrl}/v1/wallet/keys/rotate/${slot.id}/networks/POLYGON/retry`, {
      method: 'POST',
      headers: bearer(user),
    });
    expect(retried.status).toBe(202);
    const done = await settled(user, slot.id);
    expect(done.body.status).toBe('completed');
    expect(done.body.networks[0].txHash).toBe(ethereumTx); // ETHEREUM was not touched again
    for (const chain of stack.chains) expect(await ownerOf(chain, account)).toBe(newOwner.address);
    // The events tell the same story, in order: POLYGON failed (retryable), the rotation ended partial, POLYGON
    // then completed and so did the rotation; ETHEREUM completed once.
    const events = await stack.orm.em
      .fork()
      .find(EventEntity, { resourceId: slot.id }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const story = events.map((e) => `${e.type}${e.data.networkId ? `:${e.data.networkId as string}` : ''}`);
    expect(story.filter((s) => s.endsWith(':ETHEREUM'))).toEqual(['key_rotation.network_completed:ETHEREUM']);
    expect(story.filter((s) => !s.endsWith(':ETHEREUM'))).toEqual([
      'key_rotation.network_failed:POLYGON',
      'key_rotation.partial_failure',
      'key_rotation.network_completed:POLYGON',
      'key_rotation.completed',
    ]);
    expect(events.find((e) => e.type === 'key_rotation.network_failed')!.data).toMatchObject({ retryable: true });
  });

  it('refuses another user’s task, replays, and rotation without deployed accounts', async () => {
    const { user, owner } = await setUp();
    const prepared = await prepare(user, { newOwnerAddress: Wallet.createRandom().address });
    const slot = prepared.body.items[0];
    const stranger = await registerUser(stack);
    expect((await execute(stranger, [signSlot(slot, owner)])).status).toBe(404);
    expect((await status(stranger, slot.id)).status).toBe(404);
    expect((await status(user, slot.id)).status).toBe(404); // not executed yet
    expect((await execute(user, [signSlot(slot, owner)])).status).toBe(202);
    expect((await status(stranger, slot.id)).status).toBe(404);
    expect((await prepare(stranger, { newOwnerAddress: owner.address })).status).toBe(409);
    expect((await prepare(user, { newOwnerAddress: 'nope' })).status).toBe(400);
    expect((await prepare(user, { newOwnerAddress: owner.address, networkIds: ['NOWHERE'] })).status).toBe(404);
    expect((await settled(user, slot.id)).body.status).toBe('completed');
    const replay = await execute(user, [signSlot(slot, owner)]);
    expect(replay.status).toBe(409);
    expect(replay.body.type).toBe('/problems/slot-already-used');
  });

  it('refuses a new owner on a sanctions list before the service sponsors any gas for it, and opens a case', async () => {
    const { user } = await setUp();
    const listed = getAddress(LISTED[4]!.toLowerCase());
    const refused = await prepare(user, { newOwnerAddress: listed });
    expect([refused.status, refused.body.type]).toEqual([422, '/problems/recipient-sanctioned']);
    expect(await stack.orm.em.fork().count(KeyRotationTaskEntity, { userId: user.userId })).toBe(0);
    expect(
      await stack.orm.em
        .fork()
        .count(ComplianceCaseEntity, { userId: user.userId, address: listed, foundAt: 'key-rotation' }),
    ).toBe(1);
  });

  it('starts the workflow when the API died between recording the signature and starting it', async () => {
    const { user, owner, account } = await setUp();
    const newOwner = Wallet.createRandom();
    const slot = (await prepare(user, { newOwnerAddress: newOwner.address })).body.items[0];
    const signed = signSlot(slot, owner);
    // What a crash right after the conditional update leaves: processing, signature stored, no workflow.
    await stack.orm.em
      .fork()
      .nativeUpdate(
        KeyRotationTaskEntity,
        { taskId: slot.id },
        { status: 'processing', rootSignature: signed.signature.authResponse.signature },
      );
    expect((await execute(user, [signSlot(slot, Wallet.createRandom())])).status).toBe(422); // only the owner's slot resumes it
    const retried = await execute(user, [signed]);
    expect(retried.status).toBe(202);
    expect((await settled(user, slot.id)).body.status).toBe('completed');
    for (const chain of stack.chains) expect(await ownerOf(chain, account)).toBe(newOwner.address);
  });
});
