import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import {
  CHAIN_SUBMISSION_OPTIONS,
  RECORD_OPTIONS,
  type DeployOutcome,
  type TransferKeyOperationInput,
} from './messages';
import { submitSignedOperation } from './signed-operation';

const chain =
  proxyCapabilityActivities<Pick<SignedOperationActivities, 'submitTransferKeyChange'>>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyCapabilityActivities<Pick<SignedOperationActivities, 'finishTransferKeyChange'>>(RECORD_OPTIONS);

/** Renews, rotates, removes or re-caps the service's transfer key on one account, by an owner-signed user operation. */
export async function transferKeyWorkflow(input: TransferKeyOperationInput): Promise<DeployOutcome> {
  return submitSignedOperation(
    { ...input, operationId: input.opId },
    {
      submit: () => chain.submitTransferKeyChange({ opId: input.opId }),
      completed: (txHash) => storage.finishTransferKeyChange({ opId: input.opId, status: 'completed', txHash }),
      failed: (error) => storage.finishTransferKeyChange({ opId: input.opId, status: 'failed', error }),
    },
  );
}
