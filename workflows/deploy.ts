import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DeployActivities } from '../activities/deploy';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, NetworkIdSA, UserIdSA, type DeployInput, type DeployOutcome } from './messages';


const chain = proxyActivities<Pick<DeployActivities, 'submitDeployment'>>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyActivities<Pick<DeployActivities, 'completeDeployment' | 'failDeployment'>>(RECORD_OPTIONS);

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
