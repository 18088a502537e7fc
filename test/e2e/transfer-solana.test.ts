import { randomUUID } from 'node:crypto';
import { generateKeyPairSigner } from '@solana/kit';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { INCLUDED } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { closeAccountBody, transferPin, type TransferFields } from '../helpers/pin';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { TransferEntity } from '../../db/entities';

const LAMPORTS = 1_000_000_000n;
const TOKEN_ACCOUNT_RENT = 2_039_280n; // rent exemption of a 165-byte SPL token account
const FEE = 5000n;

describe.each(testDatabases())('SOLANA wallets and transfers (LiteSVM behind Solana JSON-RPC) on $name', (kind) => {
  /** A slow fault drill: on the last database only (helpers/databases.ts). */
  const drill = onLastDatabase(kind);
  let stack: TestStack;
  let user: RegisteredUser;
  let wallet: string;
  const PIN = '739164';
  const newAddress = async () => (await generateKeyPairSigner()).address as string;
  const sol = () => stack.solana!;
  const usdtOf = (owner: string) => sol().tokenBalance(owner, sol().usdtMint);

  beforeAll(async () => {
    stack = await startTestStack(kind, { solana: true, env: { TRANSFER_WAIT_SECONDS: '20' } });
    user = await registerUser(stack, undefined, { pin: PIN });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(() => {
    sol().proxy.down = false;
    sol().proxy.delayMs = 0;
  });

  const transfer = async (body: Record<string, string>, u = user, pin = PIN, key: string = randomUUID()) =>
    callApi(stack, '/api/v1/transfer/crypto/execute', u, {
      json: { pin: await transferPin(stack, pin, body as unknown as TransferFields, key), ...body },
      key,
    });

  it('opens a wallet once, funded by the dev faucet, and shows its on-chain balances', async () => {
    expect((await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user)).status).toBe(404);
    const opened = await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user, { method: 'POST' });
    expect(opened.status).toBe(201);
    wallet = opened.body.address;
    expect(opened.body).toEqual({
      networkId: 'SOLANA',
      kind: 'solana-wallet',
      address: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
      deployed: true,
      balances: [
        { token: 'SOL', amount: '2 SOL', baseUnits: '2000000000', decimals: 9 },
        { token: 'USDT', amount: '1,000 USDT', baseUnits: '1000000000', decimals: 6 },
      ],
    });
    expect(sol().balance(wallet)).toBe(2n * LAMPORTS);
    const again = await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user, { method: 'POST' });
    expect([again.status, again.body.address]).toEqual([200, wallet]);
    expect(sol().balance(wallet)).toBe(2n * LAMPORTS); // funded once
    expect((await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user)).body).toEqual(again.body);
    // Solana has no smart accounts here; unknown networks are 404.
    expect((await callApi(stack, '/v1/wallet/networks/SOLANA/deploy/prepare', user, { json: {} })).body.type).toBe(
      '/problems/no-smart-accounts',
    );
    expect((await callApi(stack, '/v1/wallet/networks/BITCOIN/wallet', user, { method: 'POST' })).status).toBe(404);
    // Quotes on SOLANA see the wallet's real balance.
    const quote = async (amount: string) =>
      (
        await callApi(stack, '/v1/exchange/quote', user, {
          json: { source: 'SOL', target: 'USDT', networkId: 'SOLANA', direction: 'exactInput', amount },
        })
      ).body;
    expect(await quote('1.5')).toMatchObject({ executable: true, notExecutableReason: null });
    expect(await quote('2.5')).toMatchObject({ executable: false, notExecutableReason: 'insufficient_balance' });
    // Quotes come from Jupiter's Swap API (the sandbox's, over its pool on this chain): what its /order says.
    const order = await call(
      `${stack.sandboxUrl}/jupiter/swap/v2/order?inputMint=So11111111111111111111111111111111111111112&outputMint=${
        stack.solana!.usdtMint
      }&amount=1500000000&slippageBps=50`,
      { headers: { 'x-api-key': stack.config.JUPITER_API_KEY! } },
    );
    const quoted = await quote('1.5');
    expect(quoted).toMatchObject({
      sourceAmount: '1.5',
      targetAmount: (Number(order.body.outAmount) / 1e6).toString(),
      route: ['SOL', 'USDT'],
      feeTier: null,
      maximumSent: null,
    });
    expect(quoted.hops).toEqual([{ tokenIn: 'SOL', tokenOut: 'USDT', feeTier: null, pool: expect.any(String) }]);
    // Jupiter prices an exact input only; down, the quote is a 503 to retry.
    const exactOut = await callApi(stack, '/v1/exchange/quote', user, {
      json: { source: 'SOL', target: 'USDT', networkId: 'SOLANA', direction: 'exactOutput', amount: '10' },
    });
    expect([exactOut.status, exactOut.body.type]).toEqual([422, '/problems/exact-output-unsupported']);
    await call(`${stack.sandboxUrl}/_faults/dex`, { method: 'PUT', json: { failTimes: 1, status: 500 } });
    const down = await callApi(stack, '/v1/exchange/quote', user, {
      json: { source: 'SOL', target: 'USDT', networkId: 'SOLANA', direction: 'exactInput', amount: '1' },
    });
    expect([down.status, down.body.type]).toEqual([503, '/problems/service-unavailable']);
  });

  it('sends SOL: final on chain, the fee in SOL, the sender down by amount and fee exactly', async () => {
    const recipient = await newAddress();
    const before = sol().balance(wallet);
    const sent = await transfer({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.25' });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      tx_hash: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/),
      amount: '0.25 SOL',
      fee: '0.000005 SOL',
      network: 'SOLANA',
      to_address: recipient,
      error: null,
    });
    expect(sol().balance(recipient)).toBe(LAMPORTS / 4n);
    expect(sol().balance(wallet)).toBe(before - LAMPORTS / 4n - FEE);
    // The same transfer; its status may have moved on from confirmed to finalized meanwhile.
    expect((await callApi(stack, `/api/v1/transfer/crypto/${sent.body.transfer_id}`, user)).body).toEqual({
      ...sent.body,
      status: expect.stringMatching(INCLUDED),
    });
    expect(
      (await callApi(stack, `/api/v1/transfer/crypto/${sent.body.transfer_id}`, await registerUser(stack))).status,
    ).toBe(404);
  });

  it('sends SPL USDT to a new address, creating its token account (rent paid by the sender)', async () => {
    const recipient = await newAddress();
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdtOf(wallet)];
    const sent = await transfer({ to_address: recipient, network: 'SOLANA', token: 'USDT', amount: '12.5' });
    expect(sent.body).toMatchObject({
      status: expect.stringMatching(INCLUDED),
      amount: '12.5 USDT',
      fee: '0.000005 SOL',
    });
    expect(await usdtOf(recipient)).toBe(12_500_000n);
    expect(await usdtOf(wallet)).toBe(usdtBefore - 12_500_000n);
    expect(sol().balance(wallet)).toBe(solBefore - FEE - TOKEN_ACCOUNT_RENT);
    // A second transfer to the same recipient finds the account and pays only the fee.
    const second = await transfer({ to_address: recipient, network: 'SOLANA', token: 'USDT', amount: '0.000001' });
    expect(second.body).toMatchObject({ status: expect.stringMatching(INCLUDED), amount: '0.000001 USDT' });
    expect(sol().balance(wallet)).toBe(solBefore - 2n * FEE - TOKEN_ACCOUNT_RENT);
    const shown = await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user);
    expect(shown.body.balances[1]).toEqual({
      token: 'USDT',
      amount: '987.499999 USDT',
      baseUnits: '987499999',
      decimals: 6,
    });
    const history = await callApi(stack, '/api/v1/transactions?limit=2', user);
    expect(history.body.transactions.map((t: { amount: string }) => t.amount)).toEqual([
      '-0.000001 USDT',
      '-12.5 USDT',
    ]);
  });

  it('refuses bad addresses, tokens, amounts, PINs and balances, moving nothing', async () => {
    const recipient = await newAddress();
    const refused = async (body: Record<string, string>, pin = PIN, u = user) => {
      const r = await transfer(body, u, pin);
      return [r.status, r.body.type];
    };
    const solBefore = sol().balance(wallet);
    expect(await refused({ to_address: 'not-base58-0OIl', network: 'SOLANA', token: 'SOL', amount: '0.01' })).toEqual([
      422,
      '/problems/invalid-address',
    ]);
    expect(
      await refused({ to_address: '1111111111111111111111111111111', network: 'SOLANA', token: 'SOL', amount: '0.01' }),
    ).toEqual([422, '/problems/invalid-address']); // 31 bytes
    expect(
      await refused({
        to_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        network: 'SOLANA',
        token: 'SOL',
        amount: '0.01',
      }),
    ).toEqual([422, '/problems/invalid-address']);
    expect(await refused({ to_address: wallet, network: 'SOLANA', token: 'SOL', amount: '0.01' })).toEqual([
      422,
      '/problems/invalid-address',
    ]);
    expect(await refused({ to_address: sol().usdtMint, network: 'SOLANA', token: 'USDT', amount: '1' })).toEqual([
      422,
      '/problems/invalid-address',
    ]); // a mint, not a wallet
    expect(
      await refused({
        to_address: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        network: 'SOLANA',
        token: 'SOL',
        amount: '0.01',
      }),
    ).toEqual([422, '/problems/invalid-address']); // a program
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'ETH', amount: '1' })).toEqual([
      422,
      '/problems/unknown-token',
    ]);
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.0000000001' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]); // 10 decimals
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'USDT', amount: '1.0000001' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]);
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '-1' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]);
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.0001' })).toEqual([
      422,
      '/problems/invalid-amount',
    ]); // below a new account's rent
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '500' })).toEqual([
      422,
      '/problems/insufficient-balance',
    ]);
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'USDT', amount: '1000000' })).toEqual([
      422,
      '/problems/insufficient-balance',
    ]);
    // Everything but a sliver would leave the wallet below the rent-exempt minimum.
    const almostAll = solBefore - FEE - 1000n;
    expect(
      await refused({
        to_address: recipient,
        network: 'SOLANA',
        token: 'SOL',
        amount: `${almostAll / LAMPORTS}.${(almostAll % LAMPORTS).toString().padStart(9, '0')}`,
      }),
    ).toEqual([422, '/problems/insufficient-balance']);
    expect(await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.01' }, '111111')).toEqual(
      [422, '/problems/wrong-pin'],
    );
    const noWallet = await registerUser(stack, undefined, { pin: PIN });
    expect(
      await refused({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.01' }, PIN, noWallet),
    ).toEqual([409, '/problems/wallet-not-opened']);
    expect(sol().balance(recipient)).toBe(0n);
    expect(sol().balance(wallet)).toBe(solBefore);
  });

  it('never overdraws when many transfers run at once', async () => {
    const other = await registerUser(stack, undefined, { pin: PIN });
    const from = (await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', other, { method: 'POST' })).body.address;
    const recipient = await newAddress();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        transfer({ to_address: recipient, network: 'SOLANA', token: 'USDT', amount: '150' }, other),
      ),
    );
    const confirmed = answers.filter((a) => INCLUDED.test(a.body.status));
    expect(
      answers.filter((a) => !INCLUDED.test(a.body.status) && a.body.type !== '/problems/insufficient-balance'),
    ).toEqual([]);
    expect(confirmed).toHaveLength(6); // 1,000 USDT / 150
    expect(await usdtOf(recipient)).toBe(900_000_000n);
    expect(await usdtOf(from)).toBe(100_000_000n);
    expect(sol().balance(from)).toBe(2n * LAMPORTS - 6n * FEE - TOKEN_ACCOUNT_RENT);
  });

  it('moves the money once when the RPC is down mid-transfer, and a retry with the same key finds it', async () => {
    const recipient = await newAddress();
    const key = randomUUID();
    const fields = { to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.1' };
    const body = { ...fields, pin: await transferPin(stack, PIN, fields, key) };
    const send = () => callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: body, key });
    const before = sol().balance(wallet);
    const pending = send();
    await waitFor(
      async () => (await stack.orm.em.fork().count(TransferEntity, { toAddress: recipient })) === 1,
      30_000,
      'transfer stored',
    );
    sol().proxy.down = true;
    await new Promise((r) => setTimeout(r, 3000));
    sol().proxy.down = false;
    const first = await pending;
    expect([200, 202]).toContain(first.status);
    await waitFor(
      async () =>
        INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body.status),
      90_000,
      'transfer after the RPC came back',
    );
    const again = await send();
    expect([again.body.transfer_id, again.body.status]).toEqual([
      first.body.transfer_id,
      expect.stringMatching(INCLUDED),
    ]);
    expect(sol().balance(recipient)).toBe(LAMPORTS / 10n);
    expect(sol().balance(wallet)).toBe(before - LAMPORTS / 10n - FEE);
  });

  it('fails a transfer whose blockhash expired before it was sent, moving nothing', async () => {
    const recipient = await newAddress();
    const before = sol().balance(wallet);
    // The worker signs, but cannot send or look the signature up until the blockhash has expired.
    sol().proxy.refuse = new Set(['sendTransaction', 'getSignatureStatuses']);
    try {
      const pending = transfer({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.05' });
      await waitFor(
        async () =>
          Boolean(
            (await stack.orm.em.fork().findOne(TransferEntity, { toAddress: recipient }))?.solanaTransaction?.wire,
          ),
        30_000,
        'transfer signed',
      );
      sol().advanceBlocks(200); // ~80 s of blocks on a real cluster: the signed transaction can never land now
      sol().proxy.refuse = new Set();
      const first = await pending;
      await waitFor(
        async () =>
          (await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body.status !==
          'processing',
        60_000,
        'transfer outcome',
      );
      expect((await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body).toMatchObject({
        status: 'failed',
        tx_hash: '',
        fee: '',
        error: 'the transaction expired before it landed; nothing was transferred',
      });
    } finally {
      sol().proxy.refuse = new Set();
    }
    expect(sol().balance(recipient)).toBe(0n);
    expect(sol().balance(wallet)).toBe(before);
  });

  drill('sends once when the worker process is SIGKILLed mid-submission', async () => {
    const recipient = await newAddress();
    const before = sol().balance(wallet);
    await stack.stopWorker();
    const workers: ServiceProcess[] = [];
    try {
      sol().proxy.delayMs = 500; // every RPC call of the worker is slow, so the kill lands while it sends and polls
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const pending = transfer({ to_address: recipient, network: 'SOLANA', token: 'SOL', amount: '0.2' });
      await waitFor(async () => sol().balance(recipient) > 0n, 60_000, 'transaction landed').catch((error: Error) => {
        throw new Error(`${error.message}\n${workers[0]!.output()}`);
      });
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull();
      sol().proxy.delayMs = 0;
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const first = await pending;
      await waitFor(
        async () =>
          INCLUDED.test((await callApi(stack, `/api/v1/transfer/crypto/${first.body.transfer_id}`, user)).body.status),
        90_000,
        'transfer by the second worker',
      );
      expect(sol().balance(recipient)).toBe(LAMPORTS / 5n);
      expect(sol().balance(wallet)).toBe(before - LAMPORTS / 5n - FEE);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await stack.startWorker();
    }
  });

  it('refuses to close an account while its custodial Solana wallet holds anything, naming what', async () => {
    const owner = await registerUser(stack, undefined, { pin: '482913' });
    const opened = await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', owner, { method: 'POST' });
    expect([200, 201]).toContain(opened.status);
    const closing = await callApi(stack, '/v1/account/close', owner, { json: await closeAccountBody(stack, '482913') });
    expect(closing.status).toBe(409);
    const held = (closing.body.blockers as Array<{ reason: string; detail: string }>).filter(
      (b) => b.reason === 'custodial-balance',
    );
    expect(held.map((b) => b.detail.split(' ')[0])).toContain('SOL');
    expect((await callApi(stack, '/v1/account/profile', owner)).body.status).toBe('active');
  });
});
