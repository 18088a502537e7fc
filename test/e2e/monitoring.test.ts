import { randomUUID } from 'node:crypto';
import { Contract, Wallet, type InterfaceAbi } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, type RegisteredUser } from '../helpers/http';
import { INCLUDED, fundedUser } from '../helpers/transfers';
import { callApi } from '../helpers/bank';
import { transferPin, type TransferFields } from '../helpers/pin';
import { signInWithIdCard } from '../helpers/sign-in';
import { bearer } from '../helpers/wallet';
import { waitFor } from '../helpers/processes';
import { EventEntity, TransferEntity } from '../../db/entities';
import { newOperatorToken, operatorTokenHash } from '../../api/operators/operators';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { TRANSFER_WORKFLOW_VERSION, transferWorkflowId } from '../../workflows/messages';
import { transferWorkflow } from '../../workflows/transfer';
import { UNSTARTED_TRANSFER_ERROR, UNSTARTED_TRANSFER_SECONDS } from '../../activities/housekeeping';

/**
 * Transaction monitoring end to end on a real chain: rules hold a transfer (held_for_review, funds reserved) and open
 * a case; an operator's decision signals the waiting workflow, which sends it or fails it with nothing signed.
 * Rules here: large from 200,000 won, structuring at 100,000 won, fan-out at 3 new recipients.
 */
