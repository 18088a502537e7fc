import { ApplicationFailure, Context, log } from '@temporalio/activity';
import { heartbeat } from './heartbeat';
import { ChainFailure } from '../workflows/messages';
import {
  UserOperationRejected,
  type BundlerClient,
  type UserOperationReceipt,
} from '../integrations/evm/bundler-client';
import type { EntryPointReader, UserOperationOutcome } from '../integrations/evm/entry-point';
import type { ConfirmationObserver } from '../integrations/evm/bundlers';
import type { UserOperation } from '../integrations/evm/user-operation';
import { sponsorshipValidUntil } from '../integrations/evm/paymaster';
import type { InclusionSubscription, InclusionWatch } from '../integrations/evm/inclusion-watch';

/** How long one attempt waits for the receipt before Temporal retries it (which looks for the operation first). */
const RECEIPT_TIMEOUT_MS = 90_000;
const POLL_MS = 250;
/**
 * The waits before the first looks for the receipt after a send, then POLL_MS: a bundler that includes at once answers
 * within a tenth of a second, and a fixed 250 ms added 125 ms to every transfer's wait on average.
 */
const FIRST_POLLS_MS = [50, 50, 100, 100, 150, 200];
/**
 * With the network's inclusion watch, which tells a wait when a block carries its operation: the wait's own looks, for
 * what the watch cannot see (a read of it that failed, a reorg at a height it had read). At 100 transfers at once the
 * timers alone asked the bundler about four times a second for each.
 */
const WATCHED_POLL_MS = 1_000;
/** After the watch told of a block carrying the operation and the bundler did not know it yet: look again this soon. */
const AFTER_TOLD_MS = 100;
/** How long the hand-over waits for the watch to know the chain's head before it goes on without the watch. */
const SUBSCRIBE_WAIT_MS = 1_000;
/** How often a wait asks the bundler whether it still holds the operation (it may drop one: resent then). */
const STILL_KNOWN_EVERY_MS = 5_000;
const HEARTBEAT_MS = 2_000;
/**
 * How many checks in a row (STILL_KNOWN_EVERY_MS apart) must find the chain's base fee above the operation's
 * maxFeePerGas before it counts as stalled: a base fee that rises for one block and falls again is not a stall.
 */
const STALLED_AFTER_CHECKS = 2;

/** Why an operation waits in the bundler's mempool without being included: today only that fees rose past its cap. */
export interface OperationStall {
  reason: 'fees-rose';
  /** The operation's cap (wei per gas), below what the chain asks now. */
  maxFeePerGas: string;
  /** The chain's base fee (wei per gas) when the stall was seen. */
  baseFeePerGas: string;
}

/** An operation signed again on the same nonce, at higher fees: it replaces the stalled one in the bundler's mempool. */
export interface SignedReplacement {
  operation: UserOperation;
  userOpHash: string;
}

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
   * True when the caller's record shows that no attempt has handed the operation over yet (recordSubmitted has never
   * run for it): nothing can have run, so the first send skips looking for a receipt and the nonce (three reads). A
   * wrong true costs no safety: the bundler refuses a used nonce and the next attempt, recorded as submitted, looks.
   */
  neverHandedOver?: boolean;
  /**
   * True when the chain shows the operation's effect though not the operation (another one did it, e.g. an account
   * deployed by someone else): done, nothing to settle.
   */
  alreadyDone?: () => Promise<boolean>;
  /** Told what the operation cost once it ran (the gas budget settles its sponsorship). */
  settle: (outcome: UserOperationOutcome) => Promise<void>;
  observer?: ConfirmationObserver;
  /** The network's inclusion watch: the wait looks for the receipt when a block carries the operation. */
  inclusion?: InclusionWatch;
  /**
   * Hashes of operations on the same nonce that this one replaced (re-priced): they may still land instead of it, and
   * a receipt of any of them is this operation's outcome.
   */
  replacedHashes?: string[];
  /**
   * The id of an operation prepared since on the same account and nonce and handed over for submission (the owner
   * signed it again at higher fees): this one gave way to it. Null when there is none.
   */
  supersededBy?: () => Promise<string | null>;
  /**
   * For an operation the service signs (a transfer): signs it again on the same nonce at fees the chain accepts now,
   * records the replacement before it is sent (so a retry finds it) and answers it. Without it, a stalled operation
   * (owner-signed: only the owner can sign again) is answered as stalled for the caller to report and wait on.
   */
  reprice?: (stall: OperationStall) => Promise<SignedReplacement>;
  /**
   * Answer only once the operation's block is this many blocks deep (itself counted) and still the chain's: a reorg
   * before then puts the operation back in flight (found by the bundler again, or sent again). For operations whose
   * completion is final at once (deployments, swaps); transfers follow finality in a workflow of their own (1).
   */
  finalAfter?: number;
}

