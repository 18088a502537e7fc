import { ActivityFailure } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { SolanaSwapActivities } from '../activities/solana-swap';
import {
  CHAIN_SUBMISSION_OPTIONS,
  CHAIN_SUBMISSION_TIMEOUTS,
  RECORD_OPTIONS,
  type SwapOperationInput,
} from './messages';

const chain = proxyCapabilityActivities<Pick<SolanaSwapActivities, 'signSolanaSwap'>>(CHAIN_SUBMISSION_OPTIONS);
/** Sending until the transaction lands or its blockhash expires (about a minute): heartbeating, retried on RPC failures. */
const sending = proxyCapabilityActivities<Pick<SolanaSwapActivities, 'sendSolanaSwap'>>({
  ...CHAIN_SUBMISSION_TIMEOUTS,
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
const storage = proxyCapabilityActivities<Pick<SolanaSwapActivities, 'failSolanaSwap'>>(RECORD_OPTIONS);

/**
 * A SOLANA swap the person approved with their PIN: the worker asks Jupiter for its transaction, checks its effect by
 * simulation and signs it with the custodial wallet (refused, nothing sent, when it would fail or do more than the
 * swap), keeps the signed bytes, then sends them until they land or expire. Nothing is ever signed twice: a retry
 * finds the kept bytes.
 */
export async function solanaSwapWorkflow(input: SwapOperationInput): Promise<{ status: string; error?: string }> {
  let signed: { refused: string | null };
  try {
    signed = await chain.signSolanaSwap({ swapId: input.swapId });
  } catch (error) {
    // Its attempts ran out (the chain or Jupiter kept failing): nothing was sent (only the send step sends), so the swap
    // is given up rather than left submitted.
    if (!(error instanceof ActivityFailure)) throw error;
    signed = { refused: `the swap could not be prepared: ${error.cause?.message ?? error.message}; nothing was sent` };
  }
  if (signed.refused) {
    await storage.failSolanaSwap({ swapId: input.swapId, error: signed.refused });
    return { status: 'failed', error: signed.refused };
  }
  return sending.sendSolanaSwap({ swapId: input.swapId });
}
