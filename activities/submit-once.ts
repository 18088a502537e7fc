import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { ChainFailure } from '../workflows/messages';
import {
  UserOperationRejected,
  type BundlerClient,
  type UserOperationReceipt,
} from '../integrations/evm/bundler-client';
import type { EntryPointReader, UserOperationOutcome } from '../integrations/evm/entry-point';
import type { ConfirmationObserver } from '../integrations/evm/bundlers';
import type { UserOperation } from '../integrations/evm/user-operation';

/** How long one attempt waits for the receipt before Temporal retries it (which looks for the operation first). */
const RECEIPT_TIMEOUT_MS = 90_000;
const POLL_MS = 250;
/** How often a wait asks the bundler whether it still holds the operation (it may drop one: resent then). */
const STILL_KNOWN_EVERY_MS = 5_000;
const HEARTBEAT_MS = 2_000;

export interface SubmitOnceInput {
  networkId: string;
  bundler: BundlerClient;
  entryPoint: EntryPointReader;
  operation: UserOperation;
  /** The operation's hash (EntryPoint.getUserOpHash): the handle an attempt finds its operation by after a crash. */
  userOpHash: string;
  /** Records that the operation is being handed to the bundler; called before it is, on every attempt. */
  recordSubmitted: () => Promise<void>;
  /**
   * True when the chain shows the operation's effect though not the operation (another one did it, e.g. an account
   * deployed by someone else): done, nothing to settle.
   */
  alreadyDone?: () => Promise<boolean>;
  /** Told what the operation cost once it ran (the gas budget settles its sponsorship). */
  settle: (outcome: UserOperationOutcome) => Promise<void>;
  observer?: ConfirmationObserver;
}

export type SubmitOnceResult =
  | { ran: true; receipt: UserOperationReceipt }
  /** The effect was already on chain by other means: nothing ran for this operation. */
  | { ran: false };

const reverted = (reason?: string) =>
  ApplicationFailure.create({
    type: ChainFailure.UserOperationFailed,
    nonRetryable: true,
    message: `the user operation reverted${reason ? `: ${reason}` : ''}`,
  });

const refused = (reason: string) =>
  ApplicationFailure.create({ type: ChainFailure.UserOperationRejected, nonRetryable: true, message: reason });

/**
 * Hands a signed user operation to the network's bundler so that retries at any point never execute it twice, and
 * waits for its receipt. The operation is known by its userOpHash, fixed before anything is sent: every attempt first
 * asks whether it already ran (the bundler's receipt, then the chain's UserOperationEvent once its nonce is used),
 * the EntryPoint nonce inside the signed operation refuses a second execution anyway, and an operation the bundler
 * dropped from its mempool is sent again. A refusal on its merits is final (non-retryable); an unreachable or
 * failing bundler, or a wait that ran out, is thrown for Temporal to retry.
 */
export async function submitOnce(input: SubmitOnceInput): Promise<SubmitOnceResult> {
  // Heartbeats let Temporal notice a dead worker within the heartbeat timeout, instead of the whole start-to-close
  // timeout, and retry the submission elsewhere (which then finds the operation by its hash).
  const heartbeat = setInterval(() => Context.current().heartbeat(), HEARTBEAT_MS);
  try {
    return await submit(input);
  } finally {
    clearInterval(heartbeat);
  }
}

/**
 * The bundler's receipt for the operation, if its block is still the chain's: a bundler may answer from a cache a
 * receipt whose block a reorg removed (Alto keeps them a minute), and that one does not count.
 */
async function bundlerReceipt(input: SubmitOnceInput): Promise<UserOperationReceipt | null> {
  const receipt = await input.bundler.receipt(input.userOpHash);
  if (!receipt) return null;
  return (await input.entryPoint.isCanonical(receipt.blockNumber, receipt.blockHash)) ? receipt : null;
}

/** The operation's receipt: from the bundler, or from the chain when the bundler does not know it (another bundler's, an old one). */
async function ranAlready(input: SubmitOnceInput): Promise<UserOperationReceipt | null> {
  const fromBundler = await bundlerReceipt(input);
  if (fromBundler) return fromBundler;
  const { operation } = input;
  if ((await input.entryPoint.nonceOf(operation.sender, operation.nonce >> 64n)) <= operation.nonce) return null;
  const found = await input.entryPoint.findOperation(input.userOpHash);
  if (!found) return null;
  return {
    ...found.outcome,
    actualGasUsed: 0n,
    blockNumber: found.receipt.blockNumber,
    blockHash: found.receipt.blockHash,
  };
}

async function finished(input: SubmitOnceInput, receipt: UserOperationReceipt): Promise<SubmitOnceResult> {
  await input.settle(receipt);
  if (!receipt.success) throw reverted(receipt.revertReason);
  return { ran: true, receipt };
}

async function submit(input: SubmitOnceInput): Promise<SubmitOnceResult> {
  const earlier = await ranAlready(input);
  if (earlier) return finished(input, earlier);
  const { operation } = input;
  if ((await input.entryPoint.nonceOf(operation.sender, operation.nonce >> 64n)) > operation.nonce) {
    // The nonce is used, and not by this operation.
    if (await input.alreadyDone?.()) return { ran: false };
    throw refused(`the operation's nonce ${operation.nonce} was used by another operation (AA25)`);
  }
  await input.recordSubmitted();
  await send(input);
  // eslint-disable-next-line no-restricted-syntax -- real time: a wait's deadline and a duration for metrics
  const sentAt = Date.now();
  let askedAt = sentAt;
  // eslint-disable-next-line no-restricted-syntax -- real time: a wait's deadline
  while (Date.now() - sentAt < RECEIPT_TIMEOUT_MS) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const receipt = await bundlerReceipt(input);
    if (receipt) {
      input.observer?.confirmed(
        input.networkId,
        // eslint-disable-next-line no-restricted-syntax -- real time: a duration for metrics
        (Date.now() - sentAt) / 1000,
        receipt.success ? 'success' : 'reverted',
      );
      return finished(input, receipt);
    }
    // eslint-disable-next-line no-restricted-syntax -- real time: how long since the bundler was last asked
    if (Date.now() - askedAt >= STILL_KNOWN_EVERY_MS) {
      // eslint-disable-next-line no-restricted-syntax -- real time
      askedAt = Date.now();
      if ((await input.bundler.known(input.userOpHash)) === null) {
        const landed = await ranAlready(input);
        if (landed) return finished(input, landed);
        log.warn('the bundler no longer holds the user operation: sending it again', {
          userOpHash: input.userOpHash,
          networkId: input.networkId,
        });
        await send(input);
      }
    }
  }
  throw new Error(
    `user operation ${input.userOpHash} on ${input.networkId} not included within ${RECEIPT_TIMEOUT_MS / 1000} s`,
  );
}

async function send(input: SubmitOnceInput): Promise<void> {
  try {
    const hash = await input.bundler.send(input.operation);
    if (hash.toLowerCase() !== input.userOpHash.toLowerCase())
      throw new Error(`the bundler computed userOpHash ${hash} for the operation whose hash is ${input.userOpHash}`);
  } catch (error) {
    if (!(error instanceof UserOperationRejected)) throw error;
    // Its nonce used meanwhile: by this operation (an earlier send just landed) or by another; the next attempt tells.
    if (error.nonceUsed) throw new Error(`the bundler refused a used nonce: ${error.reason}`);
    // Already in the bundler's mempool (an earlier attempt's send): waiting for it is all there is to do.
    if (/already known|already in mempool/i.test(error.reason)) return;
    throw refused(error.message);
  }
}
