import { randomUUID } from 'node:crypto';
import { Wallet, id, parseEther, toQuantity } from 'ethers';
import { transferSignature } from '../../integrations/evm/user-operation';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED, bundlerDebug as debug, executeTransfer, fundedUser, untilIncluded } from '../helpers/transfers';
import { waitFor } from '../helpers/processes';
import { EventEntity, SignedOperationEntity, TransferEntity } from '../../db/entities';
import { createWalletClient, idempotencyKey, poll } from '@wallet-service/client';
import { isDeployed } from '../../integrations/evm/smart-account';
import { signSlot, ownerApproval } from '../helpers/wallet';
import { BundlerClient, UserOperationRejected } from '../../integrations/evm/bundler-client';
import { buildTransferOperation, transferCallData, transferNonceKey } from '../../integrations/evm/smart-account';
import { ChainProviders } from '../../integrations/evm/smart-account';
import { NetworkRegistry } from '../../platform/networks';

/**
 * Makes the chain ask `wei` per gas of base fee (from its next block on; it stays there while nothing is mined), and
 * the bundler enforce it: once the lower prices it saw have expired (2 s in this stack), it asks the chain again.
 */
const raiseBaseFee = async (chain: StackChain, wei: bigint) => {
  await chain.provider.send('anvil_setNextBlockBaseFeePerGas', [toQuantity(wei)]);
  await chain.provider.send('evm_mine', []);
  await new Promise((r) => setTimeout(r, 2500));
  await debug(chain, 'pimlico_getUserOperationGasPrice');
};

/**
 * The service as a client of a real ERC-4337 bundler (Alto) that fails: down at prepare (503, nothing stored), down
 * while an operation waits (it completes once when the bundler is back), an operation the bundler drops (sent again,
 * executed once), and an invalid operation in a burst (refused on its own; the others land).
 */
