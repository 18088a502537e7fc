import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { chargeWorkflow } from '../../workflows/charge';
import {
  ChargeFailure,
  PROVIDER_REJECTED,
  withdrawalSettledSignal,
  type WithdrawalSettlement,
} from '../../workflows/messages';
import type { ChargeActivities } from '../../activities/charge';
import { workflowTestWorker } from '../helpers/workflow-env';

type Script = {
  /** What requestWithdrawal answers (a refusal: the bank's own, final). */
  request: WithdrawalSettlement | 'refused';
  /** What each poll answers, in turn (the last repeats). */
  polls?: WithdrawalSettlement[];
  credit?: 'fails';
  refund?: 'refused' | 'credited';
};

/**
 * The charge workflow's branches, fast: the real workflow code on the test run's Temporal server, the bank and the
 * ledger stubbed per charge (a script of answers), every call recorded. The bank's webhook is the signal
 * withdrawalSettled; without it the workflow polls (first after 5 s).
 */
describe('charge workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const scripts = new Map<string, Script>();
  const calls = new Map<string, string[]>();
  const record = (chargeId: string, call: string) => calls.set(chargeId, [...(calls.get(chargeId) ?? []), call]);
  const settled = (status: WithdrawalSettlement['status'], reason: string | null = null): WithdrawalSettlement => ({
    status,
    reason,
  });

  const activities: Pick<
    ChargeActivities,
    'requestWithdrawal' | 'pollWithdrawal' | 'refundCharge' | 'creditCharge' | 'failCharge' | 'holdChargeForReview'
  > = {
    async requestWithdrawal({ chargeId }) {
      record(chargeId, 'requestWithdrawal');
      const { request } = scripts.get(chargeId)!;
      if (request === 'refused') throw ApplicationFailure.nonRetryable('unknown account', PROVIDER_REJECTED);
      return request;
    },
    async pollWithdrawal({ chargeId }) {
      record(chargeId, 'pollWithdrawal');
      const polls = scripts.get(chargeId)!.polls ?? [settled('pending')];
      return polls.length > 1 ? polls.shift()! : polls[0]!;
    },
    async creditCharge({ chargeId }) {
      record(chargeId, 'creditCharge');
      if (scripts.get(chargeId)!.credit === 'fails')
        throw ApplicationFailure.nonRetryable('user closed', ChargeFailure.UserNotActive);
    },
    async refundCharge({ chargeId }) {
      record(chargeId, 'refundCharge');
      if (scripts.get(chargeId)!.refund === 'refused')
        throw ApplicationFailure.nonRetryable('refund refused', PROVIDER_REJECTED);
      if (scripts.get(chargeId)!.refund === 'credited')
        throw ApplicationFailure.nonRetryable('the charge was credited', ChargeFailure.AlreadyCredited);
    },
    async failCharge({ chargeId, reason }) {
      record(chargeId, `failCharge:${reason}`);
    },
    async holdChargeForReview({ chargeId, bankStatus }) {
      record(chargeId, `holdChargeForReview:${bankStatus}`);
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const charge = async (script: Script) => {
    const chargeId = `chg_${randomUUID()}`;
    scripts.set(chargeId, script);
    const handle = await harness.env.client.workflow.start(chargeWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `charge-${chargeId}`,
      args: [{ chargeId, userId: 'usr_1' }],
    });
    return { chargeId, handle };
  };

  it('credits a withdrawal the bank settles at once', async () => {
    const { chargeId, handle } = await charge({ request: settled('completed') });
    expect(await handle.result()).toEqual({ status: 'completed' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'creditCharge']);
  });

  it('fails without a debit when the bank refuses the request itself', async () => {
    const { chargeId, handle } = await charge({ request: 'refused' });
    expect(await handle.result()).toEqual({ status: 'failed', reason: 'bank_refused_withdrawal' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'failCharge:bank_refused_withdrawal']);
  });

  it("acts on the bank's webhook before any poll, and fails a rejected withdrawal with its reason", async () => {
    const { chargeId, handle } = await charge({ request: settled('pending') });
    await handle.signal(withdrawalSettledSignal, settled('rejected', 'insufficient_funds'));
    expect(await handle.result()).toEqual({ status: 'failed', reason: 'insufficient_funds' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'failCharge:insufficient_funds']);
  });

  it('gives the money back when the credit cannot be made', async () => {
    const { chargeId, handle } = await charge({ request: settled('completed'), credit: 'fails' });
    expect(await handle.result()).toEqual({ status: 'failed', reason: 'credit_failed_refunded' });
    expect(calls.get(chargeId)).toEqual([
      'requestWithdrawal',
      'creditCharge',
      'refundCharge',
      'failCharge:credit_failed_refunded',
    ]);
  });

  it('holds for an operator when the bank refuses that refund: neither credited nor returned', async () => {
    const { chargeId, handle } = await charge({ request: settled('completed'), credit: 'fails', refund: 'refused' });
    expect(await handle.result()).toEqual({ status: 'needs_review', reason: 'refund_refused' });
    expect(calls.get(chargeId)).toEqual([
      'requestWithdrawal',
      'creditCharge',
      'refundCharge',
      'holdChargeForReview:refund_refused',
    ]);
  });

  it('completes a charge whose credit committed though its answer was lost: the refund found it credited, nothing held', async () => {
    const { chargeId, handle } = await charge({ request: settled('completed'), credit: 'fails', refund: 'credited' });
    expect(await handle.result()).toEqual({ status: 'completed' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'creditCharge', 'refundCharge']);
  });

  it('holds an undocumented bank status for review, keeps asking, and completes once the bank settles', async () => {
    const { chargeId, handle } = await charge({ request: settled('unknown', 'SOMETHING_NEW') });
    // In review (held once), then the bank's webhook settles it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'holdChargeForReview:unknown']);
    await handle.signal(withdrawalSettledSignal, settled('completed'));
    expect(await handle.result()).toEqual({ status: 'completed' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'holdChargeForReview:unknown', 'creditCharge']);
  });

  it('polls when no webhook comes, and acts on what the poll says', async () => {
    const { chargeId, handle } = await charge({ request: settled('pending'), polls: [settled('completed')] });
    expect(await handle.result()).toEqual({ status: 'completed' });
    expect(calls.get(chargeId)).toEqual(['requestWithdrawal', 'pollWithdrawal', 'creditCharge']);
  }, 30_000);
});