export type SubmitOnceResult =
  | { ran: true; receipt: UserOperationReceipt }
  /** The effect was already on chain by other means: nothing ran for this operation. */
  | { ran: false }
  /** The owner signed the operation again (`replacedBy`), which took its place. */
  | { ran: false; replacedBy: string }
  /** The operation waits in the bundler's mempool and the chain asks more than its fee cap: only a new signature helps. */
  | { ran: false; stalled: OperationStall };

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
  // (A local activity has none: its workflow task's timeout does that.)
  const beating = setInterval(heartbeat, HEARTBEAT_MS);
  try {
    return await submit(input);
  } finally {
    clearInterval(beating);
  }
}

/**
 * The bundler's receipt for the operation, if its block is still the chain's: a bundler may answer from a cache a
 * receipt whose block a reorg removed (Alto keeps them a minute), and that one does not count.
 */
async function bundlerReceipt(input: SubmitOnceInput): Promise<UserOperationReceipt | null> {
  for (const userOpHash of hashesOf(input)) {
    const receipt = await input.bundler.receipt(userOpHash);
    if (receipt && (await input.entryPoint.isCanonical(receipt.blockNumber, receipt.blockHash))) return receipt;
  }
  return null;
}

/** The operation's hash, then those of the operations on its nonce it replaced. */
const hashesOf = (input: SubmitOnceInput): string[] => [input.userOpHash, ...(input.replacedHashes ?? [])];

/** The operation's receipt: from the bundler, or from the chain when the bundler does not know it (another bundler's, an old one). */
async function ranAlready(input: SubmitOnceInput): Promise<UserOperationReceipt | null> {
  const fromBundler = await bundlerReceipt(input);
  if (fromBundler) return fromBundler;
  const { operation } = input;
  if ((await input.entryPoint.nonceOf(operation.sender, operation.nonce >> 64n)) <= operation.nonce) return null;
  let found = null;
  for (const userOpHash of hashesOf(input)) {
    found = await input.entryPoint.findOperation(userOpHash);
    if (found) break;
  }
  if (!found) return null;
  return {
    ...found.outcome,
    actualGasUsed: 0n,
    blockNumber: found.receipt.blockNumber,
    blockHash: found.receipt.blockHash,
  };
}

/**
 * Waits until the receipt's block is `finalAfter` blocks deep and still canonical: the receipt then, or null once a
 * reorg removed its block (the operation is back in flight: its nonce is unused again on the chain).
 */
async function finalOrGone(
  input: SubmitOnceInput,
  receipt: UserOperationReceipt,
): Promise<UserOperationReceipt | null> {
  const depth = input.finalAfter ?? 1;
  // One block deep and just read canonical by bundlerReceipt (or found on the chain itself): final now.
  if (depth <= 1) return receipt;
  for (;;) {
    if (!(await input.entryPoint.isCanonical(receipt.blockNumber, receipt.blockHash))) {
      log.warn('a reorg removed the block of the user operation: it is in flight again', {
        userOpHash: receipt.userOpHash,
        networkId: input.networkId,
        blockNumber: receipt.blockNumber,
      });
      return null;
    }
    if ((await input.entryPoint.headNumber()) - receipt.blockNumber + 1 >= depth) return receipt;
    await Context.current().sleep(POLL_MS);
  }
}

async function finished(input: SubmitOnceInput, receipt: UserOperationReceipt): Promise<SubmitOnceResult> {
  await input.settle(receipt);
  if (!receipt.success) throw reverted(receipt.revertReason);
  return { ran: true, receipt };
}

