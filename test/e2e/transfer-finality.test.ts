import { randomUUID } from 'node:crypto';
import { Contract, JsonRpcProvider, Wallet, id, parseEther, parseUnits } from 'ethers';
import { temporal } from '@temporalio/proto';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { fundedUser as fundedUserWith } from '../helpers/transfers';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { bearer, deployAccount, signSlot } from '../helpers/wallet';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { waitFor } from '../helpers/processes';
import { EventEntity, SignedOperationEntity, TransferEntity, type Transfer } from '../../db/entities';
import { finalityWatchWorkflowId, transferFinalityWorkflowId } from '../../workflows/messages';

const CONFIRMATIONS = 5;
/** The EntryPoint's UserOperationEvent topic. */
const USER_OPERATION_EVENT = id('UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)');

/**
 * Transfer finality on a chain that makes a block every second (anvil mixed mining): confirmed at inclusion, finalized
 * CONFIRMATIONS blocks deep; a reorg (anvil_reorg) that removes the including block puts the transfer back in flight,
 * the same signed operation is sent again, and the money moves exactly once.
 */
describe.each(testDatabases())('transfer finality and reorgs on $name', (database) => {
  /** A slow fault drill: on the last database only (helpers/databases.ts). */
  const drill = onLastDatabase(database);
  let stack: TestStack;
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(database, { chains: true, chainBlockSeconds: 1, confirmations: CONFIRMATIONS });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const fundedUser = () => fundedUserWith(stack, PIN, '0');
  const send = async (user: RegisteredUser, to: string, amount: string) => {
    const fields: TransferFields = { to_address: to, network: 'ETHEREUM', token: 'ETH', amount };
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', user, {
      json: { ...fields, pin: await transferPin(stack, PIN, fields, key) },
      key,
    });
  };
  const rpc = () => new JsonRpcProvider(stack.chains[0]!.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const balance = async (address: string) =>
    BigInt((await rpc().send('eth_getBalance', [address, 'latest'])) as string);
  const row = (transferId: string) => stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId });

  it('answers confirmed at inclusion, then finalizes once the block is deep enough and still canonical', async () => {
    const { user } = await fundedUser();
    const to = Wallet.createRandom().address;
    const sent = await send(user, to, '0.1');
    expect([sent.status, sent.body.status]).toEqual([200, 'confirmed']);
    const included = await row(sent.body.transfer_id);
    expect(included.blockNumber).toEqual(expect.any(Number));
    expect(included.blockHash).toMatch(/^0x[0-9a-f]{64}$/);

    await waitFor(
      async () =>
        (await callApi(stack, `/api/v1/transfer/crypto/${sent.body.transfer_id}`, user)).body.status === 'finalized',
      60_000,
      'finalized',
    );
    const head = Number(await rpc().send('eth_blockNumber', []));
    expect(head - included.blockNumber! + 1).toBeGreaterThanOrEqual(CONFIRMATIONS);
    expect((await row(sent.body.transfer_id)).blockHash).toBe(included.blockHash);
    expect(await balance(to)).toBe(parseEther('0.1'));
  });

  // The watch's quick look (activities/transfer.ts finalIfStillThere) finalizes a transfer whose recorded block is still
  // the chain's and holds its operation in the recorded transaction; anything else gets the full look, which reads the
  // chain again. Here the recorded transaction is one the block does not hold: finalized all the same, with the
  // transaction the chain shows (a quick look that trusted the record would keep the wrong one).
  drill('finalizes by what the chain holds: a recorded transaction its block does not hold is read again', async () => {
    const { user } = await fundedUser();
    const sent = await send(user, Wallet.createRandom().address, '0.01');
    expect([sent.status, sent.body.status]).toEqual([200, 'confirmed']);
    const transferId = sent.body.transfer_id as string;
    // No block meanwhile, so the transfer cannot be deep enough before its record is changed.
    const chain = rpc();
    await chain.send('evm_setIntervalMining', [0]);
    let included: Transfer;
    try {
      included = await row(transferId);
      expect(included.status).toBe('confirmed');
      await stack.orm.em.fork().nativeUpdate(TransferEntity, { transferId }, { txHash: `0x${'ab'.repeat(32)}` });
    } finally {
      await chain.send('evm_setIntervalMining', [1]);
    }
    await waitFor(async () => (await row(transferId)).status === 'finalized', 60_000, 'finalized');
    const final = await row(transferId);
    expect([final.txHash, final.blockHash]).toEqual([included.txHash, included.blockHash]);
  });

  // The stop and the hand-over are the worker's and the workflow's, the same on both databases.
  drill(
    'a worker told to stop while a transfer waits for finality stops at once, and another worker finalizes it',
    async () => {
      const { user } = await fundedUser();
      const sent = await send(user, Wallet.createRandom().address, '0.01');
      expect([sent.status, sent.body.status]).toEqual([200, 'confirmed']);
      const transferId = sent.body.transfer_id as string;
      // The network's finality watch: one activity following every transfer confirmed on the chain.
      const watch = stack.temporal.workflow.getHandle(finalityWatchWorkflowId('ETHEREUM', stack.taskQueue));
      await waitFor(
        async () =>
          ((await watch.describe()).raw.pendingActivities ?? []).some(
            (a) => a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
          ),
        30_000,
        'the finality watch running',
      );
      // No more blocks: the transfer cannot become final, so a shutdown that waited for the watch would never end (a
      // plain timer in the watch held it; SIGTERM from an orchestrator then had to be followed by SIGKILL).
      const chain = rpc();
      await chain.send('evm_setIntervalMining', [0]);
      try {
        await stack.stopWorker();
        expect((await row(transferId)).status).toBe('confirmed');
      } finally {
        await chain.send('evm_setIntervalMining', [1]);
        await stack.startWorker();
      }
      await waitFor(async () => (await row(transferId)).status === 'finalized', 60_000, 'finalized by the next worker');
      expect((await watch.describe()).status.name).toBe('RUNNING');
    },
  );

  it('sends a transfer again when a reorg removes its block: moved once, counted once, finalized in the new chain', async () => {
    const { user, account } = await fundedUser();
    const to = Wallet.createRandom().address;
    const sent = await send(user, to, '0.25');
    expect([sent.status, sent.body.status]).toEqual([200, 'confirmed']);
    const transferId = sent.body.transfer_id as string;
    const before = await row(transferId);
    expect(await balance(to)).toBe(parseEther('0.25'));

    // The chain drops the block that included it (and those after): the transfer is gone from the chain. Mining is
    // paused meanwhile, so no block lands between reading the head and the reorg (which would leave the including
    // block in place) nor before the checks; it then goes on at one block a second.
    const chain = rpc();
    await chain.send('evm_setIntervalMining', [0]);
    const head = Number(await chain.send('eth_blockNumber', []));
    await chain.send('anvil_reorg', [head - before.blockNumber! + 1, []]);
    expect(await balance(to)).toBe(0n);
    expect(await chain.send('eth_getTransactionReceipt', [before.txHash])).toBeNull();
    await chain.send('evm_setIntervalMining', [1]);

    await waitFor(async () => (await row(transferId)).status === 'finalized', 90_000, 'finalized after the reorg');
    const after = await row(transferId);
    expect(after.txHash).not.toBe(before.txHash); // sent again, in a new transaction
    const canonical = (await chain.send('eth_getBlockByNumber', [`0x${after.blockNumber!.toString(16)}`, false])) as {
      hash: string;
    };
    expect(canonical.hash).toBe(after.blockHash);

    // Moved exactly once: the recipient has the amount, the account paid it once (gas is sponsored).
    expect(await balance(to)).toBe(parseEther('0.25'));
    expect(await balance(account)).toBe(parseEther('0.75'));
    // Counted once: one transfer, once in the history, once against today's limits.
    expect(await stack.orm.em.fork().count(TransferEntity, { userId: user.userId })).toBe(1);
    const history = (await callApi(stack, '/api/v1/transactions?limit=50', user)).body.transactions as Array<
      Record<string, unknown>
    >;
    expect(
      history.filter((t) => JSON.stringify(t).includes(transferId) || JSON.stringify(t).includes(to)),
    ).toHaveLength(1);
    const view = await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user);
    expect(view.body).toMatchObject({ status: 'finalized', tx_hash: after.txHash, amount: '0.25 ETH' });
    // The network's watch saw it removed and handed it to its own finality workflow, which sent it again and is done.
    await stack.temporal.workflow.getHandle(transferFinalityWorkflowId(transferId)).result();
    // Its events, in sequence: sent, included, back in flight after the reorg, included again, final.
    const events = await stack.orm.em
      .fork()
      .find(EventEntity, { resourceId: transferId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => [e.type, e.sequence])).toEqual([
      ['transfer.submitted', 1],
      ['transfer.confirmed', 2],
      ['transfer.submitted', 3],
      ['transfer.confirmed', 4],
      ['transfer.finalized', 5],
    ]);
    expect(events.at(-1)!.data).toMatchObject({
      transferId,
      networkId: 'ETHEREUM',
      token: 'ETH',
      amount: parseEther('0.25').toString(),
      decimals: 18,
      txHash: after.txHash,
    });
  });

  drill(
    'completes a swap only once its block is final: a reorg before then sends it again, and it moves the account once (found by the soak, seed 3)',
    async () => {
      const user = await registerUser(stack, undefined, { pin: PIN });
      const owner = Wallet.createRandom();
      const account = await deployAccount(stack, user, owner, 'ETHEREUM');
      const ethereum = stack.chains[0]!;
      await (await ethereum.funder.sendTransaction({ to: account, value: parseEther('1') })).wait();
      const api = (path: string, json?: unknown, headers: Record<string, string> = {}) =>
        call(`${stack.apiUrl}${path}`, { headers: { ...bearer(user), ...headers }, ...(json ? { json } : {}) });
      const usdt = new Contract(ethereum.usdt, ['function balanceOf(address) view returns (uint256)'], rpc());
      const quote = await api('/v1/exchange/quote', {
        networkId: 'ETHEREUM',
        direction: 'exactInput',
        source: 'ETH',
        target: 'USDT',
        amount: '0.1',
      });
      const prepared = await api('/v1/exchange/swaps/prepare', { quoteId: quote.body.quoteId });
      const swapId = prepared.body.swapId as string;
      const { userOpHash } = await stack.orm.em.fork().findOneOrFail(SignedOperationEntity, { operationId: swapId });
      const chain = rpc();
      let included: number | undefined;
      try {
        const executed = await api(
          '/v1/exchange/swaps',
          { signing: { items: [signSlot(prepared.body.items[0], owner)] } },
          { 'idempotency-key': randomUUID() },
        );
        expect(executed.status).toBe(202);
        await waitFor(
          async () => {
            const [event] = await chain.getLogs({
              address: ethereum.entryPoint,
              topics: [USER_OPERATION_EVENT, userOpHash],
              fromBlock: 0,
            });
            included = event?.blockNumber;
            if (included === undefined && (await api(`/v1/exchange/swaps/${swapId}`)).body.status === 'failed')
              throw new Error(`the swap failed: ${JSON.stringify((await api(`/v1/exchange/swaps/${swapId}`)).body)}`);
            return included !== undefined;
          },
          30_000,
          'the swap included',
        );
        // No more blocks meanwhile: included, not yet CONFIRMATIONS deep, so not done.
        await chain.send('evm_setIntervalMining', [0]);
        expect(Number(await chain.send('eth_blockNumber', [])) - included! + 1).toBeLessThan(CONFIRMATIONS);
        expect((await api(`/v1/exchange/swaps/${swapId}`)).body.status).toBe('submitted');
        const head = Number(await chain.send('eth_blockNumber', []));
        await chain.send('anvil_reorg', [head - included! + 1, []]);
        expect(await usdt.getFunction('balanceOf')(account)).toBe(0n);
      } finally {
        await chain.send('evm_setIntervalMining', [1]);
      }
      let done: any;
      await waitFor(
        async () => {
          done = (await api(`/v1/exchange/swaps/${swapId}`)).body;
          return done.status === 'completed' || done.status === 'failed';
        },
        150_000,
        'the swap done after the reorg',
      );
      expect(done).toMatchObject({ status: 'completed', received: { amountIn: '0.1' }, error: null });
      // Moved once, as recorded, in a block still the chain's.
      expect(await rpc().getBalance(account)).toBe(parseEther('0.9'));
      expect(await usdt.getFunction('balanceOf')(account)).toBe(parseUnits(done.received.amountOut, 6));
      const receipt = await rpc().getTransactionReceipt(done.txHash);
      expect(receipt).not.toBeNull();
      expect((await rpc().send('eth_getBlockByNumber', [`0x${receipt!.blockNumber.toString(16)}`, false])).hash).toBe(
        receipt!.blockHash,
      );
    },
  );
});