describe('user operations through a bundler that fails', () => {
  let stack: TestStack;
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      // The fee rises these tests cause cost more gas than a day's default budget.
      env: { TRANSFER_WAIT_SECONDS: '20', GAS_BUDGET_DAILY_KRW: '100000000' },
      // Alto enforces a fee rise once the lower prices it saw expire: seconds, not its default 20 s.
      bundler: { gasPriceExpirySeconds: 2 },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    for (const chain of stack.chains) {
      chain.bundlerProxy.down = false;
      chain.bundlerProxy.downAfter = null;
      chain.bundlerProxy.delayMs = 0;
      chain.bundlerProxy.refuse.clear();
    }
    await debug(stack.chains[0]!, 'debug_bundler_setBundlingMode', ['auto']);
  });

  /** Until the worker has signed (and stored) the transfer to `recipient`. */
  const untilSigned = (recipient: string) =>
    waitFor(
      async () =>
        (await stack.orm.em.fork().count(TransferEntity, { toAddress: recipient, userOperation: { $ne: null } })) === 1,
      30_000,
      'transfer signed',
    );

  const transfer = (user: RegisteredUser, to: string, amount: string) =>
    executeTransfer(stack, user, PIN, { to_address: to, network: 'ETHEREUM', token: 'ETH', amount });

  it('answers 503 with Retry-After when the bundler is down at prepare (its gas estimate), storing nothing', async () => {
    const user = await registerUser(stack);
    stack.chains[0]!.bundlerProxy.down = true;
    const ownerAddress = Wallet.createRandom().address;
    const prepared = await call(`${stack.apiUrl}/v1/wallet/networks/ETHEREUM/deploy/prepare`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
      json: { ownerAddress, ...(await ownerApproval(stack, user, ownerAddress)) },
    });
    expect([prepared.status, prepared.body.type]).toEqual([503, '/problems/service-unavailable']);
    expect(prepared.headers.get('retry-after')).toBe('5');
    expect(await stack.orm.em.fork().count(SignedOperationEntity, { userId: user.userId })).toBe(0);
  });

  it('completes a transfer once when the bundler is down while it is sent and comes back', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0');
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    const pending = transfer(user, recipient, '0.1');
    await untilSigned(recipient);
    chain.bundlerProxy.down = true;
    await new Promise((r) => setTimeout(r, 3000));
    chain.bundlerProxy.down = false;
    const first = await pending;
    expect([200, 202]).toContain(first.status);
    await untilIncluded(stack, user, first.body.transfer_id, 'transfer after the bundler came back', 90_000);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.1'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.9'));
  });

  it('sends an operation the bundler dropped from its mempool again, and it runs once', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0');
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    // The bundler holds what it receives until told to bundle; its mempool is cleared under the waiting worker.
    await debug(chain, 'debug_bundler_setBundlingMode', ['manual']);
    chain.bundlerProxy.methods = [];
    const pending = transfer(user, recipient, '0.2');
    await waitFor(
      async () => ((await debug(chain, 'debug_bundler_dumpMempool', [chain.entryPoint])) as unknown[]).length === 1,
      30_000,
      'the operation in the bundler',
    );
    await debug(chain, 'debug_bundler_clearState');
    await waitFor(
      async () => chain.bundlerProxy.methods.filter((m) => m === 'eth_sendUserOperation').length === 2,
      30_000,
      'the operation sent again',
    );
    await debug(chain, 'debug_bundler_setBundlingMode', ['auto']);
    const first = await pending;
    await untilIncluded(stack, user, first.body.transfer_id, 'transfer included', 60_000);
    expect(chain.bundlerProxy.methods.filter((m) => m === 'eth_sendUserOperation')).toHaveLength(2);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.2'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.8'));
  });

  it('asks the bundler for the receipt when a block carries the operation, and only now and then before', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0');
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    // The bundler holds the operation until told to bundle: the worker waits with no block carrying it.
    await debug(chain, 'debug_bundler_setBundlingMode', ['manual']);
    chain.bundlerProxy.methods = [];
    const pending = transfer(user, recipient, '0.1');
    await waitFor(
      async () => ((await debug(chain, 'debug_bundler_dumpMempool', [chain.entryPoint])) as unknown[]).length === 1,
      30_000,
      'the operation in the bundler',
    );
    await new Promise((r) => setTimeout(r, 2500));
    const asked = (methods: string[]) =>
      methods.slice(methods.indexOf('eth_sendUserOperation') + 1).filter((m) => m === 'eth_getUserOperationReceipt');
    // The network's inclusion watch reads the chain's blocks for every wait: the wait's own timer asks once a second
    // meanwhile (on a timer alone, 50 ms after the send and then more and more slowly, it asked 13 times in 2.5 s).
    expect(asked(chain.bundlerProxy.methods).length).toBeLessThanOrEqual(3);
    await debug(chain, 'debug_bundler_setBundlingMode', ['auto']);
    const first = await pending;
    await untilIncluded(stack, user, first.body.transfer_id, 'transfer included', 60_000);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.1'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.9'));
  });

  it('hands a transfer over without looking for it first; a retry after the answer was lost looks before it sends again, and it runs once', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0');
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    chain.bundlerProxy.methods = [];
    // The first hand-over reaches the bundler, its answer is lost and the bundler is unreachable for a moment.
    chain.bundlerProxy.downAfter = (body) => body.includes('"eth_sendUserOperation"');
    const pending = transfer(user, recipient, '0.3');
    await waitFor(async () => chain.bundlerProxy.down, 30_000, 'the first hand-over');
    await new Promise((r) => setTimeout(r, 1500));
    chain.bundlerProxy.down = false;
    const first = await pending;
    await untilIncluded(stack, user, first.body.transfer_id, 'transfer after the lost answer', 60_000);
    const methods = [...chain.bundlerProxy.methods];
    const firstSend = methods.indexOf('eth_sendUserOperation');
    // The signing's gas estimate, then the hand-over: nothing looked for in between (no attempt had handed it over).
    const estimate = methods.lastIndexOf('eth_estimateUserOperationGas', firstSend);
    expect(estimate).toBeGreaterThanOrEqual(0);
    expect(methods.slice(estimate + 1, firstSend)).not.toContain('eth_getUserOperationReceipt');
    // The retry, recorded as handed over, asks for the receipt before it sends anything again.
    const after = methods.slice(firstSend + 1);
    const lookup = after.indexOf('eth_getUserOperationReceipt');
    expect(lookup).toBeGreaterThanOrEqual(0);
    const resend = after.indexOf('eth_sendUserOperation');
    if (resend >= 0) expect(lookup).toBeLessThan(resend);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.3'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.7'));
  });

  it('refuses an invalid operation in a burst without holding the others back', async () => {
    const chain = stack.chains[0]!;
    const senders: Array<{ user: RegisteredUser; account: string }> = [];
    for (let i = 0; i < 4; i += 1) senders.push(await fundedUser(stack, PIN, '0')); // one funding key: one at a time
    const recipients = senders.map(() => Wallet.createRandom().address);
    // An operation from one of those accounts signed by a key the account does not know (AA24), sent to the same bundler.
    const network = NetworkRegistry.fromJson(stack.config.NETWORKS).get('ETHEREUM')!;
    const providers = new ChainProviders();
    const bundler = new BundlerClient(network.bundlerUrl, network.entryPoint);
    const forged = await buildTransferOperation(
      providers.for(network),
      bundler,
      network,
      senders[0]!.account,
      transferCallData(Wallet.createRandom().address, parseEther('0.5')),
      transferNonceKey(randomUUID()),
    );
    const intruder = Wallet.createRandom();
    const [answers, refusal] = await Promise.all([
      Promise.all(senders.map(({ user }, i) => transfer(user, recipients[i]!, '0.05'))),
      bundler.send({ ...forged, signature: transferSignature(intruder.signingKey.sign(id('forged')).serialized) }).then(
        () => null,
        (error: unknown) => error,
      ),
    ]);
    providers.destroy();
    expect(refusal).toBeInstanceOf(UserOperationRejected);
    expect((refusal as UserOperationRejected).reason).toMatch(/AA2\d|AA3\d|signature/i);
    for (const answer of answers) expect(answer.body.status).toMatch(INCLUDED);
    for (const recipient of recipients) expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.05'));
  });
  it('signs a transfer again at higher fees when the chain asks more than its cap, and moves the money once', async () => {
    const { user, account } = await fundedUser(stack, PIN, '0');
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    // Signed at today's fees, but not taken by the bundler until the chain asks three times the operation's cap: the
    // bundler then refuses it at that price.
    chain.bundlerProxy.refuse.add('eth_sendUserOperation');
    const pending = transfer(user, recipient, '0.1');
    await untilSigned(recipient);
    const signed = await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: recipient });
    const cap = BigInt(signed.userOperation!.maxFeePerGas!);
    await raiseBaseFee(chain, cap * 3n);
    chain.bundlerProxy.refuse.clear();
    const answer = await pending;
    await untilIncluded(stack, user, answer.body.transfer_id, 'the re-priced transfer', 90_000);

    const done = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId: answer.body.transfer_id });
    expect(done.replacedOperations?.map((o) => o.userOpHash)).toEqual([signed.userOpHash]);
    expect(done.userOpHash).not.toBe(signed.userOpHash);
    expect(BigInt(done.userOperation!.maxFeePerGas!)).toBeGreaterThan(cap * 3n);
    expect(done.userOperation!.nonce).toBe(signed.userOperation!.nonce);
    const events = await stack.orm.em.fork().find(EventEntity, { resourceId: answer.body.transfer_id });
    const repriced = events.filter((e) => e.type === 'transfer.repriced');
    expect(repriced).toHaveLength(1);
    expect(repriced[0]!.data).toMatchObject({
      replacedUserOpHash: signed.userOpHash,
      userOpHash: done.userOpHash,
      reason: 'fees-rose',
      maxFeePerGas: cap.toString(),
    });
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.1'));
    expect(await chain.provider.getBalance(account)).toBe(parseEther('0.9'));
  });

  it('shows an owner-signed deployment stalled by fees, and the owner signing it again replaces it', async () => {
    const user = await registerUser(stack);
    const owner = Wallet.createRandom();
    const chain = stack.chains[0]!;
    const api = createWalletClient({ baseUrl: stack.apiUrl, accessToken: user.accessToken });
    const prepare = async () => {
      const prepared = await api.POST('/v1/wallet/networks/{networkId}/deploy/prepare', {
        params: { path: { networkId: 'ETHEREUM' } },
        body: { ownerAddress: owner.address, ...(await ownerApproval(stack, user, owner.address)) },
      });
      if (!prepared.data) throw new Error(`prepare: ${prepared.response.status} ${JSON.stringify(prepared.error)}`);
      return prepared.data.items[0]!;
    };
    const execute = async (slot: Awaited<ReturnType<typeof prepare>>) => {
      const accepted = await api.POST('/v1/wallet/networks/{networkId}/deploy', {
        params: { path: { networkId: 'ETHEREUM' }, header: { 'idempotency-key': idempotencyKey() } },
        body: { signing: { items: [signSlot(slot, owner)] } },
      });
      expect(accepted.response.status).toBe(202);
    };
    const job = (jobId: string) => api.GET('/v1/wallet/deploy-jobs/{jobId}', { params: { path: { jobId } } });
    const operationOf = async (jobId: string) =>
      (await stack.orm.em.fork().findOneOrFail(SignedOperationEntity, { operationId: jobId })).userOperation;

    const first = await prepare();
    const cap = BigInt((await operationOf(first.id)).maxFeePerGas!);
    // The chain asks three times the prepared operation's cap before the owner's signature reaches the bundler.
    await raiseBaseFee(chain, cap * 3n);
    await execute(first);
    const stalled = await poll(
      () => job(first.id),
      (j) => j.status === 'stalled',
      { timeoutMs: 60_000, what: 'the deployment stalled' },
    );
    expect(stalled).toMatchObject({ status: 'stalled', stallReason: 'fees-rose', replacedBy: null, txHash: null });
    const stallEvents = await stack.orm.em.fork().find(EventEntity, { resourceId: first.id, type: 'deploy.stalled' });
    expect(stallEvents).toHaveLength(1);
    expect(stallEvents[0]!.data).toMatchObject({ reason: 'fees-rose', maxFeePerGas: cap.toString() });

    // Prepared again: same nonce, priced above the stalled one and the chain; signed and executed as before.
    const second = await prepare();
    const again = await operationOf(second.id);
    expect(again.nonce).toBe((await operationOf(first.id)).nonce);
    expect(BigInt(again.maxFeePerGas!)).toBeGreaterThan(cap * 3n);
    await execute(second);
    await poll(
      () => job(second.id),
      (j) => j.status === 'completed',
      { timeoutMs: 60_000, what: 'the new deployment' },
    );
    const replaced = await poll(
      () => job(first.id),
      (j) => j.status === 'replaced',
      { timeoutMs: 90_000, what: 'the stalled deployment replaced' },
    );
    expect(replaced).toMatchObject({ replacedBy: second.id, txHash: null });
    const address = (second.parameter as { domain: { accountAddress: string } }).domain.accountAddress;
    expect(await isDeployed(chain.provider, address)).toBe(true);
    expect((await stack.orm.em.fork().find(EventEntity, { resourceId: first.id })).map((e) => e.type).sort()).toEqual([
      'deploy.replaced',
      'deploy.stalled',
    ]);
  });
});
