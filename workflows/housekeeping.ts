import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities } from '../activities/housekeeping';

const housekeeping = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/**
 * One sweep of rows past their use, run by the schedule housekeeping every hour (worker/schedules.ts): WebAuthn
 * challenges an hour past their expiry. A sweep that fails through its attempts is the next hour's to do.
 */
export async function housekeepingWorkflow(): Promise<{ expiredChallengesDeleted: number }> {
  const { deleted } = await housekeeping.deleteExpiredChallenges();
  return { expiredChallengesDeleted: deleted };
}
