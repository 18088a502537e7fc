import { ParentClosePolicy, condition, setHandler, startChild, upsertSearchAttributes } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { RecoveryActivities } from '../activities/recovery';
import {
  RECORD_OPTIONS,
  UserIdSA,
  recoveryCheckSignal,
  securityNoticeWorkflowId,
  type AccountRecoveryInput,
  type AccountRecoveryOutcome,
  type SecurityEventType,
} from './messages';
import { securityNoticeWorkflow } from './security-notice';

/** Chain calls: an RPC outage is retried; "not due yet" is retried until the chains' clocks pass the delay. */
const CHAIN_RETRY = { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;
const chain = proxyCapabilityActivities<
  Pick<RecoveryActivities, 'scheduleRecoveryNetworks' | 'executeRecoveryNetworks'>
>({
  startToCloseTimeout: '2 minutes',
  retry: CHAIN_RETRY,
});
/**
 * The look for cancellations, every pollSeconds during the delay: a few reads, so a short timeout, after which a
 * worker that died while running it is replaced at once (found by CI: a worker SIGKILLed mid-look held the
 * recovery back for the two minutes of the other chain calls).
 */
const watch = proxyCapabilityActivities<Pick<RecoveryActivities, 'checkRecoveryCancellations'>>({
  startToCloseTimeout: '20 seconds',
  retry: CHAIN_RETRY,
});
const storage = proxyCapabilityActivities<Pick<RecoveryActivities, 'finishRecovery'>>(RECORD_OPTIONS);

/** A margin over the delay, for the chains' clocks running behind the workflow's. */
const MARGIN_SECONDS = 2;

/**
 * Recovery of the owner key when the backup is gone: the service's recovery key schedules the new owner on every
 * network where the account is recoverable, the person is mailed, the delay runs on a durable timer (through worker
 * restarts and deploys) while the chains are watched for the owner's cancellation, then the new owner is made the
 * owner on every network still scheduled. Each step records what the chain shows, so nothing is done twice.
 */
export async function accountRecoveryWorkflow(input: AccountRecoveryInput): Promise<AccountRecoveryOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  let check = false;
  setHandler(recoveryCheckSignal, () => {
    check = true;
  });
  const notify = (eventType: SecurityEventType) =>
    startChild(securityNoticeWorkflow, {
      workflowId: securityNoticeWorkflowId(eventType, input.recoveryId),
      args: [{ userId: input.userId, eventType, resourceId: input.recoveryId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });

  const { scheduled, waitSeconds } = await chain.scheduleRecoveryNetworks({ recoveryId: input.recoveryId });
  if (!scheduled) return storage.finishRecovery({ recoveryId: input.recoveryId });
  await notify('recovery.scheduled');

  const deadline = Date.now() + (waitSeconds + MARGIN_SECONDS) * 1000;
  let pending = scheduled;
  let due = false;
  while (pending > 0 && !due && Date.now() < deadline) {
    await condition(() => check, Math.max(1, Math.min(input.pollSeconds * 1000, deadline - Date.now())));
    check = false;
    ({ pending, due } = await watch.checkRecoveryCancellations({ recoveryId: input.recoveryId }));
  }
  if (pending > 0) await chain.executeRecoveryNetworks({ recoveryId: input.recoveryId });
  const outcome = await storage.finishRecovery({ recoveryId: input.recoveryId });
  await notify(outcome.status === 'cancelled' ? 'recovery.cancelled' : 'recovery.executed');
  return outcome;
}
