import { proxyCapabilityActivities } from './capabilities';
import type { TravelRuleActivities } from '../activities/compliance';
import type { ResidentActivities } from '../activities/resident';

const list = proxyCapabilityActivities<Pick<ResidentActivities, 'refreshSanctionsList'>>({
  // The Treasury's file is about 100 MB: minutes to read, heartbeating as it streams.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 5 },
});

/**
 * One refresh of the sanctions list: run by the schedule sanctions-list-refresh every SANCTIONS_LIST_REFRESH_MINUTES
 * (and once at once when the worker starts with no list). A refresh that fails through its attempts leaves the last
 * list in place; screening fails closed once that list is older than SANCTIONS_LIST_MAX_AGE_HOURS.
 */
export async function sanctionsListRefreshWorkflow(): Promise<
  Awaited<ReturnType<ResidentActivities['refreshSanctionsList']>>
> {
  return list.refreshSanctionsList();
}

/**
 * Our answer to another provider's Travel Rule inquiry, posted to its callback until it is taken (a few tries). No
 * longer started (inquiries are resolved in their answer); kept for executions started before.
 */
export async function travelRuleAnswerWorkflow(input: {
  recordId: string;
  callback: string;
  requestIdentifier: string;
  approved: { address: string } | null;
  rejected: string | null;
}): Promise<void> {
  const answer = proxyCapabilityActivities<Pick<TravelRuleActivities, 'answerTravelRuleInquiry'>>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
  });
  await answer.answerTravelRuleInquiry(input);
}

/** CODE's Public Key Search for the API's Response API, run where the signing key is (workflow `code-member-keys-<id>`). */
export async function codeMemberKeysWorkflow(input: {
  entityId: string;
}): Promise<Array<{ pubkey: string; until: number }>> {
  const keys = proxyCapabilityActivities<Pick<TravelRuleActivities, 'codeMemberKeys'>>({
    startToCloseTimeout: '20 seconds',
    retry: { initialInterval: '500 milliseconds', maximumAttempts: 3 },
  });
  return keys.codeMemberKeys(input);
}
