import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import {
  CHAIN_SUBMISSION_OPTIONS,
  RECORD_OPTIONS,
  accountRecoveryWorkflowId,
  recoveryCheckSignal,
  type DeployOutcome,
  type RecoveryCancelInput,
  type TransferKeyOperationInput,
} from './messages';
import { submitSignedOperation } from './signed-operation';

const chain =
  proxyCapabilityActivities<Pick<SignedOperationActivities, 'submitAccountUpgrade' | 'submitRecoveryCancel'>>(
    CHAIN_SUBMISSION_OPTIONS,
  );
const storage =
  proxyCapabilityActivities<Pick<SignedOperationActivities, 'finishAccountUpgrade' | 'finishRecoveryCancel'>>(
    RECORD_OPTIONS,
  );

/** Upgrades the account on one network to WalletAccountRecoverable (owner recovery with a time lock), by an owner-signed user operation. */
export async function accountUpgradeWorkflow(input: TransferKeyOperationInput): Promise<DeployOutcome> {
  return submitSignedOperation(
    { ...input, operationId: input.opId },
    {
      submit: () => chain.submitAccountUpgrade({ opId: input.opId }),
      completed: (txHash) => storage.finishAccountUpgrade({ opId: input.opId, status: 'completed', txHash }),
      failed: (error) => storage.finishAccountUpgrade({ opId: input.opId, status: 'failed', error }),
    },
  );
}

/** The owner cancels a pending recovery on one network (owner-signed); the recovery's workflow is told to look at once. */
export async function recoveryCancelWorkflow(input: RecoveryCancelInput): Promise<DeployOutcome> {
  const outcome = await submitSignedOperation(
    { ...input, operationId: input.opId },
    {
      submit: () => chain.submitRecoveryCancel({ opId: input.opId }),
      completed: (txHash) => storage.finishRecoveryCancel({ opId: input.opId, status: 'completed', txHash }),
      failed: (error) => storage.finishRecoveryCancel({ opId: input.opId, status: 'failed', error }),
    },
  );
  await getExternalWorkflowHandle(accountRecoveryWorkflowId(input.recoveryId))
    .signal(recoveryCheckSignal)
    .catch(() => undefined); // it may have ended
  return outcome;
}
