import { ActivityFailure, ApplicationFailure, proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { TransferActivities } from '../activities/transfer';
import { CHAIN_SUBMISSION_OPTIONS, RECORD_OPTIONS, NetworkIdSA, UserIdSA, type TransferInput, type TransferOutcome } from './messages';

const chain = proxyActivities<Pick<TransferActivities, 'submitTransfer'>>(CHAIN_SUBMISSION_OPTIONS);
const storage = proxyActivities<Pick<TransferActivities, 'finishTransfer'>>(RECORD_OPTIONS);

/** Sends a signed transfer (EVM: a user operation of the user's account; Solana: a signed transaction) once, waits until it is final, records the fee. */
export async function transferWorkflow(input: TransferInput): Promise<TransferOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }, { key: NetworkIdSA, value: input.networkId }]);
  try {
    const sent = await chain.submitTransfer({ transferId: input.transferId });
    const outcome: TransferOutcome = { status: sent.success ? 'confirmed' : 'failed', txHash: sent.txHash, fee: sent.fee, ...(sent.success ? {} : { error: sent.error ?? 'the transfer reverted on chain' }) };
    await storage.finishTransfer({ transferId: input.transferId, ...outcome });
    return outcome;
  } catch (error) {
    const cause = error instanceof ActivityFailure && error.cause instanceof ApplicationFailure ? error.cause : undefined;
    const message = cause?.message ?? (error as Error).message;
    await storage.finishTransfer({ transferId: input.transferId, status: 'failed', txHash: null, fee: null, error: message });
    return { status: 'failed', txHash: null, fee: null, error: message };
  }
}
