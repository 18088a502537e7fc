import { proxyActivities } from '@temporalio/workflow';
import type { ComplianceActivities } from '../activities/compliance';

const list = proxyActivities<Pick<ComplianceActivities, 'refreshSanctionsList'>>({
  // The Treasury's file is about 100 MB: minutes to read, heartbeating as it streams.
  startToCloseTimeout: '15 minutes', heartbeatTimeout: '1 minute',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 5 },
});

/**
 * One refresh of the sanctions list: run by the schedule sanctions-list-refresh every SANCTIONS_LIST_REFRESH_MINUTES
 * (and once at once when the worker starts with no list). A refresh that fails through its attempts leaves the last
 * list in place; screening fails closed once that list is older than SANCTIONS_LIST_MAX_AGE_HOURS.
 */
export async function sanctionsListRefreshWorkflow(): Promise<Awaited<ReturnType<ComplianceActivities['refreshSanctionsList']>>> {
  return list.refreshSanctionsList();
}
