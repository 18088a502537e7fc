import { ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { HousekeepingActivities } from '../activities/housekeeping';
import { NetworkIdSA, UserIdSA, payoutWorkflowId, transferWorkflowId, type TransferOutcome } from './messages';
import { payoutWorkflow } from './payout';

const housekeeping = proxyCapabilityActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/**
 * The failure of an unstarted transfer, retried until it is recorded: its workflow holds the transfer's workflow id,
 * which no later sweep can take again, so giving up would leave the transfer reserved for good.
 */
const failing = proxyCapabilityActivities<Pick<HousekeepingActivities, 'failUnstartedTransfer'>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** Patch: the sweep also starts the workflow of a payout whose start was lost. */
const PAYOUT_SWEEP = 'housekeeping-payout-sweep';
/** Patch: the payouts' sweep pages through every candidate, not the hundred oldest alone. */
const PAYOUT_PAGES = 'housekeeping-payout-pages';
/** Patch: the sweep also fails a transfer whose workflow never started. */
const TRANSFER_SWEEP = 'housekeeping-transfer-sweep';

/** How many pages of payout candidates (UNSTARTED_PAYOUT_PAGE each) one sweep looks at. */
const PAYOUT_SWEEP_PAGES = 10;
/** How many pages of transfer candidates (UNSTARTED_TRANSFER_PAGE each) one sweep looks at. */
const TRANSFER_SWEEP_PAGES = 10;

/** A payout's own workflow, under its id (once: a workflow of that id that runs or ran refuses the start). */
const startPayout = (payout: { payoutId: string; userId: string }) =>
  startChild(payoutWorkflow, {
    workflowId: payoutWorkflowId(payout.payoutId),
    args: [payout],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
  });

/** Whether a child's start failed because a workflow of that id runs or ran. */
const alreadyStarted = (error: unknown): boolean =>
  error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError';

/**
 * One sweep, run by the schedule housekeeping every hour (worker/schedules.ts): WebAuthn challenges an hour past their
 * expiry (and used PIN approvals past theirs) are deleted; a payout accepted (its amount out of the balance) whose
 * workflow never started (the API process gone between the two) gets its workflow payout-<id>: no won is left in
 * transit with nobody asking the bank; a transfer recorded (its amount reserved, its nonce lane held) whose workflow
 * never started and whose request was not retried is failed by unstartedTransferWorkflow under its own id
 * transfer-<id>, nothing signed. The transfer is not sent late: its request answered an error, and the person may
 * have sent it again since. A sweep that fails through its attempts is the next hour's to do.
 */
export async function housekeepingWorkflow(): Promise<{
  expiredChallengesDeleted: number;
  payoutsResumed?: number;
  transfersFailed?: number;
}> {
  const { deleted } = await housekeeping.deleteExpiredChallenges();
  if (!patched(PAYOUT_SWEEP)) return { expiredChallengesDeleted: deleted };
  let resumed = 0;
  if (patched(PAYOUT_PAGES)) {
    // Pages of candidates by payout id, each page's children started together (one workflow task for the page, not one
    // per payout), at most PAYOUT_SWEEP_PAGES a run: payouts that wait with a workflow of their own do not hide a lost
    // one behind them. Each run starts from the first id: past that many pages of waiting payouts, a lost one is
    // reached once enough of those before it have finished.
    let next: string | null = null;
    for (let pages = 0; pages < PAYOUT_SWEEP_PAGES; pages += 1) {
      const page: { payouts: Array<{ payoutId: string; userId: string }>; next: string | null } =
        await housekeeping.unstartedPayoutPage(next === null ? {} : { after: next });
      const starts = await Promise.allSettled(page.payouts.map(startPayout));
      for (const start of starts) {
        if (start.status === 'fulfilled') resumed += 1;
        // Its workflow runs (or ran): nothing to do.
        else if (!alreadyStarted(start.reason)) throw start.reason;
      }
      next = page.next;
      if (next === null) break;
    }
  } else {
    // Sweeps started before the pages: the hundred oldest, one at a time, as they ran.
    for (const payout of await housekeeping.unstartedPayoutCandidates()) {
      try {
        await startPayout(payout);
        resumed += 1;
      } catch (error) {
        // Its workflow runs (or ran): nothing to do.
        if (!alreadyStarted(error)) throw error;
      }
    }
  }
  if (!patched(TRANSFER_SWEEP)) return { expiredChallengesDeleted: deleted, payoutsResumed: resumed };
  let failed = 0;
  let after: string | null = null;
  // Pages of candidates (most have a workflow: held for an operator, waiting on a Travel Rule answer or a chain), each
  // page's children started together (one workflow task for the page, not one per transfer); at most
  // TRANSFER_SWEEP_PAGES a run, so a run's history stays small. Each run starts from the first id: past that many
  // pages of candidates with workflows, one behind them is reached once enough of those have ended.
  for (let pages = 0; pages < TRANSFER_SWEEP_PAGES; pages += 1) {
    const page: { transfers: Array<{ transferId: string; userId: string; networkId: string }>; next: string | null } =
      await housekeeping.unstartedTransferCandidates(after === null ? {} : { after });
    const starts = await Promise.allSettled(
      page.transfers.map((transfer) =>
        // The transfer's own workflow id: a retry of its request that comes now finds it taken and answers its outcome.
        startChild(unstartedTransferWorkflow, {
          workflowId: transferWorkflowId(transfer.transferId),
          args: [{ transferId: transfer.transferId }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: UserIdSA, value: transfer.userId },
            { key: NetworkIdSA, value: transfer.networkId },
          ],
        }),
      ),
    );
    for (const start of starts) {
      if (start.status === 'fulfilled') failed += 1;
      // Its workflow runs (or ran): nothing to do.
      else if (!alreadyStarted(start.reason)) throw start.reason;
    }
    after = page.next;
    if (after === null) break;
  }
  return { expiredChallengesDeleted: deleted, payoutsResumed: resumed, transfersFailed: failed };
}

/**
 * A transfer whose workflow never started, failed by the housekeeping sweep under the transfer's workflow id
 * (transfer-<id>): nothing was signed, its amount and nonce lane are free again. Its result is a transfer's outcome, so
 * a retry of the transfer's request answers it as it answers any failed transfer.
 */
export async function unstartedTransferWorkflow(input: { transferId: string }): Promise<TransferOutcome> {
  const { error } = await failing.failUnstartedTransfer(input);
  return { status: 'failed', txHash: null, fee: null, error };
}
