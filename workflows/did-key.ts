import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, type DeployOutcome, type DidKeyInput } from './messages';
import { submitSignedOperation } from './signed-operation';

const chain = proxyCapabilityActivities<Pick<SignedOperationActivities, 'submitDidKey'>>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyCapabilityActivities<Pick<SignedOperationActivities, 'finishDidKey'>>(RECORD_OPTIONS);

/** Adds an assertionMethod key to the user's did:ethr document through a user operation of their account. */
export async function didKeyWorkflow(input: DidKeyInput): Promise<DeployOutcome> {
  return submitSignedOperation(
    { ...input, operationId: input.opId },
    {
      submit: () => chain.submitDidKey({ opId: input.opId }),
      completed: (txHash) => storage.finishDidKey({ opId: input.opId, status: 'completed', txHash }),
      failed: (error) => storage.finishDidKey({ opId: input.opId, status: 'failed', error }),
    },
  );
}
