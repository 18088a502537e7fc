import { randomUUID } from 'node:crypto';
import { swapRequest } from '@wallet-service/client';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { encryptPin } from '../helpers/pin';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { jupiterPoolAddress } from '../../sandbox/jupiter';

const LAMPORTS = 1_000_000_000n;

/**
 * SOLANA swaps over Jupiter's Swap API (the sandbox's, filling from its pool wallet on the local chain): the person's
 * PIN approves the quote, the worker signs Jupiter's transaction with the custodial wallet only after a simulation
 * shows it does the swap and nothing more, and the chain's balances move by what the outcome says.
 */
describe('swaps on SOLANA through Jupiter', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  let wallet: string;
  const PIN = '582913';
  const sol = () => stack.solana!;
  const usdt = () => sol().tokenBalance(wallet, sol().usdtMint);

  beforeAll(async () => {
    // Jupiter's answers are kept a minute here (a second by default), so the test of that reuse is not one of timing.
    stack = await startTestStack(testDatabases()[0]!, { solana: true, env: { QUOTE_BLOCK_CACHE_MS: '60000' } });
    user = await registerUser(stack, undefined, { pin: PIN });
    const opened = await callApi(stack, '/v1/wallet/networks/SOLANA/wallet', user, { method: 'POST' });
    expect(opened.status).toBe(201);
    wallet = opened.body.address;
  });
  afterAll(async () => {
    await tamper(null).catch(() => undefined);
    await stack?.stop();
  });

  const tamper = async (mode: string | null) => {
    const answer = await call(`${stack.sandboxUrl}/jupiter/_settings`, { method: 'PUT', json: { tamper: mode } });
    expect(answer.status).toBe(200);
  };
  const quote = async (source: string, target: string, amount: string) => {
    const answer = await callApi(stack, '/v1/exchange/quote', user, {
      json: { networkId: 'SOLANA', source, target, direction: 'exactInput', amount },
    });
    expect([answer.status, answer.body.executable]).toEqual([200, true]);
    return answer.body;
  };
  const execute = async (quoteId: string, options: { key?: string; pin?: string | null } = {}) => {
    const key = options.key ?? randomUUID();
    const pin =
      options.pin === null
        ? undefined
        : await encryptPin(stack, options.pin ?? PIN, { request: await swapRequest(quoteId, key) });
    return callApi(stack, '/v1/exchange/swaps', user, { json: { quoteId, ...(pin ? { pin } : {}) }, key });
  };
  const finished = async (swapId: string) => {
    let last: any;
    // Not callApi: it reads a body's `error` as a problem, and a swap has an `error` field of its own.
    const get = async () =>
      (
        await call(`${stack.apiUrl}/v1/exchange/swaps/${swapId}`, {
          headers: { authorization: `Bearer ${user.accessToken}` },
        })
      ).body;
    await waitFor(
      async () => {
        last = await get();
        return last.status === 'completed' || last.status === 'failed';
      },
      60_000,
      `swap ${swapId}`,
    );
    return last;
  };
  const units = (amount: string, decimals: number) => {
    const [whole, fraction = ''] = amount.replace(/,/g, '').split('.');
    return (
      BigInt(whole!) * 10n ** BigInt(decimals) + BigInt((fraction + '0'.repeat(decimals)).slice(0, decimals) || '0')
    );
  };

  it('sells SOL for USDT: the wallet moves by exactly what the outcome, read from the chain, says', async () => {
    const q = await quote('SOL', 'USDT', '0.5');
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdt()];
    const accepted = await execute(q.quoteId);
    expect([accepted.status, accepted.status === 202 ? null : accepted.body]).toEqual([202, null]);
    expect(accepted.headers.get('location')).toBe(`/v1/exchange/swaps/${accepted.body.swapId}`);
    const swap = await finished(accepted.body.swapId);
    expect([swap.status, swap.error]).toEqual(['completed', null]);
    expect(swap).toMatchObject({ networkId: 'SOLANA', source: 'SOL', target: 'USDT', route: ['SOL', 'USDT'] });
    const gotUsdt = (await usdt()) - usdtBefore;
    expect(units(swap.received.amountOut, 6)).toBe(gotUsdt);
    expect(gotUsdt).toBeGreaterThanOrEqual(units(q.minimumReceived, 6));
    expect(swap.received.amountIn).toBe('0.5');
    // The wallet paid the input and the fee: 5,000 lamports for each of the two signatures (its own, the pool's).
    const spent = solBefore - sol().balance(wallet);
    expect(spent).toBe(LAMPORTS / 2n + 10_000n);
    // The history lists it with both sides.
    const history = await callApi(stack, '/api/v1/transactions', user);
    expect(history.body.transactions[0]).toMatchObject({ type: 'swap', reference: accepted.body.swapId });
    expect(history.body.transactions[0].amount).toBe(`-0.5 SOL, +${swap.received.amountOut} USDT`);
  });

  it('buys SOL with USDT', async () => {
    const q = await quote('USDT', 'SOL', '100');
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdt()];
    const swap = await finished((await execute(q.quoteId)).body.swapId);
    expect(swap.status).toBe('completed');
    expect(usdtBefore - (await usdt())).toBe(100_000_000n);
    const got = sol().balance(wallet) - solBefore;
    expect(units(swap.received.amountOut, 9)).toBe(got + 10_000n); // the fee is the network's, not the swap's
    expect(units(swap.received.amountOut, 9)).toBeGreaterThanOrEqual(units(q.minimumReceived, 9));
  });

  it('asks for the PIN bound to the quote and the key; a retry finds the same swap; a reused key for another quote is refused', async () => {
    const q = await quote('SOL', 'USDT', '0.01');
    const key = randomUUID();
    const without = await execute(q.quoteId, { key, pin: null });
    expect([without.status, without.body.type]).toEqual([422, '/problems/step-up-required']);
    expect(without.body.stepUp.request).toEqual(await swapRequest(q.quoteId, key));
    // A PIN approving another key does not approve this request; a wrong PIN is wrong.
    const otherKey = await encryptPin(stack, PIN, { request: await swapRequest(q.quoteId, randomUUID()) });
    const mismatched = await callApi(stack, '/v1/exchange/swaps', user, {
      json: { quoteId: q.quoteId, pin: otherKey },
      key: randomUUID(),
    });
    expect(mismatched.status).toBe(422);
    const wrong = await execute(q.quoteId, { pin: '000000' });
    expect(wrong.status).toBe(422);
    const pin = await encryptPin(stack, PIN, { request: await swapRequest(q.quoteId, key) });
    const send = () => callApi(stack, '/v1/exchange/swaps', user, { json: { quoteId: q.quoteId, pin }, key });
    const first = await send();
    expect(first.status).toBe(202);
    // The app's retry sends the same request again: the same swap, the PIN not asked again.
    const again = await send();
    expect([again.status, again.body.swapId]).toEqual([202, first.body.swapId]);
    const q2 = await quote('SOL', 'USDT', '0.02');
    const reused = await execute(q2.quoteId, { key });
    expect([reused.status, reused.body.type]).toEqual([422, '/problems/idempotency-key-reused']);
    expect((await finished(first.body.swapId)).status).toBe('completed');
    // Both shapes or neither: 422; an EVM-only prepare on SOLANA points to this route.
    const neither = await callApi(stack, '/v1/exchange/swaps', user, {
      json: {},
      key: randomUUID(),
    });
    expect([neither.status, neither.body.type]).toEqual([422, '/problems/swap-execution-ambiguous']);
    const prepare = await callApi(stack, '/v1/exchange/swaps/prepare', user, { json: { quoteId: q2.quoteId } });
    expect([prepare.status, prepare.body.detail]).toEqual([409, expect.stringContaining('need no prepare')]);
    // More than the wallet holds: refused before the PIN.
    const tooMuch = await callApi(stack, '/v1/exchange/quote', user, {
      json: { networkId: 'SOLANA', source: 'USDT', target: 'SOL', direction: 'exactInput', amount: '100000' },
    });
    const refused = await execute(tooMuch.body.quoteId, { pin: null });
    expect([refused.status, refused.body.type]).toEqual([422, '/problems/insufficient-balance']);
  });

  it.each([
    ['foreign-program', /a program not on the network's allow-list: MemoSq4/],
    ['extra-debit', /it would take \d+ lamports, more than/],
    ['delegate', /let another key spend from the token account/],
    ['fee-payer', /its fee payer is .* not the person's wallet/],
  ])('refuses, unsigned, a transaction that does more than the swap (%s)', async (mode, why) => {
    const q = await quote('SOL', 'USDT', '0.1');
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdt()];
    await tamper(mode);
    try {
      const swap = await finished((await execute(q.quoteId)).body.swapId);
      expect(swap.status).toBe('failed');
      expect(swap.error).toMatch(/^unexpected-effect: the transaction Jupiter built was not signed: /);
      expect(swap.error).toMatch(why);
      expect(swap.txHash).toBeNull();
    } finally {
      await tamper(null);
    }
    expect([sol().balance(wallet), await usdt()]).toEqual([solBefore, usdtBefore]);
  });

  it('another person cannot use the quote or see the swap; a missing Idempotency-Key or a malformed body is 400', async () => {
    const q = await quote('SOL', 'USDT', '0.01');
    const stranger = await registerUser(stack, undefined, { pin: PIN });
    const key = randomUUID();
    const theirs = await callApi(stack, '/v1/exchange/swaps', stranger, {
      json: { quoteId: q.quoteId, pin: await encryptPin(stack, PIN, { request: await swapRequest(q.quoteId, key) }) },
      key,
    });
    expect([theirs.status, theirs.body.type]).toEqual([404, '/problems/not-found']);
    const mine = await execute(q.quoteId);
    expect(mine.status).toBe(202);
    const peek = await call(`${stack.apiUrl}/v1/exchange/swaps/${mine.body.swapId}`, {
      headers: { authorization: `Bearer ${stranger.accessToken}` },
    });
    expect(peek.status).toBe(404);
    const noKey = await callApi(stack, '/v1/exchange/swaps', user, { json: { quoteId: q.quoteId, pin: 'a.b.c.d.e' } });
    expect([noKey.status, noKey.body.type]).toEqual([400, '/problems/validation-error']);
    const bad = await callApi(stack, '/v1/exchange/swaps', user, { json: { quoteId: 42 }, key: randomUUID() });
    expect([bad.status, bad.body.type]).toEqual([400, '/problems/validation-error']);
    expect((await finished(mine.body.swapId)).status).toBe('completed');
  });

  it('swaps once when the worker process is SIGKILLed after sending: nothing lost, nothing doubled', async () => {
    const q = await quote('SOL', 'USDT', '0.3');
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdt()];
    await stack.stopWorker();
    const workers: ServiceProcess[] = [];
    try {
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const accepted = await execute(q.quoteId);
      expect(accepted.status).toBe(202);
      // Killed as soon as the transaction landed, before the outcome is recorded (or right after).
      await waitFor(async () => (await usdt()) > usdtBefore, 60_000, 'swap landed').catch((error: Error) => {
        throw new Error(`${error.message}\n${workers[0]!.output()}`);
      });
      workers[0]!.child.kill('SIGKILL');
      await workers[0]!.exited;
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const swap = await finished(accepted.body.swapId);
      expect(swap.status).toBe('completed');
      const got = (await usdt()) - usdtBefore;
      expect(units(swap.received.amountOut, 6)).toBe(got);
      expect(solBefore - sol().balance(wallet)).toBe(300_000_000n + 10_000n);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await stack.startWorker();
    }
  });

  it("reuses Jupiter's answer for the same pair and amount within QUOTE_BLOCK_CACHE_MS; a failure is not kept", async () => {
    const first = await quote('SOL', 'USDT', '0.25');
    await call(`${stack.sandboxUrl}/_faults/dex`, { method: 'PUT', json: { failTimes: 1, status: 500 } });
    const again = await quote('SOL', 'USDT', '0.25');
    expect([again.targetAmount, again.blockNumber]).toEqual([first.targetAmount, first.blockNumber]);
    const other = await callApi(stack, '/v1/exchange/quote', user, {
      json: { networkId: 'SOLANA', source: 'SOL', target: 'USDT', direction: 'exactInput', amount: '0.26' },
    });
    expect(other.status).toBe(503);
    expect((await quote('SOL', 'USDT', '0.26')).sourceAmount).toBe('0.26');
  });

  it('a pool moved past the quote is stale-quote: nothing is signed or sent', async () => {
    const q = await quote('SOL', 'USDT', '0.5');
    const [solBefore, usdtBefore] = [sol().balance(wallet), await usdt()];
    // Someone sells a lot of SOL into the pool: SOL is worth less USDT than the quote's minimum.
    await sol().grant(await jupiterPoolAddress(), { lamports: 5_000n * LAMPORTS, usdt: 0n });
    const swap = await finished((await execute(q.quoteId)).body.swapId);
    expect(swap.status).toBe('failed');
    expect(swap.error).toMatch(/^stale-quote: Jupiter's order now gives \d+, less than the quote's minimum/);
    expect([sol().balance(wallet), await usdt()]).toEqual([solBefore, usdtBefore]);
  });
});
