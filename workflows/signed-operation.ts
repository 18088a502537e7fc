import { ActivityFailure, ApplicationFailure, upsertSearchAttributes } from '@temporalio/workflow';
import { NetworkIdSA, UserIdSA, type DeployOutcome } from './messages';

/**
 * The one shape of a workflow that submits a signed user operation (deployment, DID key): submit it once, record the
 * outcome; a business failure (the operation reverted or was refused) is recorded and answered, anything else retries
 * or fails the workflow for an operator to see. The activities are the caller's, so each kind keeps its own history.
 */
export async function submitSignedOperation(
  ids: { userId: string; networkId: string },
  steps: {
    submit(): Promise<{ txHash: string | null }>;
    completed(txHash: string | null): Promise<void>;
    failed(error: string): Promise<void>;
  },
): Promise<DeployOutcome> {
  upsertSearchAttributes([
    { key: UserIdSA, value: ids.userId },
    { key: NetworkIdSA, value: ids.networkId },
  ]);
  try {
    const { txHash } = await steps.submit();
    await steps.completed(txHash);
    return { status: 'completed', txHash: txHash ?? undefined };
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) throw error;
    await steps.failed(cause.message);
    return { status: 'failed', error: cause.message };
  }
}
