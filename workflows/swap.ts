import { proxyCapabilityActivities } from './capabilities';
import type { SignedOperationActivities } from '../activities/signed-operation';
import type { SwapActivities } from '../activities/swap';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, type DeployOutcome, type SwapOperationInput } from './messages';
import { submitSignedOperation } from './signed-operation';

const chain = proxyCapabilityActivities<
  Pick<SignedOperationActivities, 'submitSwap'> & Pick<SwapActivities, 'simulateSwap'>
>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyCapabilityActivities<Pick<SwapActivities, 'finishSwap'>>(RECORD_OPTIONS);

/**
 * A swap the owner signed: simulated first at the chain's newest block, and refused without being sent (no gas spent)
 * when it would revert there, e.g. the pool moved past the signed minimum (`stale-quote`); then submitted once, and
 * what it really took and gave recorded from the pools' events.
 */
export async function swapWorkflow(input: SwapOperationInput): Promise<DeployOutcome> {
  const simulated = await chain.simulateSwap({ swapId: input.swapId });
  if (simulated.refused) {
    await storage.finishSwap({ swapId: input.swapId, status: 'failed', error: simulated.refused });
    return { status: 'failed', error: simulated.refused };
  }
  return submitSignedOperation(
    { ...input, operationId: input.swapId },
    {
      submit: () => chain.submitSwap({ opId: input.swapId }),
      completed: (txHash) => storage.finishSwap({ swapId: input.swapId, status: 'completed', txHash }),
      failed: (error) => storage.finishSwap({ swapId: input.swapId, status: 'failed', error }),
    },
  );
}