async function submit(input: SubmitOnceInput): Promise<SubmitOnceResult> {
  if (!input.neverHandedOver) {
    const ran = await ranAlready(input);
    const earlier = ran && (await finalOrGone(input, ran));
    if (earlier) return finished(input, earlier);
    // Signed again by the owner on this nonce and handed over: the bundler holds that one, not this.
    const successor = await input.supersededBy?.();
    if (successor) return { ran: false, replacedBy: successor };
    const { operation } = input;
    if ((await input.entryPoint.nonceOf(operation.sender, operation.nonce >> 64n)) > operation.nonce) {
      // The nonce is used, and not by this operation.
      if (await input.alreadyDone?.()) return { ran: false };
      throw refused(`the operation's nonce ${operation.nonce} was used by another operation (AA25)`);
    }
  }
  // Opened before the operation is handed over, so that no block carrying it comes before what the watch reads; a
  // watch that cannot read the chain now leaves the wait to its own timer.
  const watching = input.inclusion?.subscribe(hashesOf(input)).catch(() => undefined);
  try {
    await input.recordSubmitted();
    // A chain RPC that hangs does not hold the hand-over: past SUBSCRIBE_WAIT_MS it goes on with its own timers.
    const watched = watching && (await Promise.race([watching, Context.current().sleep(SUBSCRIBE_WAIT_MS)]));
    return await handOverAndWait(input, watched || undefined);
  } finally {
    void watching?.then((subscription) => subscription?.close());
  }
}

/** Sends the operation (again, re-priced if it stalled) and waits for its receipt: what submit does after the checks. */
async function handOverAndWait(
  initial: SubmitOnceInput,
  watching: InclusionSubscription | undefined,
): Promise<SubmitOnceResult> {
  let input = initial;

  /**
   * A stalled operation: answered as such when only its owner can sign it again; otherwise signed again on its nonce
   * at today's fees and sent in its place (it may still land: its hash stays among those looked for). False: keep
   * waiting (the replacement could not be made now; the stalled operation is still valid).
   */
  const stalled = async (stall: OperationStall): Promise<SubmitOnceResult | 'waiting'> => {
    if (!input.reprice) return { ran: false, stalled: stall };
    const replacement = await input.reprice(stall).catch((error: unknown) => {
      log.warn('the stalled user operation could not be signed again; it keeps waiting', {
        userOpHash: input.userOpHash,
        networkId: input.networkId,
        error: String(error),
      });
      return null;
    });
    if (!replacement) return 'waiting';
    log.info('the user operation stalled below the network fees: signed again at higher fees', {
      userOpHash: input.userOpHash,
      replacement: replacement.userOpHash,
      networkId: input.networkId,
      ...stall,
    });
    input = {
      ...input,
      operation: replacement.operation,
      userOpHash: replacement.userOpHash,
      replacedHashes: [input.userOpHash, ...(input.replacedHashes ?? [])],
    };
    watching?.add(input.userOpHash);
    return (await send(input)) === 'priced-out' ? stalled(await stallOf(input, true)) : 'waiting';
  };

  if ((await send(input)) === 'priced-out') {
    const outcome = await stalled(await stallOf(input, true));
    if (outcome !== 'waiting') return outcome;
  }
  // eslint-disable-next-line no-restricted-syntax -- real time: a wait's deadline and a duration for metrics
  const sentAt = Date.now();
  let askedAt = sentAt;
  let stalledChecks = 0;
  let looks = 0;
  let watchedWait = WATCHED_POLL_MS;
  // eslint-disable-next-line no-restricted-syntax -- real time: a wait's deadline
  while (Date.now() - sentAt < RECEIPT_TIMEOUT_MS) {
    // Cancellable: a worker shutting down cancels the attempt at once (Temporal retries it elsewhere, which finds the
    // operation by its hash) instead of waiting out the receipt.
    let told = false;
    if (watching) {
      // Cancellable: a worker shutting down cancels the attempt at once (Context.cancelled rejects).
      told = (await Promise.race([watching.next(watchedWait), Context.current().cancelled])) === 'told';
    } else await Context.current().sleep(FIRST_POLLS_MS[looks++] ?? POLL_MS);
    const included = await bundlerReceipt(input);
    // Told, and the bundler does not know it yet (its node behind the watch's): soon again, then once a second.
    watchedWait = told && !included ? AFTER_TOLD_MS : WATCHED_POLL_MS;
    const receipt = included && (await finalOrGone(input, included));
    // Included, then a reorg took its block: the bundler is done with it, so the next attempt sends it again (it
    // first looks for it by its hash, and its nonce is unused again).
    if (included && !receipt)
      throw new Error(`a reorg removed the block of user operation ${input.userOpHash}: it is sent again`);
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
    if (Date.now() - askedAt < STILL_KNOWN_EVERY_MS) continue;
    // eslint-disable-next-line no-restricted-syntax -- real time
    askedAt = Date.now();
    if ((await input.bundler.known(input.userOpHash)) === null) {
      const found = await ranAlready(input);
      const landed = found && (await finalOrGone(input, found));
      if (landed) return finished(input, landed);
      const replacedBy = await input.supersededBy?.();
      if (replacedBy) return { ran: false, replacedBy };
      log.warn('the bundler no longer holds the user operation: sending it again', {
        userOpHash: input.userOpHash,
        networkId: input.networkId,
      });
      if ((await send(input)) === 'sent') continue;
      const outcome = await stalled(await stallOf(input, true));
      if (outcome !== 'waiting') return outcome;
      continue;
    }
    const stall = await stallOf(input);
    stalledChecks = stall ? stalledChecks + 1 : 0;
    if (!stall || stalledChecks < STALLED_AFTER_CHECKS) continue;
    stalledChecks = 0;
    const outcome = await stalled(stall);
    if (outcome !== 'waiting') return outcome;
  }
  throw new Error(
    `user operation ${input.userOpHash} on ${input.networkId} not included within ${RECEIPT_TIMEOUT_MS / 1000} s`,
  );
}