describe.each(testDatabases())('transaction monitoring on $name', (kind) => {
  let stack: TestStack;
  let user: RegisteredUser;
  const PIN = '482915';
  const operatorToken = newOperatorToken();
  const asOperator = { authorization: `Bearer ${operatorToken}` };
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      chains: true,
      env: {
        OPERATOR_TOKENS: JSON.stringify({ reviewer: operatorTokenHash(operatorToken) }),
        TRANSFER_WAIT_SECONDS: '10',
        MONITORING_LARGE_KRW: '200000',
        MONITORING_STRUCTURING_KRW: '100000',
        MONITORING_FAN_OUT_RECIPIENTS: '3',
        MONITORING_NEW_RECIPIENT_MINUTES: '60',
        MONITORING_NEW_DEVICE_HOURS: '24',
        NEW_DEVICE_HOLD_SECONDS: '0',
        NEW_DEVICE_HOLD_UNNOTIFIED_SECONDS: '0',
      },
    });
  });
  // Each rule with a user of its own: the rules count a user's transfers of the day.
  beforeEach(async () => {
    ({ user } = await fundedUser(stack, PIN, '20000'));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const usdt = () =>
    new Contract(stack.chains[0]!.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, stack.chains[0]!.funder);
  const balanceOf = async (address: string) => (await usdt().getFunction('balanceOf')(address)) as bigint;
  const send = async (to: string, amount: string, as: RegisteredUser = user) => {
    const fields: TransferFields = { to_address: to, network: 'ETHEREUM', token: 'USDT', amount };
    const key = randomUUID();
    return callApi(stack, '/api/v1/transfer/crypto/execute', as, {
      json: { pin: await transferPin(stack, PIN, fields, key), ...fields },
      key,
    });
  };
  const caseOf = async (transferId: string) => {
    await waitFor(
      async () =>
        (
          (await call(`${stack.apiUrl}/v1/compliance/cases?userId=${user.userId}`, { headers: asOperator })).body
            .items as Array<{ transferId: string }>
        ).some((c) => c.transferId === transferId),
      20_000,
      'the case opened',
    );
    return (
      (await call(`${stack.apiUrl}/v1/compliance/cases?userId=${user.userId}`, { headers: asOperator })).body
        .items as Array<Record<string, unknown>>
    ).find((c) => c.transferId === transferId)!;
  };
  const decide = (caseId: string, decision: 'approve' | 'reject', reason: string) =>
    call(`${stack.apiUrl}/v1/compliance/cases/${caseId}/decision`, { headers: asOperator, json: { decision, reason } });
  const transferStatus = async (transferId: string) =>
    (await callApi(stack, `/api/v1/transfer/crypto/${transferId}`, user)).body;

  it('holds structuring (small transfers to one destination adding up), funds reserved; a rejection fails it with nothing sent', async () => {
    const to = Wallet.createRandom().address;
    const first = await send(to, '50'); // 70,000 won
    expect([first.status, first.body.status]).toEqual([200, expect.stringMatching(INCLUDED)]);
    const usedBefore = BigInt((await callApi(stack, '/api/v1/transfer/limits', user)).body.used_today_krw);
    const second = await send(to, '50');
    expect([second.status, second.body.status]).toEqual([202, 'held_for_review']);
    expect(BigInt((await callApi(stack, '/api/v1/transfer/limits', user)).body.used_today_krw)).toBe(
      usedBefore + 70_000n,
    );
    const held = await caseOf(second.body.transfer_id);
    expect(held).toMatchObject({
      kind: 'structuring',
      status: 'open',
      source: 'monitoring',
      detail: expect.stringContaining('2 transfers to one destination'),
    });

    expect(
      (
        await call(`${stack.apiUrl}/v1/compliance/cases/${held.caseId as string}/decision`, {
          headers: bearer(user),
          json: { decision: 'approve', reason: 'mine' },
        })
      ).status,
    ).toBe(401);
    const rejected = await decide(held.caseId as string, 'reject', 'split to stay under the Travel Rule');
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      decidedBy: 'reviewer',
      reason: 'split to stay under the Travel Rule',
      decidedAt: expect.any(String),
    });
    await waitFor(
      async () => (await transferStatus(second.body.transfer_id)).status === 'failed',
      30_000,
      'the transfer failed',
    );
    expect((await transferStatus(second.body.transfer_id)).error).toContain('split to stay under the Travel Rule');
    expect(await balanceOf(to)).toBe(50_000_000n); // the first only
    const row = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId: second.body.transfer_id });
    expect(row.userOpHash ?? null).toBeNull();
    expect(
      await stack.orm.em
        .fork()
        .count(EventEntity, { type: 'compliance.case_decided', resourceId: held.caseId as string }),
    ).toBe(1);
    // Decided: another decision is refused, the same one answers the case again.
    expect((await decide(held.caseId as string, 'approve', 'changed my mind')).status).toBe(409);
    expect((await decide(held.caseId as string, 'reject', 'again')).status).toBe(200);
  });

  /**
   * A transfer held for structuring (the second to one destination) whose workflow's start fails once (Temporal
   * unavailable): the request answers 5xx with the transfer recorded held. Answers the request, to be retried as is.
   */
  const heldWithoutWorkflow = async (to: string) => {
    expect((await send(to, '50')).body.status).toMatch(INCLUDED); // 70,000 won
    const fields: TransferFields = { to_address: to, network: 'ETHEREUM', token: 'USDT', amount: '50' };
    const key = randomUUID();
    const request = { json: { pin: await transferPin(stack, PIN, fields, key), ...fields }, key };
    const start = jest
      .spyOn(stack.temporal.workflow, 'start')
      .mockRejectedValueOnce(new Error('Temporal is unavailable'));
    try {
      const first = await callApi(stack, '/api/v1/transfer/crypto/execute', user, request);
      expect(first.status).toBeGreaterThanOrEqual(500);
    } finally {
      start.mockRestore();
    }
    const recorded = await stack.orm.em
      .fork()
      .findOneOrFail(TransferEntity, { userId: user.userId, toAddress: to, status: 'held_for_review' });
    return { request, recorded };
  };

  it('keeps a held transfer held when its workflow did not start and the request is retried: nothing sent before a decision', async () => {
    const to = Wallet.createRandom().address;
    const { request, recorded } = await heldWithoutWorkflow(to);
    expect(recorded.review).toMatchObject({ kind: 'structuring' });
    // The retry (the same request, the same key) starts the workflow with the case, as the first attempt would have.
    const retried = await callApi(stack, '/api/v1/transfer/crypto/execute', user, request);
    expect([retried.status, retried.body.status, retried.body.transfer_id]).toEqual([
      202,
      'held_for_review',
      recorded.transferId,
    ]);
    const held = await caseOf(recorded.transferId);
    expect(held).toMatchObject({ kind: 'structuring', status: 'open' });
    await new Promise((resolve) => setTimeout(resolve, 2000)); // a workflow that skipped the review would sign by now
    expect(
      (await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId: recorded.transferId })).userOpHash ?? null,
    ).toBeNull();
    expect(await balanceOf(to)).toBe(50_000_000n);
    expect((await decide(held.caseId as string, 'approve', 'known counterpart')).status).toBe(200);
    await waitFor(
      async () => INCLUDED.test((await transferStatus(recorded.transferId)).status as string),
      30_000,
      'the approved transfer included',
    );
    expect(await balanceOf(to)).toBe(100_000_000n);
  });

  it('fails a held transfer whose workflow reaches signing without its review (one recorded before reviews were kept)', async () => {
    const to = Wallet.createRandom().address;
    const { request, recorded } = await heldWithoutWorkflow(to);
    await stack.orm.em.fork().nativeUpdate(TransferEntity, { transferId: recorded.transferId }, { review: null });
    // The retry starts the workflow without a review: the worker refuses to sign a transfer still held.
    const retried = await callApi(stack, '/api/v1/transfer/crypto/execute', user, request);
    expect(retried.status).toBe(422);
    expect(JSON.stringify(retried.body)).toContain('held for a compliance review');
    const row = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId: recorded.transferId });
    expect([row.status, row.userOpHash ?? null, row.nonceLane ?? null]).toEqual(['failed', null, null]);
    expect(await balanceOf(to)).toBe(50_000_000n);
  });

  it('fails, on the housekeeping run, transfers whose workflow never started and whose request was not retried: nothing sent, lanes free', async () => {
    // A plain transfer (the first to its recipient) recorded, its workflow's start failed (the api gone, for all it knows).
    const plainTo = Wallet.createRandom().address;
    const fields: TransferFields = { to_address: plainTo, network: 'ETHEREUM', token: 'USDT', amount: '10' };
    const key = randomUUID();
    const start = jest
      .spyOn(stack.temporal.workflow, 'start')
      .mockImplementation(() => Promise.reject(new Error('Temporal is unavailable')));
    let plainRequest: { json: Record<string, unknown>; key: string };
    try {
      plainRequest = { json: { pin: await transferPin(stack, PIN, fields, key), ...fields }, key };
      expect(
        (await callApi(stack, '/api/v1/transfer/crypto/execute', user, plainRequest)).status,
      ).toBeGreaterThanOrEqual(500);
    } finally {
      start.mockRestore();
    }
    const plain = await stack.orm.em.fork().findOneOrFail(TransferEntity, { userId: user.userId, toAddress: plainTo });
    expect([plain.status, plain.nonceLane]).toEqual(['processing', expect.any(Number)]);
    // One held for structuring, its start failed, never retried; a third to the same recipient held with its workflow
    // started (its case open). (A third recipient of the day would be held as a fan-out.)
    const to = Wallet.createRandom().address;
    const { recorded: held } = await heldWithoutWorkflow(to);
    const third = await send(to, '50');
    expect([third.status, third.body.status]).toEqual([202, 'held_for_review']);
    const retried = { transferId: third.body.transfer_id as string };
    const openCase = await caseOf(retried.transferId);
    const ids = [plain.transferId, held.transferId, retried.transferId];
    const rows = async () =>
      Promise.all(
        ids.map(async (transferId) => {
          const t = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId });
          return [t.status, t.userOpHash ?? null, t.nonceLane ?? null];
        }),
      );
    const sweep = () =>
      stack.temporal.workflow.execute(housekeepingWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `housekeeping-test-${randomUUID()}`,
      });
    // Minutes younger than UNSTARTED_TRANSFER_SECONDS: its request may still be retried, the sweep leaves them.
    await sweep();
    expect((await rows()).map(([status]) => status)).toEqual(['processing', 'held_for_review', 'held_for_review']);
    const aged = new Date(Date.now() - (UNSTARTED_TRANSFER_SECONDS + 60) * 1000);
    await stack.orm.em.fork().nativeUpdate(TransferEntity, { transferId: { $in: ids } }, { createdAt: aged });
    expect((await sweep()).transfersFailed).toBe(2);
    // Each failed by a workflow under the transfer's own id (the sweep starts them and goes on).
    for (const transferId of [plain.transferId, held.transferId])
      expect(await stack.temporal.workflow.getHandle(transferWorkflowId(transferId)).result()).toMatchObject({
        status: 'failed',
        error: UNSTARTED_TRANSFER_ERROR,
      });
    expect(await rows()).toEqual([
      ['failed', null, null],
      ['failed', null, null],
      ['held_for_review', null, null],
    ]);
    const failedView = await transferStatus(plain.transferId);
    expect([failedView.status, failedView.error]).toEqual(['failed', UNSTARTED_TRANSFER_ERROR]);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'transfer.failed', resourceId: { $in: ids } })).toBe(2);
    // Its request retried now answers the failure: nothing is sent late.
    const late = await callApi(stack, '/api/v1/transfer/crypto/execute', user, plainRequest!);
    expect([late.status, late.body.status, late.body.transfer_id]).toEqual([200, 'failed', plain.transferId]);
    expect(await balanceOf(plainTo)).toBe(0n);
    // The next sweep finds their workflows ran: nothing more; the held one still waits for its operator.
    expect((await sweep()).transfersFailed).toBe(0);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'transfer.failed', resourceId: { $in: ids } })).toBe(2);
    expect((await caseOf(retried.transferId)).status).toBe('open');
    expect((await decide(openCase.caseId as string, 'approve', 'known counterpart')).status).toBe(200);
    await waitFor(
      async () => INCLUDED.test((await transferStatus(retried.transferId)).status as string),
      30_000,
      'the approved transfer included',
    );
  });

  it('sends nothing for a failed transfer Temporal no longer knows: its retry answers it, a workflow started for it signs nothing', async () => {
    // What a failed transfer (refused, rejected by an operator, failed by the sweep) leaves once the namespace's
    // retention removed its workflow's run and its key's stored answer expired: the row failed, its workflow id free.
    const to = Wallet.createRandom().address;
    const fields: TransferFields = { to_address: to, network: 'ETHEREUM', token: 'USDT', amount: '10' };
    const key = randomUUID();
    const request = { json: { pin: await transferPin(stack, PIN, fields, key), ...fields }, key };
    const start = jest
      .spyOn(stack.temporal.workflow, 'start')
      .mockImplementation(() => Promise.reject(new Error('Temporal is unavailable')));
    try {
      expect((await callApi(stack, '/api/v1/transfer/crypto/execute', user, request)).status).toBeGreaterThanOrEqual(
        500,
      );
    } finally {
      start.mockRestore();
    }
    const { transferId, networkId } = await stack.orm.em
      .fork()
      .findOneOrFail(TransferEntity, { userId: user.userId, toAddress: to });
    await stack.orm.em
      .fork()
      .nativeUpdate(
        TransferEntity,
        { transferId },
        { status: 'failed', error: 'rejected by an operator', nonceLane: null },
      );
    // The retry (its first answer was a 5xx, so nothing was stored for the key) answers the failure and starts nothing.
    const retried = await callApi(stack, '/api/v1/transfer/crypto/execute', user, request);
    expect([retried.status, retried.body.status, retried.body.error]).toEqual([
      200,
      'failed',
      'rejected by an operator',
    ]);
    const handle = stack.temporal.workflow.getHandle(transferWorkflowId(transferId));
    expect(await handle.describe().catch(() => null)).toBeNull();
    // A transfer workflow started for it anyway: the worker signs nothing for a transfer that is not processing.
    const rerun = await stack.temporal.workflow.execute(transferWorkflow, {
      workflowId: transferWorkflowId(transferId),
      taskQueue: stack.taskQueue,
      args: [{ version: TRANSFER_WORKFLOW_VERSION, transferId, userId: user.userId, networkId }],
    });
    expect(rerun).toMatchObject({ status: 'failed', refused: true, error: expect.stringContaining('is failed') });
    const row = await stack.orm.em.fork().findOneOrFail(TransferEntity, { transferId });
    expect([row.status, row.userOpHash ?? null, row.nonceLane ?? null]).toEqual(['failed', null, null]);
    expect(await balanceOf(to)).toBe(0n);
  });

  it('holds a fan-out (the third new recipient in a day) until approved, then sends it once', async () => {
    const recipients = [Wallet.createRandom().address, Wallet.createRandom().address];
    for (const to of recipients) expect((await send(to, '10')).body.status).toMatch(INCLUDED);
    const third = Wallet.createRandom().address;
    const held = await send(third, '10');
    expect(held.body.status).toBe('held_for_review');
    const found = await caseOf(held.body.transfer_id);
    expect(found.kind).toBe('fan_out');
    expect((await decide(found.caseId as string, 'approve', 'known payroll recipients')).body.status).toBe('approved');
    await waitFor(
      async () => INCLUDED.test((await transferStatus(held.body.transfer_id)).status),
      30_000,
      'the transfer sent',
    );
    expect(await balanceOf(third)).toBe(10_000_000n);
  });

  it('holds a large transfer to a recipient added minutes before, and one from a device that just signed in', async () => {
    const fresh = Wallet.createRandom().address;
    await callApi(stack, '/api/v1/transfer/address-book', user, { json: { network: 'ETHEREUM', address: fresh } });
    const large = await send(fresh, '200'); // 280,000 won
    expect(large.body.status).toBe('held_for_review');
    expect((await caseOf(large.body.transfer_id)).kind).toBe('new_recipient_large');

    const phone = await signInWithIdCard(stack, user);
    const fromPhone = await send(Wallet.createRandom().address, '200', phone);
    expect(fromPhone.body.status).toBe('held_for_review');
    const found = await caseOf(fromPhone.body.transfer_id);
    expect(found.kind).toBe('new_device_large');
    await decide(found.caseId as string, 'approve', 'called the customer back');
    await waitFor(
      async () => INCLUDED.test((await transferStatus(fromPhone.body.transfer_id)).status),
      30_000,
      'the transfer sent',
    );
  });
});
