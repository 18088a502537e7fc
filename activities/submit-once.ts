import { ApplicationFailure, Context } from '@temporalio/activity';
import { ChainFailure } from '../workflows/messages';
import { UserOperationRejected, type Bundler, type UserOperationOutcome } from '../integrations/evm/bundler';
import type { UserOperation } from '../integrations/evm/user-operation';

const RECEIPT_TIMEOUT_MS = 90_000;
const HEARTBEAT_MS = 2_000;

export interface SubmitOnceInput {
  bundler: Bundler;
  beneficiary: string;
  operation: UserOperation;
  /** The transaction hash recorded by an earlier attempt, if any. */
  recordedTxHash: string | null | undefined;
  /** True when the chain already shows the operation's effect (account deployed, owner changed). */
  alreadyDone: () => Promise<boolean>;
  /** Stores the transaction hash; called before the transaction is broadcast. */
  recordTxHash: (hash: string) => Promise<void>;
  /** Told what the operation cost once it ran (the gas budget settles its sponsorship). */
  settle: (outcome: UserOperationOutcome) => Promise<void>;
}

/**
 * Submits a signed user operation so that retries at any point never execute it twice: an earlier attempt's
 * transaction is looked up first, the effect on chain counts as done, the hash is recorded before broadcast, and
 * the EntryPoint nonce inside the signed operation refuses a second execution anyway. Validation failures are
 * final (non-retryable); RPC failures are thrown for Temporal to retry.
 */
export async function submitOnce(input: SubmitOnceInput): Promise<{ txHash: string | null }> {
  // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, instead of the whole start-to-close
  // timeout, and retry the submission elsewhere (which then finds the recorded transaction).
  const heartbeat = setInterval(() => Context.current().heartbeat(), HEARTBEAT_MS);
  try {
    return await submit(input);
  } finally {
    clearInterval(heartbeat);
  }
}

async function submit(input: SubmitOnceInput): Promise<{ txHash: string | null }> {
  const { bundler } = input;
  const reverted = (reason?: string) =>
    ApplicationFailure.create({
      type: ChainFailure.UserOperationFailed,
      nonRetryable: true,
      message: `the user operation reverted${reason ? `: ${reason}` : ''}`,
    });
  const ran = async (hash: string, timeoutMs?: number) => {
    const outcome = await bundler.waitForOutcome(hash, timeoutMs);
    await input.settle(outcome);
    if (!outcome.success) throw reverted(outcome.revertReason);
    return { txHash: hash };
  };
  if (input.recordedTxHash) {
    if (await bundler.receiptOf(input.recordedTxHash, 5_000)) return ran(input.recordedTxHash);
    // Still in the pool after an attempt's wait ran out: priced under what blocks now ask. Replace it (same nonce,
    // higher fees); whichever of the two is mined, the operation runs once.
    const stuck = await bundler.pendingTransaction(input.recordedTxHash);
    if (stuck)
      return ran(
        await bundler.replace(stuck, input.operation, input.beneficiary, input.recordTxHash),
        RECEIPT_TIMEOUT_MS,
      );
  }
  if (await input.alreadyDone()) {
    // Done by a transaction other than the recorded one (a replaced one mined after all, or one a reorg moved).
    const found = await bundler.findOperation(await bundler.onChainHash(input.operation));
    if (found) {
      await input.settle(found.outcome);
      if (!found.outcome.success) throw reverted(found.outcome.revertReason);
      return { txHash: found.receipt.hash };
    }
    return { txHash: input.recordedTxHash ?? null };
  }
  try {
    await bundler.simulate(input.operation, input.beneficiary);
  } catch (error) {
    if (error instanceof UserOperationRejected) {
      throw ApplicationFailure.create({
        type: ChainFailure.UserOperationRejected,
        message: error.message,
        nonRetryable: true,
      });
    }
    throw error;
  }
  const hash = await bundler.send(input.operation, input.beneficiary, input.recordTxHash);
  return ran(hash, RECEIPT_TIMEOUT_MS);
}