/**
 * Whether the operation cannot be included at its price: the chain's base fee is above its maxFeePerGas (or the
 * bundler refused it for its fees: `pricedOut`). A stalled
 * operation whose sponsorship has expired is refused (the paymaster will not pay for it any more; prepare again).
 */
async function stallOf(input: SubmitOnceInput, pricedOut: true): Promise<OperationStall>;
async function stallOf(input: SubmitOnceInput): Promise<OperationStall | null>;
async function stallOf(input: SubmitOnceInput, pricedOut = false): Promise<OperationStall | null> {
  const block = await input.entryPoint.latestBlock();
  if (!pricedOut && block.baseFeePerGas <= input.operation.maxFeePerGas) return null;
  const validUntil = sponsorshipValidUntil(input.operation.paymasterAndData);
  if (validUntil !== 0 && block.timestamp > validUntil)
    throw refused(
      `the operation's gas sponsorship expired while the network asked more than its fee cap (${input.operation.maxFeePerGas} wei per gas); prepare it again`,
    );
  return {
    reason: 'fees-rose',
    maxFeePerGas: input.operation.maxFeePerGas.toString(),
    baseFeePerGas: block.baseFeePerGas.toString(),
  };
}

/**
 * Hands the operation to the bundler. `priced-out`: the bundler will not take it at its fee caps (below what it asks
 * now, e.g. Alto's "maxFeePerGas must be at least"), which is a stall, not a refusal on the operation's merits.
 */
async function send(input: SubmitOnceInput): Promise<'sent' | 'priced-out'> {
  try {
    const hash = await input.bundler.send(input.operation);
    if (hash.toLowerCase() !== input.userOpHash.toLowerCase())
      throw new Error(`the bundler computed userOpHash ${hash} for the operation whose hash is ${input.userOpHash}`);
    return 'sent';
  } catch (error) {
    if (!(error instanceof UserOperationRejected)) throw error;
    // Its nonce used meanwhile: by this operation (an earlier send just landed) or by another; the next attempt tells.
    if (error.nonceUsed) throw new Error(`the bundler refused a used nonce: ${error.reason}`);
    // Already in the bundler's mempool (an earlier attempt's send): waiting for it is all there is to do.
    if (/already known|already in mempool/i.test(error.reason)) return 'sent';
    if (/max(Priority)?FeePerGas must be at least|fee too low|underpriced/i.test(error.reason)) return 'priced-out';
    throw refused(error.message);
  }
}
