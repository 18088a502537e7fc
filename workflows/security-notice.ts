import { proxyCapabilityActivities } from './capabilities';
import type { SecurityNoticeActivities } from '../activities/security-notice';
import type { SecurityNoticeInput, SecurityNoticeOutcome } from './messages';

/** Waits (in the activity) for the change to commit: a request that failed before its commit leaves nothing to tell. */
const events = proxyCapabilityActivities<Pick<SecurityNoticeActivities, 'committedSecurityEvent'>>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 10 },
});
/** A mail provider outage delays the notice, for up to a day; the provider's message key makes a retry mail once. */
const mail = proxyCapabilityActivities<Pick<SecurityNoticeActivities, 'mailSecurityNotice'>>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 day',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

/** Tells the person of a change to how their account is protected (passkeys, devices, a backup read), at their verified email address. */
export async function securityNoticeWorkflow(input: SecurityNoticeInput): Promise<SecurityNoticeOutcome> {
  const eventId = await events.committedSecurityEvent(input);
  if (!eventId) return { mailed: false, reason: 'not-committed' };
  return mail.mailSecurityNotice({ eventId });
}
