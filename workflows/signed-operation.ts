import { ActivityFailure, ApplicationFailure, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import { NetworkIdSA, RECORD_OPTIONS, UserIdSA, type DeployOutcome, type SignedSubmission } from './messages';

const storage =
  proxyCapabilityActivities<Pick<SignedOperationActivities, 'recordOperationStalled' | 'recordOperationReplaced'>>(
    RECORD_OPTIONS,
  );

/**
 * How long a stalled operation waits before it is looked at again: it stays in the bundler's mempool meanwhile, and
 * lands by itself if fees fall; each look also finds a replacement the owner signed since.
 */
const STALLED_RECHECK = '30 seconds';

/**
 * The one shape of a workflow that submits a signed user operation (deployment, DID key): submit it once, record the
 * outcome; a business failure (the operation reverted or was refused) is recorded and answered, anything else retries
 * or fails the workflow for an operator to see. A stalled operation (the chain asks more than its fee cap) is recorded
 * as such and watched until it lands, the owner's replacement takes its place, or its sponsorship expires (refused).
 * The submit and finish activities are the caller's, so each kind keeps its own history.
 */
export async function submitSignedOperation(
  ids: { userId: string; networkId: string; operationId: string },
  steps: {
    submit(): Promise<SignedSubmission>;
    completed(txHash: string | null): Promise<void>;
    failed(error: string): Promise<void>;
  },
): Promise<DeployOutcome> {
  upsertSearchAttributes([
    { key: UserIdSA, value: ids.userId },
    { key: NetworkIdSA, value: ids.networkId },
  ]);
  try {
    let reported = false;
    for (;;) {
      const submitted = await steps.submit();
      if ('stalled' in submitted) {
        if (!reported) await storage.recordOperationStalled({ operationId: ids.operationId, ...submitted.stalled });
        reported = true;
        await sleep(STALLED_RECHECK);
        continue;
      }
      if ('replacedBy' in submitted) {
        await storage.recordOperationReplaced({ operationId: ids.operationId, replacedBy: submitted.replacedBy });
        return { status: 'replaced', replacedBy: submitted.replacedBy };
      }
      await steps.completed(submitted.txHash);
      return { status: 'completed', txHash: submitted.txHash ?? undefined };
    }
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) throw error;
    await steps.failed(cause.message);
    return { status: 'failed', error: cause.message };
  }
}
