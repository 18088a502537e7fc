import { randomUUID } from 'node:crypto';
import { Contract, Wallet, parseEther, parseUnits, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type StackChain, type TestStack } from '../helpers/stack';
import { registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { deployAccount } from '../helpers/wallet';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { temporal } from '@temporalio/proto';
import { EventEntity, GasSponsorshipEntity, TransferEntity, UserEntity } from '../../db/entities';
import { NeedsReviewSA, NetworkIdSA, UserIdSA, transferWorkflowId } from '../../workflows/messages';

describe('crypto transfers on real chains (ETHEREUM, POLYGON)', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  const accounts: Record<string, string> = {};
  const PIN = '482915';
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, {
      chains: true,
      env: { TRANSFER_WAIT_SECONDS: '20', TRANSFER_REVIEW_AFTER_ATTEMPTS: '3' },
    });
    user = await registerUser(stack, undefined, { pin: PIN });
    const owner = Wallet.createRandom();
    for (const [i, networkId] of ['ETHEREUM', 'POLYGON'].entries()) {
      accounts[networkId] = await deployAccount(stack, user, owner, networkId);
      const chain = stack.chains[i]!;
      const nonce = await chain.provider.getTransactionCount(chain.funder.address, 'latest');
      await (await chain.funder.sendTransaction({ to: accounts[networkId], value: parseEther('1'), nonce })).wait();
      await (
        await usdtOf(chain).getFunction('mint')(accounts[networkId], parseUnits('100', 6), { nonce: nonce + 1 })
      ).wait();
    }
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    for (const chain of stack.chains) {
      chain.proxy.down = false;
      chain.proxy.delayMs = 0;
      chain.proxy.downAfter = null;
    }
  });

  const usdtOf = (chain: StackChain) =>
    new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
  const transfer = async (body: Record<string, string>, u = user, pin = PIN, key: string = randomUUID()) =>
    callApi(stack, '/api/v1/transfer/crypto/execute', u, {
      json: { pin: await transferPin(stack, pin, body as unknown as TransferFields, key), ...body },
      key,
    });

  it('sends the coin and USDT on ETHEREUM, final on chain, with the fee in ETH', async () => {
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    const before = await chain.provider.getBalance(accounts.ETHEREUM!);
    const sent = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.25' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: '0.25 ETH',
      network: 'ETHEREUM',
      error: null,
    });
    expect(sent.body.fee).toMatch(/^0\.\d+ ETH$/);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.25'));
    // Gas comes from the EntryPoint deposit. (Asked with `send`: ethers answers the same getBalance within 250 ms from
    // its cache, and the transfer can be quicker than that.)
    expect(BigInt(await chain.provider.send('eth_getBalance', [accounts.ETHEREUM!, 'latest']))).toBe(
      before - parseEther('0.25'),
    );
    expect((await chain.provider.getTransactionReceipt(sent.body.tx_hash))!.status).toBe(1);
    // The local chain's sends run locally (NETWORKS.ETHEREUM.transferSendLocal): version 5, the whole send one local
    // activity of the workflow's first task (its marker), no activity task through the server (version 4 had one).
    const E = temporal.api.enums.v1.EventType;
    const history = await stack.temporal.workflow.getHandle(transferWorkflowId(sent.body.transfer_id)).fetchHistory();
    const types = history.events!.map((e) => e.eventType);
    expect(types).not.toContain(E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
    expect(types.filter((t) => t === E.EVENT_TYPE_MARKER_RECORDED)).toHaveLength(1);

    const tokens = await transfer({
      to_address: recipient.toLowerCase(),
      network: 'ETHEREUM',
      token: 'USDT',
      amount: '12.5',
    });
    expect(tokens.body).toMatchObject({ status: expect.stringMatching(INCLUDED), amount: '12.5 USDT' });
    expect(await usdtOf(chain).getFunction('balanceOf')(recipient)).toBe(12_500_000n);
    // The same transfer; its status may have moved on from confirmed to finalized meanwhile.
    expect((await callApi(stack, `/api/v1/transfer/crypto/${tokens.body.transfer_id}`, user)).body).toEqual({
      ...tokens.body,
      status: expect.stringMatching(INCLUDED),
    });
    expect(
      (await callApi(stack, `/api/v1/transfer/crypto/${tokens.body.transfer_id}`, await registerUser(stack))).status,
    ).toBe(404);

    // The history lists them, newest first, one page at a time.
    const page = await callApi(stack, '/api/v1/transactions?limit=1', user);
    expect(page.body.transactions).toEqual([
      {
        id: tokens.body.transfer_id,
        type: 'transfer',
        amount: '-12.5 USDT',
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        reference: tokens.body.transfer_id,
      },
    ]);
    const next = await callApi(stack, `/api/v1/transactions?limit=1&cursor=${page.body.next_cursor}`, user);
    expect(next.body.transactions.map((t: { amount: string }) => t.amount)).toEqual(['-0.25 ETH']);
    expect(next.body.next_cursor).toBeNull();
    expect((await callApi(stack, '/api/v1/transactions?cursor=bm90LWEtY3Vyc29y', user)).status).toBe(422);
  });

  it('sends POL on POLYGON', async () => {
    const recipient = Wallet.createRandom().address;
    const sent = await transfer({ to_address: recipient, network: 'POLYGON', token: 'POL', amount: '0.5' });
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      amount: '0.5 POL',
      fee: expect.stringMatching(/ POL$/),
    });
    expect(await stack.chains[1]!.provider.getBalance(recipient)).toBe(parseEther('0.5'));
    // Operators find it by user and network in the Temporal UI: set with the start.
    const described = await stack.temporal.workflow.getHandle(transferWorkflowId(sent.body.transfer_id)).describe();
    expect([described.typedSearchAttributes.get(UserIdSA), described.typedSearchAttributes.get(NetworkIdSA)]).toEqual([
      user.userId,
      'POLYGON',
    ]);
  });

  it('finalizes a transfer recorded confirmed after the watch had looked at its block (no block mined since)', async () => {
    // The race several transfers of one bundle run: the watch reads the head and the confirmed rows while the worker is
    // still recording some of that block's transfers confirmed. Made certain here: a transfer is finalized (the watch
    // looked at the head, its block), then a second transfer of that very operation and block is recorded confirmed
    // (a copy of the first's row, as the worker would write it). The test chains mine only on demand: the head stands.
    const recipient = Wallet.createRandom().address;
    const sent = await transfer({ to_address: recipient, network: 'POLYGON', token: 'POL', amount: '0.01' });
    const em = stack.orm.em.fork();
    await waitFor(
      async () =>
        (await em.findOneOrFail(TransferEntity, { transferId: sent.body.transfer_id }, { refresh: true })).status ===
        'finalized',
      60_000,
      'the first finalized',
    );
    const head = await stack.chains[1]!.provider.getBlockNumber();
    const first = await em.findOneOrFail(TransferEntity, { transferId: sent.body.transfer_id });
    const transferId = `tr_${randomUUID()}`;
    await em.insert(TransferEntity, { ...first, transferId, status: 'confirmed', nonceLane: null });
    await waitFor(
      async () => (await em.fork().findOneOrFail(TransferEntity, { transferId })).status === 'finalized',
      30_000,
      'the second finalized at the same head',
    );
    expect(await stack.chains[1]!.provider.getBlockNumber()).toBe(head);
  });

  it('refuses bad addresses, tokens, amounts, PINs and balances, moving nothing', async () => {
    const recipient = Wallet.createRandom().address;
    const badChecksum =
      recipient.slice(0, 2) +
      [...recipient.slice(2)]
        .map((c, i) => (i === 0 && /[a-f]/i.test(c) ? (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()) : c))
        .join('');
    const refused = async (body: Record<string, string>, pin = PIN) => {
      const r = await transfer(body, user, pin);
      return [r.status, r.body.type];
    };
    if (badChecksum !== recipient && /[a-fA-F]/.test(recipient[2]!)) {
      expect(await refused({ to_address: badChecksum, network: 'ETHEREUM', token: 'ETH', amount: '0.01' })).toEqual([
        422,
        '/problems/invalid-address',
      ]);
    }
    expect(await refused({ to_address: '0x1234', network: 'ETHEREUM', token: 'ETH', amount: '0.01' })).toEqual([
      422,
      '/problems/invalid-address',
    ]);
    expect(
      await refused({ to_address: accounts.ETHEREUM!, network: 'ETHEREUM', token: 'ETH', amount: '0.01' }),
    ).toEqual([422, '/problems/invalid-address']);
    expect(await refused({ to_address: recipient, network: 'ETHEREUM', token: 'DOGE', amount: '1' })).toEqual([
      422,
      '/problems/unknown-token',
    ]);
    expect(await refused({ to_address: recipient, network: 'ETHEREUM', token: 'USDT', amount: '1.0000001' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]);
    expect(await refused({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '-1' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]);
    expect(await refused({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '500' })).toEqual([
      422,
      '/problems/insufficient-balance',
    ]);
    expect(
      await refused({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.01' }, '999999'),
    ).toEqual([422, '/problems/wrong-pin']);
    expect(await refused({ to_address: 'not-base58-0OIl', network: 'SOLANA', token: 'SOL', amount: '1' })).toEqual([
      422,
      '/problems/invalid-address',
    ]);
    expect(
      (await transfer({ to_address: recipient, network: 'BITCOIN' as string, token: 'BTC', amount: '1' })).status,
    ).toBe(400);
    const noPin = await registerUser(stack, undefined, { pin: null });
    expect(
      (await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.01' }, noPin)).body.type,
    ).toBe('/problems/pin-not-set');
    expect(await stack.chains[0]!.provider.getBalance(recipient)).toBe(0n);
    // The PIN is never in the stored transfer or the answers.
    const { body } = await callApi(stack, '/api/v1/pin', user);
    expect(body).toEqual({ pin_set: true });
  });

  it('never overdraws when many transfers run at once', async () => {
    const chain = stack.chains[1]!;
    const recipient = Wallet.createRandom().address;
    const available = (await usdtOf(chain).getFunction('balanceOf')(accounts.POLYGON!)) as bigint; // 100 USDT
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        transfer({ to_address: recipient, network: 'POLYGON', token: 'USDT', amount: '15' }),
      ),
    );
    const confirmed = answers.filter((a) => INCLUDED.test(a.body.status));
    const other = answers.filter(
      (a) => !INCLUDED.test(a.body.status) && a.body.type !== '/problems/insufficient-balance',
    );
    expect(other).toEqual([]);
    expect(confirmed).toHaveLength(Number(available / 15_000_000n)); // 6 of 8
    expect(answers.filter((a) => a.body.type === '/problems/insufficient-balance')).toHaveLength(8 - confirmed.length);
    expect(await usdtOf(chain).getFunction('balanceOf')(recipient)).toBe(BigInt(confirmed.length) * 15_000_000n);
    expect(await usdtOf(chain).getFunction('balanceOf')(accounts.POLYGON!)).toBe(
      available - BigInt(confirmed.length) * 15_000_000n,
    );
    // Each is finalized by the network's watch, with no block mined after theirs (the test chains mine on demand):
    // also those recorded confirmed after the watch had looked at that very block for the others.
    const ids = confirmed.map((a) => a.body.transfer_id as string);
    const open = async () =>
      (await stack.orm.em.fork().find(TransferEntity, { transferId: ids, status: { $ne: 'finalized' } })).map((t) => [
        t.transferId,
        t.status,
        t.blockNumber,
      ]);
    await waitFor(
      async () => (await open()).length === 0,
      60_000,
      async () => `all finalized; open: ${JSON.stringify(await open())}`,
    );
  });

  it("reuses the account's nonce lanes: one after another on one lane, at once on a lane each, freed once final", async () => {
    const recipient = Wallet.createRandom().address;
    const keyOf = async (transferId: string) => {
      const row = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId });
      const nonce = BigInt(row.userOperation!.nonce!);
      return { key: nonce >> 64n, sequence: nonce & (2n ** 64n - 1n), lane: row.nonceLane, status: row.status };
    };
    const final = async (transferId: string) =>
      waitFor(async () => (await keyOf(transferId)).status === 'finalized', 60_000, `transfer ${transferId} finalized`);
    // The tests before leave transfers of this account in flight until final (each holds its lane till then).
    const holding = () =>
      stack.orm.em
        .fork()
        .find(TransferEntity, { networkId: 'POLYGON', fromAddress: accounts.POLYGON!, nonceLane: { $ne: null } });
    await waitFor(
      async () => (await holding()).length === 0,
      120_000,
      async () =>
        `no lane held; held: ${JSON.stringify((await holding()).map((t) => [t.transferId, t.status, t.nonceLane, t.updatedAt]))}`,
    );
    const one = await transfer({ to_address: recipient, network: 'POLYGON', token: 'POL', amount: '0.01' });
    await final(one.body.transfer_id);
    const two = await transfer({ to_address: recipient, network: 'POLYGON', token: 'POL', amount: '0.01' });
    await final(two.body.transfer_id);
    const [first, second] = [await keyOf(one.body.transfer_id), await keyOf(two.body.transfer_id)];
    expect([first.key, second.key]).toEqual([1n, 1n]); // the same slot, written once, then updated
    expect(second.sequence).toBe(first.sequence + 1n);
    const atOnce = await Promise.all(
      Array.from({ length: 3 }, () =>
        transfer({ to_address: recipient, network: 'POLYGON', token: 'POL', amount: '0.01' }),
      ),
    );
    for (const answer of atOnce) await final(answer.body.transfer_id);
    const keys = await Promise.all(atOnce.map((a) => keyOf(a.body.transfer_id)));
    expect(new Set(keys.map((k) => k.key)).size).toBe(3);
    for (const k of keys) {
      expect(k.key).toBeGreaterThanOrEqual(1n);
      expect(k.key).toBeLessThanOrEqual(16n);
      expect(k.lane).toBeNull(); // released once final
    }
    expect(await stack.chains[1]!.provider.getBalance(recipient)).toBe(parseEther('0.05'));
  });

  it('moves the money once when the chain RPC is down mid-transfer, and a retry with the same key finds it', async () => {
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    const key = randomUUID();
    // A retry resends the very same request (the same encrypted PIN) with the same Idempotency-Key.
    const fields = { to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.1' };
    const body = { ...fields, pin: await transferPin(stack, PIN, fields, key) };
    const send = () => callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: body, key });
    const pending = send();
    // Once the API has signed and stored the transfer, the chain goes away while the worker submits it.
    await waitFor(
      async () => (await stack.orm.em.fork().count(TransferEntity, { toAddress: recipient })) === 1,
      30_000,
      'transfer stored',
    );
    chain.proxy.down = true;
    await new Promise((r) => setTimeout(r, 4000));
    chain.proxy.down = false;
    const first = await pending;
    expect([200, 202]).toContain(first.status);
    await waitFor(
      async () =>
        INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body.status),
      90_000,
      'transfer after the RPC came back',
    );
    const again = await send();
    expect(again.body.transfer_id).toBe(first.body.transfer_id);
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.1'));
  });

  it('never records a sent transfer failed while the bundler is gone past every attempt: held for review, then confirmed once', async () => {
    const chain = stack.chains[0]!;
    const recipient = Wallet.createRandom().address;
    // The bundler accepts the user operation (and puts it on chain), then the worker loses sight of it.
    chain.bundlerProxy.downAfter = (body) => body.includes('eth_sendUserOperation');
    const started = await transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.05' });
    expect(started.status).toBe(202);
    const transferId = started.body.transfer_id as string;
    const workflow = stack.temporal.workflow.getHandle(`transfer-${transferId}`);
    // Three attempts (TRANSFER_REVIEW_AFTER_ATTEMPTS) fail; the transfer is flagged, not failed.
    await waitFor(
      async () => (await workflow.describe()).typedSearchAttributes.get(NeedsReviewSA) === 'transfer_unconfirmed',
      90_000,
      'transfer held for review',
    );
    expect((await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body.status).toBe('submitted'); // sent, not seen included
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.05')); // it did land, unseen by the worker

    chain.bundlerProxy.down = false;
    await waitFor(
      async () => INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body.status),
      90_000,
      'transfer once the bundler is back',
    );
    expect(await workflow.result()).toMatchObject({
      status: 'confirmed',
      txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect((await workflow.describe()).typedSearchAttributes.get(NeedsReviewSA)).toBeUndefined();
    expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.05'));
    const history = (await callApi(stack, '/api/v1/transactions', user)).body.transactions as Array<{ id: string }>;
    expect(history.filter((t) => t.id === transferId)).toHaveLength(1);
    // The app heard it the same way: sent, held for review, then confirmed (and finalized, once deep enough).
    const events = await stack.orm.em
      .fork()
      .find(EventEntity, { resourceId: transferId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'transfer.submitted',
      'transfer.needs_review',
      'transfer.confirmed',
    ]);
    expect(events.slice(3).map((e) => e.type)).toEqual(events.length > 3 ? ['transfer.finalized'] : []);
  });

  it("signs nothing for an account suspended after the transfer was recorded (the closure's fence): failed, nothing sponsored or sent", async () => {
    const recipient = Wallet.createRandom().address;
    await stack.stopWorker();
    let workerStopped = true;
    try {
      const pending = transfer({ to_address: recipient, network: 'ETHEREUM', token: 'ETH', amount: '0.01' });
      await waitFor(
        async () => (await stack.orm.em.fork().findOne(TransferEntity, { toAddress: recipient })) !== null,
        30_000,
        'transfer recorded',
      );
      await stack.orm.em.fork().nativeUpdate(UserEntity, { id: user.userId }, { status: 'suspended' });
      await stack.startWorker();
      workerStopped = false;
      const answer = await pending;
      expect([answer.status, answer.body.detail]).toEqual([422, expect.stringContaining('no longer active')]);
      const recorded = await stack.orm.em.fork().findOneOrFail(TransferEntity, { toAddress: recipient });
      expect([recorded.status, recorded.userOperation, recorded.txHash]).toEqual(['failed', null, null]);
      expect(
        await stack.orm.em.fork().count(GasSponsorshipEntity, { sponsorshipId: `transfer:${recorded.transferId}` }),
      ).toBe(0);
      expect(await stack.chains[0]!.provider.getBalance(recipient)).toBe(0n);
    } finally {
      await stack.orm.em.fork().nativeUpdate(UserEntity, { id: user.userId }, { status: 'active' });
      if (workerStopped) await stack.startWorker();
    }
  });

  // ETHEREUM's sends are local activities (version 5: the next worker runs the send again after the workflow task's
  // timeout), POLYGON's activities on the chains' queue (version 4: after the activity's heartbeat timeout).
  it.each([
    { network: 'ETHEREUM', index: 0, token: 'ETH', version: 5 },
    { network: 'POLYGON', index: 1, token: 'POL', version: 4 },
  ])(
    'sends once when the worker process is SIGKILLed after handing the operation to the bundler ($network, version $version)',
    async ({ network, index, token, version }) => {
      const chain = stack.chains[index]!;
      const recipient = Wallet.createRandom().address;
      await stack.stopWorker();
      const workers: ServiceProcess[] = [];
      try {
        chain.bundlerProxy.delayMs = 400; // the kill lands between the bundler's acceptance and the receipt
        workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
        const pending = transfer({ to_address: recipient, network, token, amount: '0.2' });
        await waitFor(
          async () =>
            (await stack.orm.em.fork().findOne(TransferEntity, { toAddress: recipient }))?.status === 'submitted',
          60_000,
          'operation handed to the bundler',
        ).catch((error: Error) => {
          throw new Error(`${error.message}\n${workers[0]!.output()}`);
        });
        workers[0]!.child.kill('SIGKILL');
        expect(await workers[0]!.exited).toBeNull();
        chain.bundlerProxy.delayMs = 0;
        workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
        const first = await pending;
        await waitFor(
          async () =>
            INCLUDED.test(
              (await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body.status,
            ),
          90_000,
          'transfer by the second worker',
        );
        expect(await chain.provider.getBalance(recipient)).toBe(parseEther('0.2'));
        // Sent by the version the network's setting says: a local activity's marker, or the activity.
        const E = temporal.api.enums.v1.EventType;
        const history = await stack.temporal.workflow
          .getHandle(transferWorkflowId(first.body.transfer_id))
          .fetchHistory();
        expect(history.events!.some((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(version === 4);
      } finally {
        for (const worker of workers) worker.child.kill('SIGKILL');
        await Promise.all(workers.map((w) => w.exited));
        await stack.startWorker();
      }
    },
  );
});
