import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DeployActivities } from '../activities/deploy';
import { CHAIN_SUBMISSION_TIMEOUTS, ChainFailure, NetworkIdSA, UserIdSA, type DeployInput, type DeployOutcome } from './messages';

const RECORD_TIMEOUT = '30 seconds';

const chain = proxyActivities<Pick<DeployActivities, 'submitDeployment'>>({
  ...CHAIN_SUBMISSION_TIMEOUTS,
  // An RPC that is down or slow is retried until it answers; a rejected operation is final.
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 30, nonRetryableErrorTypes: Object.values(ChainFailure) },
});
const storage = proxyActivities<Pick<DeployActivities, 'completeDeployment' | 'failDeployment'>>({
  startToCloseTimeout: RECORD_TIMEOUT,
  retry: { initialInterval: '1 second', maximumAttempts: 20 },
});

/** Deploys a user's smart account on one network: submit the signed user operation, then record the account. */
export async function deployWorkflow(input: DeployInput): Promise<DeployOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }, { key: NetworkIdSA, value: input.networkId }]);
  try {
    const { txHash } = await chain.submitDeployment({ jobId: input.jobId });
    await storage.completeDeployment({ jobId: input.jobId, txHash });
    return { status: 'completed', txHash: txHash ?? undefined };
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) throw error;
    await storage.failDeployment({ jobId: input.jobId, error: cause.message });
    return { status: 'failed', error: cause.message };
  }
}
