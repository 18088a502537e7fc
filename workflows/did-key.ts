import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { DidKeyActivities } from '../activities/did-key';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, NetworkIdSA, UserIdSA, type DeployOutcome, type DidKeyInput } from './messages';

const chain = proxyActivities<Pick<DidKeyActivities, 'submitDidKey'>>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyActivities<Pick<DidKeyActivities, 'finishDidKey'>>(RECORD_OPTIONS);

/** Adds an assertionMethod key to the user's did:ethr document through a user operation of their account. */
export async function didKeyWorkflow(input: DidKeyInput): Promise<DeployOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }, { key: NetworkIdSA, value: input.networkId }]);
  try {
    const { txHash } = await chain.submitDidKey({ opId: input.opId });
    await storage.finishDidKey({ opId: input.opId, status: 'completed', txHash });
    return { status: 'completed', txHash: txHash ?? undefined };
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (!(cause instanceof ApplicationFailure) || !cause.nonRetryable) throw error;
    await storage.finishDidKey({ opId: input.opId, status: 'failed', error: cause.message });
    return { status: 'failed', error: cause.message };
  }
}
