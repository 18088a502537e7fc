import { ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { HousekeepingActivities } from '../activities/housekeeping';
import { payoutWorkflowId } from './messages';
import { payoutWorkflow } from './payout';

const housekeeping = proxyCapabilityActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/** Patch: the sweep also starts the workflow of a payout whose start was lost. */
const PAYOUT_SWEEP = 'housekeeping-payout-sweep';

/**
 * One sweep, run by the schedule housekeeping every hour (worker/schedules.ts): WebAuthn challenges an hour past their
 * expiry (and used PIN approvals past theirs) are deleted, and a payout accepted (its amount out of the balance) whose workflow never started (the API
 * process gone between the two) gets its workflow payout-<id>: no won is left in transit with nobody asking the bank.
 * A sweep that fails through its attempts is the next hour's to do.
 */
export async function housekeepingWorkflow(): Promise<{ expiredChallengesDeleted: number; payoutsResumed?: number }> {
  const { deleted } = await housekeeping.deleteExpiredChallenges();
  if (!patched(PAYOUT_SWEEP)) return { expiredChallengesDeleted: deleted };
  let resumed = 0;
  for (const payout of await housekeeping.unstartedPayoutCandidates()) {
    try {
      await startChild(payoutWorkflow, {
        workflowId: payoutWorkflowId(payout.payoutId),
        args: [payout],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
      });
      resumed += 1;
    } catch (error) {
      // Its workflow runs (or ran): nothing to do.
      if (!(error instanceof Error && error.name === 'WorkflowExecutionAlreadyStartedError')) throw error;
    }
  }
  return { expiredChallengesDeleted: deleted, payoutsResumed: resumed };
}
