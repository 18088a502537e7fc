import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, type DeployInput, type DeployOutcome } from './messages';
import { submitSignedOperation } from './signed-operation';

const chain = proxyCapabilityActivities<Pick<SignedOperationActivities, 'submitDeployment'>>(CHAIN_SUBMISSION_OPTIONS);
const storage =
  proxyCapabilityActivities<Pick<SignedOperationActivities, 'completeDeployment' | 'failDeployment'>>(RECORD_OPTIONS);

/** Deploys a user's smart account on one network: submit the signed user operation, then record the account. */
export async function deployWorkflow(input: DeployInput): Promise<DeployOutcome> {
  return submitSignedOperation(
    { ...input, operationId: input.jobId },
    {
      submit: () => chain.submitDeployment({ jobId: input.jobId }),
      completed: (txHash) => storage.completeDeployment({ jobId: input.jobId, txHash }),
      failed: (error) => storage.failDeployment({ jobId: input.jobId, error }),
    },
  );
}
