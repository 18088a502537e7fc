import { randomUUID } from 'node:crypto';
import { onLastDatabase, testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import {
  bankAccountLog,
  bankSettings,
  restoreCentre,
  callApi,
  connectBankAccount,
  openBankAccount,
  type SandboxAccount,
} from '../helpers/bank';
import { encryptPin } from '../helpers/pin';
import type { Activities } from '../../activities';
import { BankTranIdEntity, EventEntity, IdempotencyRecordEntity, PayoutEntity, UserEntity } from '../../db/entities';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import type { TransferRequestView } from '../../sandbox/open-banking';
import { postJournal } from '../../db/ledger';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { payoutWorkflowId } from '../../workflows/messages';

/** What the person's statement shows for a payout. */
const PAYOUT_MEMO = '월렛 출금';

/**
 * Payouts end to end: won charged into the balance over open banking goes back out to the person's own account
 * (transfer/deposit/acnt_num at the sandbox's centre), with the ledger, the bank's statements and the history agreeing,
 * and no way for a payout to be paid twice or lost: concurrent payouts, refusals, answers in doubt, a worker killed
 * mid-payout, a send that lands late, an operator's decision, and a closure that pays the balance back.
 */
describe.each(testDatabases())('payouts on %s', (database) => {
  let stack: TestStack;
  let workerActivities: Activities;
  const operatorToken = newOperatorToken();
  beforeAll(async () => {
    // The bank has 2 s to answer (BANK_TIMEOUT_MS); a send it has no record of 6 s after it was sent never arrived.
    stack = await startTestStack(database, {
      env: { OPERATOR_TOKENS: JSON.stringify({ treasury: operatorTokenHash(operatorToken) }) },
      workerEnv: { BANK_TIMEOUT_MS: '2000', BANK_NOT_RECEIVED_AFTER_SECONDS: '6' },
      wrapActivities: (activities) => (workerActivities = activities),
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    await restoreCentre(stack);
    await stack.startWorker();
  });

  const api = (path: string, user: RegisteredUser, init: { json?: unknown; key?: string; method?: string } = {}) =>
    callApi(stack, path, user, init);
  const balance = async (user: RegisteredUser) =>
    (await api('/api/v1/balance', user)).body.balances.find((b: { currency: string }) => b.currency === 'KRW')
      .amount as string;
  /** A person with `charged` won in their balance, charged from their account at the sandbox bank (which keeps 100,000). */
  const funded = async (charged: number) => {
    const user = await registerUser(stack);
    const account = await openBankAccount(stack, user.person, 100_000);
    const connected = await connectBankAccount(stack, user, account);
    const charge = await api('/api/v1/charge/execute', user, {
      json: { source: connected.bank_account_id, amount: String(charged), currency: 'KRW' },
      key: randomUUID(),
    });
    expect(charge.status).toBe(202);
    await waitFor(
      async () => (await api(`/api/v1/charge/${charge.body.charge_id}`, user)).body.status === 'completed',
      60_000,
      'charge completed',
    );
    return { user, account, bankAccountId: connected.bank_account_id as string };
  };
  /** The payout's body, approved by the user's PIN bound to its amount and account. */
  const payoutBody = async (user: RegisteredUser, bankAccountId: string, amount: string) => ({
    bank_account_id: bankAccountId,
    amount,
    currency: 'KRW',
    pin: await encryptPin(stack, user.pin!, { request: { action: 'payout', amount, bank_account_id: bankAccountId } }),
  });
  const payOut = async (user: RegisteredUser, bankAccountId: string, amount: string, key = randomUUID()) =>
    api('/api/v1/payouts', user, { json: await payoutBody(user, bankAccountId, amount), key });
  /** Waits until the payout is completed or failed (in review is not final). */
  const settled = async (user: RegisteredUser, payoutId: string, timeoutMs = 90_000) => {
    let view: any;
    await waitFor(
      async () => {
        view = (await api(`/api/v1/payouts/${payoutId}`, user)).body;
        return ['completed', 'failed'].includes(view.status);
      },
      timeoutMs,
      `payout ${payoutId}`,
    );
    return view;
  };
  const payoutsOf = async (account: SandboxAccount) =>
    (await bankAccountLog(stack, account)).transactions.filter((t) => t.printContent === PAYOUT_MEMO);
  /** Every deposit call the centre received for this payout, under every id it was sent with. */
  const depositCalls = async (payoutId: string): Promise<TransferRequestView[]> => {
    const row = await stack.orm.em.fork().findOneOrFail(BankTranIdEntity, { reference: `payout:${payoutId}` });
    const ids = new Set([
      row.bankTranId,
      ...((row.earlierIds ?? []) as Array<{ bankTranId: string }>).map((e) => e.bankTranId),
    ]);
    const all = (await call(`${stack.sandboxUrl}/kftc/_transfers`)).body as TransferRequestView[];
    return all.filter((t) => t.direction === 'deposit' && ids.has(t.bankTranId));
  };
  const eventsOf = async (payoutId: string) =>
    (await stack.orm.em.fork().find(EventEntity, { resourceId: payoutId }, { orderBy: { sequence: 'asc' } })).map(
      (e) => e.type,
    );
  const decide = (payoutId: string, json: unknown) =>
    call(`${stack.apiUrl}/v1/payouts/${payoutId}/decision`, {
      headers: { authorization: `Bearer ${operatorToken}` },
      json,
    });

  it('pays out to the person’s own account: out of the balance at once, onto the bank’s statement and into the history', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    const key = randomUUID();
    const body = await payoutBody(user, bankAccountId, '20000');
    const started = await api('/api/v1/payouts', user, { json: body, key });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'processing', balance: '10000' });
    expect(started.headers.get('location')).toBe(`/api/v1/payouts/${started.body.payout_id}`);
    expect(await balance(user)).toBe('10000');

    const done = await settled(user, started.body.payout_id);
    expect(done).toMatchObject({
      status: 'completed',
      amount: '20,000 KRW',
      bank_account_id: bankAccountId,
      bank_name: 'KB국민은행',
      purpose: 'request',
      failure_reason: null,
    });
    const statement = await bankAccountLog(stack, account);
    expect(statement.balance).toBe(100_000 + 1 - 30_000 + 20_000);
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([20_000]);
    const history = (await api('/api/v1/transactions', user)).body.transactions;
    expect(history[0]).toMatchObject({ type: 'payout', amount: '-20,000 KRW', reference: started.body.payout_id });
    expect(await eventsOf(started.body.payout_id)).toEqual(['payout.processing', 'payout.completed']);
    const listed = await api('/api/v1/payouts?limit=1', user);
    expect(listed.body).toMatchObject({ payouts: [{ payout_id: started.body.payout_id }], has_more: false });

    // The same Idempotency-Key after its answer was lost: the same payout, nothing paid again.
    await stack.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { key });
    const retried = await api('/api/v1/payouts', user, { json: await payoutBody(user, bankAccountId, '20000'), key });
    expect([retried.status, retried.body.payout_id]).toEqual([202, started.body.payout_id]);
    expect(await balance(user)).toBe('10000');
    expect(await payoutsOf(account)).toHaveLength(1);
  });

  it('pays out nothing on a stolen access token, to another person’s account, or over a limit', async () => {
    const { user, account, bankAccountId } = await funded(10_000);
    const other = await funded(5_000);
    const refused = async (json: unknown) => {
      const answer = await api('/api/v1/payouts', user, { json, key: randomUUID() });
      return [answer.status, answer.body.type?.replace('/problems/', '')];
    };
    const bare = { bank_account_id: bankAccountId, amount: '5000', currency: 'KRW' };
    expect(await refused(bare)).toEqual([422, 'step-up-required']);
    // A PIN approving another amount, or another account, pays nothing.
    const pinFor = (request: Record<string, string>) => encryptPin(stack, user.pin!, { request });
    expect(
      await refused({
        ...bare,
        pin: await pinFor({ action: 'payout', amount: '500', bank_account_id: bankAccountId }),
      }),
    ).toEqual([422, 'pin-not-for-this-request']);
    expect(
      await refused({
        ...bare,
        bank_account_id: other.bankAccountId,
        pin: await pinFor({ action: 'payout', amount: '5000', bank_account_id: other.bankAccountId }),
      }),
    ).toEqual([422, 'payout-account-not-verified']);
    expect(await refused(await payoutBody(user, bankAccountId, '2000001'))).toEqual([422, 'payout-limit-exceeded']);
    expect((await refused(await payoutBody(user, bankAccountId, '10001')))[1]).toBe('insufficient-balance');
    expect(await refused({ ...(await payoutBody(user, bankAccountId, '5000')), currency: 'USD' })).toEqual([
      400,
      'validation-error',
    ]);
    const started = await payOut(other.user, other.bankAccountId, '1000');
    expect((await api(`/api/v1/payouts/${started.body.payout_id}`, user)).status).toBe(404);
    expect(await balance(user)).toBe('10000');
    expect(await payoutsOf(account)).toHaveLength(0);
  });

  it('refuses the second of two payouts at once over the balance: nothing overdrawn, one deposit', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    const answers = await Promise.all([payOut(user, bankAccountId, '20000'), payOut(user, bankAccountId, '20000')]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 422]);
    const refusal = answers.find((a) => a.status === 422)!;
    expect(refusal.body).toMatchObject({ type: '/problems/insufficient-balance', balance: '10000' });
    const accepted = answers.find((a) => a.status === 202)!;
    expect((await settled(user, accepted.body.payout_id)).status).toBe('completed');
    expect(await balance(user)).toBe('10000');
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([20_000]);
  });

  it('gives the balance back once when the bank refuses the payout (the institution’s per-transfer limit, A0106)', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    await bankSettings(stack, { depositLimits: { perTransferKrw: 10_000 } });
    const started = await payOut(user, bankAccountId, '20000');
    expect(await balance(user)).toBe('10000');
    const done = await settled(user, started.body.payout_id);
    expect(done).toMatchObject({
      status: 'failed',
      failure_reason: 'institution_per_transfer_limit',
      failure_code: 'A0106',
    });
    expect(await balance(user)).toBe('30000');
    // A late attempt of the reversal (one that outlived its timeout) gives nothing back twice.
    await workerActivities.reversePayout({ payoutId: started.body.payout_id, reason: 'again', code: 'A0106' });
    expect(await balance(user)).toBe('30000');
    const history = (await api('/api/v1/transactions', user)).body.transactions;
    expect(history.slice(0, 2).map((t: { type: string; amount: string }) => [t.type, t.amount])).toEqual([
      ['payout_reversal', '+20,000 KRW'],
      ['payout', '-20,000 KRW'],
    ]);
    expect(await eventsOf(started.body.payout_id)).toEqual(['payout.processing', 'payout.failed']);
    expect(await payoutsOf(account)).toHaveLength(0);
  });

  // The fault cases below run on the last database only (PostgreSQL where there is one): they wait on the bank's
  // timers, and what they check (the workflow's reading of the centre) is the same on both.
  const drill = onLastDatabase(database);

  /** In review for an operator's decision: the centre has no record of it, and the workflow waits (the decide route's test). */
  const awaitingDecision = (p: { status: string; bankStatus?: string | null }) =>
    p.status === 'needs_review' && p.bankStatus === 'not_received';

  drill('asks transfer/result about a payout answered in doubt, and pays it once', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    await bankSettings(stack, { inDoubt: { times: 1, code: 'A0001', settleAfterMs: 2500, outcome: 'completed' } });
    const started = await payOut(user, bankAccountId, '15000');
    expect((await settled(user, started.body.payout_id)).status).toBe('completed');
    expect((await depositCalls(started.body.payout_id)).map((c) => c.rspCode)).toEqual(['A0001']);
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([15_000]);
    expect(await balance(user)).toBe('15000');
  });

  drill('pays once when the centre books the deposit but its answer is lost (our deadline passed first)', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    // Booked 2.5 s after it arrived, past our 2 s deadline: the first ask (transfer/result) finds it paid.
    await bankSettings(stack, { lateLanding: { times: 1, landAfterMs: 2500 } });
    const started = await payOut(user, bankAccountId, '14000');
    expect((await settled(user, started.body.payout_id)).status).toBe('completed');
    expect(await depositCalls(started.body.payout_id)).toHaveLength(1);
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([14_000]);
    expect(await eventsOf(started.body.payout_id)).toEqual(['payout.processing', 'payout.completed']);
    expect(await balance(user)).toBe('16000');
  });

  drill('pays once when the worker is SIGKILLed between the send and the bank’s answer', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    await stack.stopWorker(); // only the worker processes below serve the payout
    const workers: ServiceProcess[] = [];
    try {
      await bankSettings(stack, { inDoubt: { times: 1, code: 'A0017', settleAfterMs: 2500, outcome: 'completed' } });
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      const started = await payOut(user, bankAccountId, '12000');
      await waitFor(
        async () =>
          (await stack.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId: started.body.payout_id })).bankStatus ===
          'pending',
        60_000,
        'deposit sent',
      );
      workers[0]!.child.kill('SIGKILL');
      expect(await workers[0]!.exited).toBeNull();
      workers.push(runServiceProcess('worker/main.ts', stack.workerProcessEnv()));
      expect((await settled(user, started.body.payout_id)).status).toBe('completed');
      expect(await depositCalls(started.body.payout_id)).toHaveLength(1);
      expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([12_000]);
    } finally {
      for (const worker of workers) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
    }
  });

  drill(
    'never sends a payout again on its own: a first send that lands late, after the centre had no record of it, completes it',
    async () => {
      const { user, account, bankAccountId } = await funded(30_000);
      // The centre holds the call past our 2 s deadline and books it only 10 s later: until then transfer/result has no
      // record of it, and past 6 s the payout is in review, where a charge's withdrawal would have been sent again.
      await bankSettings(stack, { lateLanding: { times: 1, landAfterMs: 10_000 } });
      const started = await payOut(user, bankAccountId, '11000');
      await waitFor(
        async () => (await api(`/api/v1/payouts/${started.body.payout_id}`, user)).body.status === 'needs_review',
        60_000,
        'payout in review',
      );
      const inReview = await stack.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId: started.body.payout_id });
      expect([inReview.bankStatus, inReview.failureReason]).toEqual([
        'not_received',
        expect.stringMatching(/^payout_not_received/),
      ]);
      expect(await balance(user)).toBe('19000');
      expect(await payoutsOf(account)).toHaveLength(0);
      expect((await settled(user, started.body.payout_id)).status).toBe('completed');
      expect(await depositCalls(started.body.payout_id)).toHaveLength(1);
      expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([11_000]);
      expect(await eventsOf(started.body.payout_id)).toEqual([
        'payout.processing',
        'payout.needs_review',
        'payout.completed',
      ]);
      expect(await balance(user)).toBe('19000');
    },
  );

  drill(
    'takes an operator’s decision on a payout the centre never received: resend pays once, reverse gives it back once',
    async () => {
      const { user, account, bankAccountId } = await funded(30_000);
      // The gateway answers 503 before the centre processes anything: the sends of both payouts never arrive.
      await call(`${stack.sandboxUrl}/_faults/bank`, {
        method: 'PUT',
        json: { failTimes: 2, status: 503, paths: ['/deposit/acnt_num'] },
      });
      const resent = (await payOut(user, bankAccountId, '8000')).body.payout_id as string;
      const reversed = (await payOut(user, bankAccountId, '9000')).body.payout_id as string;
      for (const payoutId of [resent, reversed])
        await waitFor(
          async () => awaitingDecision(await stack.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId })),
          60_000,
          'payout not received',
        );
      expect(await balance(user)).toBe('13000');
      // Not for a payout that does not wait for one, nor without an operator's token.
      const processing = (await payOut(user, bankAccountId, '1000')).body.payout_id as string;
      expect((await decide(processing, { action: 'reverse', reason: 'no record at the centre' })).status).toBe(409);
      expect(
        (await call(`${stack.apiUrl}/v1/payouts/${resent}/decision`, { json: { action: 'resend', reason: 'x y z' } }))
          .status,
      ).toBe(401);

      expect((await decide(resent, { action: 'resend', reason: 'A0310 on both days' })).status).toBe(200);
      expect((await decide(reversed, { action: 'reverse', reason: 'A0310 on both days' })).status).toBe(200);
      expect((await settled(user, resent)).status).toBe('completed');
      expect(await settled(user, reversed)).toMatchObject({
        status: 'failed',
        failure_reason: expect.stringMatching(/^not_received_reversed/),
      });
      await settled(user, processing);
      expect((await depositCalls(resent)).map((c) => c.rspCode)).toEqual(['A0000']);
      expect(await depositCalls(reversed)).toHaveLength(0);
      expect((await payoutsOf(account)).map((t) => t.amount).sort()).toEqual([1_000, 8_000]);
      expect(await balance(user)).toBe('21000');
      expect((await decide(reversed, { action: 'resend', reason: 'again' })).status).toBe(409);
    },
  );

  drill(
    'records a first send that lands after an operator gave the amount back: taken from the balance again, once',
    async () => {
      const { user, account, bankAccountId } = await funded(30_000);
      // Booked only a minute after it arrived: long past the wait, so the payout is in review and the operator reverses it.
      await bankSettings(stack, { lateLanding: { times: 1, landAfterMs: 60_000 } });
      const payoutId = (await payOut(user, bankAccountId, '9000')).body.payout_id as string;
      await waitFor(
        async () => awaitingDecision(await stack.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId })),
        60_000,
        'payout not received',
      );
      expect((await decide(payoutId, { action: 'reverse', reason: 'A0310 on both days' })).status).toBe(200);
      expect(await settled(user, payoutId)).toMatchObject({ status: 'failed' });
      expect(await balance(user)).toBe('30000');
      // The centre books it after all: the watch after the decision sees two payments where the ledger has none.
      await call(`${stack.sandboxUrl}/kftc/_transfers/settle`, { method: 'POST' });
      await waitFor(
        async () => (await api(`/api/v1/payouts/${payoutId}`, user)).body.status === 'completed',
        60_000,
        'late landing recorded',
      );
      expect((await api(`/api/v1/payouts/${payoutId}`, user)).body.failure_reason).toMatch(/^paid_again/);
      expect(await balance(user)).toBe('21000');
      expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([9_000]);
      expect(await eventsOf(payoutId)).toEqual([
        'payout.processing',
        'payout.needs_review',
        'payout.failed',
        'payout.completed',
      ]);
      // Recorded once, however often it is told.
      await workerActivities.recordExtraPayment({ payoutId, extra: 1 });
      expect(await balance(user)).toBe('21000');
    },
  );

  drill('starts, on the worker’s housekeeping run, the workflow of a payout whose start was lost', async () => {
    const { user, account, bankAccountId } = await funded(30_000);
    // What an acceptance leaves when the API process dies before it starts the workflow: the payout and its journal.
    const payoutId = `po_${randomUUID()}`;
    const at = new Date(Date.now() - 5 * 60_000);
    await stack.orm.em.fork().transactional(async (tx) => {
      tx.create(PayoutEntity, {
        payoutId,
        userId: user.userId,
        bankAccountId,
        bankCode: account.bankCode,
        amount: 4000n,
        currency: 'KRW',
        purpose: 'request',
        status: 'processing',
        bankStatus: null,
        failureReason: null,
        failureCode: null,
        createdAt: at,
        updatedAt: at,
        completedAt: null,
      });
      await tx.flush();
      await postJournal(tx, {
        journalId: `payout:${payoutId}`,
        kind: 'payout',
        userId: user.userId,
        reference: payoutId,
        legs: [
          {
            accountId: `user:${user.userId}:KRW`,
            kind: 'user_balance',
            userId: user.userId,
            currency: 'KRW',
            amount: -4000n,
          },
          { accountId: 'transit:payouts:KRW', kind: 'payouts_in_transit', currency: 'KRW', amount: 4000n },
        ],
      });
    });
    const sweep = () =>
      stack.temporal.workflow.execute(housekeepingWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `housekeeping-test-${randomUUID()}`,
      });
    await sweep();
    // Started by a housekeeping run: this one, or the hourly schedule's (a worker process of an earlier test created it
    // on this queue; a run due on the hour may be under way at the same moment, and then this sweep finds it started).
    const started = await stack.temporal.workflow.getHandle(payoutWorkflowId(payoutId)).describe();
    expect(started.parentExecution?.workflowId).toMatch(/^housekeeping-/);
    expect((await settled(user, payoutId)).status).toBe('completed');
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([4_000]);
    // Its workflow ran: the next sweep starts nothing for it.
    await stack.temporal.workflow.execute(housekeepingWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `housekeeping-test-${randomUUID()}`,
    });
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([4_000]);
    expect(await balance(user)).toBe('26000');
  });

  it('closes an account with a balance by paying it back to the named account, then closing', async () => {
    const { user, account, bankAccountId } = await funded(25_000);
    const pin = (request: Record<string, string>) => encryptPin(stack, user.pin!, { request });
    // A balance and no account named: what to name.
    const unnamed = await api('/v1/account/close', user, {
      json: { confirm: 'CLOSE', pin: await pin({ action: 'account_close' }) },
    });
    expect(unnamed.status).toBe(409);
    expect(unnamed.body.blockers).toEqual([{ reason: 'won-balance', detail: expect.stringContaining(bankAccountId) }]);
    const close = async () =>
      api('/v1/account/close', user, {
        json: {
          confirm: 'CLOSE',
          bank_account_id: bankAccountId,
          pin: await pin({ action: 'account_close', bank_account_id: bankAccountId }),
        },
        key: randomUUID(),
      });
    // The bank refuses the payout (our per-transfer limit at the centre): the balance comes back, the account stays open.
    await bankSettings(stack, { depositLimits: { perTransferKrw: 10_000 } });
    const refused = await close();
    expect(refused.status).toBe(202);
    const outcome = await stack.temporal.workflow.getHandle(`account-closure-${user.userId}`).result();
    expect(outcome).toMatchObject({ closed: false, blockers: [{ reason: 'payout-failed' }] });
    expect((await stack.orm.em.fork().findOneOrFail(UserEntity, { id: user.userId })).status).toBe('active');
    expect(await balance(user)).toBe('25000');
    await bankSettings(stack, { depositLimits: { perTransferKrw: null } });

    const closing = await close();
    expect(closing.status).toBe(202);
    expect(closing.body).toMatchObject({ status: 'closing', amount: '25,000 KRW' });
    const payoutId = closing.body.payoutId as string;
    await waitFor(
      async () => (await stack.orm.em.fork().findOneOrFail(UserEntity, { id: user.userId })).status === 'closed',
      90_000,
      'account closed',
    );
    const payout = await stack.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId });
    expect([payout.status, payout.purpose, payout.amount]).toEqual(['completed', 'closure', 25_000n]);
    expect((await payoutsOf(account)).map((t) => t.amount)).toEqual([25_000]);
    expect(await eventsOf(user.userId)).toContain('account.closed');
    expect((await api('/api/v1/balance', user)).status).toBe(401);
  });
});
