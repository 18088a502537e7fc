import { ActivityFailure, ApplicationFailure, patched, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { TransferActivities } from '../activities/transfer';
import { TransferFailure } from '../platform/failures';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, NetworkIdSA, UserIdSA, type TransferInput, type TransferOutcome } from './messages';

const chain = proxyActivities<Pick<TransferActivities, 'submitTransfer'>>(CHAIN_SUBMISSION_OPTIONS);
const signing = proxyActivities<Pick<TransferActivities, 'signTransfer'>>({
  startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumAttempts: 10, nonRetryableErrorTypes: [TransferFailure.TransferRefused] },
});
const storage = proxyActivities<Pick<TransferActivities, 'finishTransfer'>>(RECORD_OPTIONS);

/**
 * A crypto transfer the API recorded: the worker signs it (EVM: a user operation of the user's account; Solana: a
 * signed transaction), sends it once, waits until it is final and records the fee.
 */
export async function transferWorkflow(input: TransferInput): Promise<TransferOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }, { key: NetworkIdSA, value: input.networkId }]);
  try {
    // Transfers started before signing moved to the worker arrive signed by the API.
    if (patched('transfer-signed-in-worker')) await signing.signTransfer({ transferId: input.transferId });
    const sent = await chain.submitTransfer({ transferId: input.transferId });
    const outcome: TransferOutcome = { status: sent.success ? 'confirmed' : 'failed', txHash: sent.txHash, fee: sent.fee, ...(sent.success ? {} : { error: sent.error ?? 'the transfer reverted on chain' }) };
    await storage.finishTransfer({ transferId: input.transferId, ...outcome });
    return outcome;
  } catch (error) {
    const cause = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : undefined;
    const message = cause?.message ?? (error as Error).message;
    const refused = cause?.type === TransferFailure.TransferRefused;
    await storage.finishTransfer({ transferId: input.transferId, status: 'failed', txHash: null, fee: null, error: message });
    return { status: 'failed', txHash: null, fee: null, error: message, ...(refused ? { refused: true } : {}) };
  }
}
