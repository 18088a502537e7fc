import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  condition,
  continueAsNew,
  log,
  patched,
  proxyLocalActivities,
  setHandler,
  type LocalActivityOptions,
  startChild,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { TransferActivities } from '../activities/transfer';
import type { ResidentActivities } from '../activities/resident';
import type { TransferPreparationActivities } from '../activities/transfer-prepare';
import type { ComplianceActivities, TravelRuleActivities } from '../activities/compliance';
import { ChainFailure, GasFailure, TransferFailure } from '../platform/failures';
import {
  CHAIN_SUBMISSION_OPTIONS,
  CHAIN_SUBMISSION_TIMEOUTS,
  RECORD_OPTIONS,
  NeedsReviewSA,
  sentOutcome,
  NetworkIdSA,
  UserIdSA,
  transferFinalityWorkflowId,
  travelRuleConfirmationWorkflowId,
  travelRuleDecisionSignal,
  complianceDecisionSignal,
  type ComplianceDecision,
  type TransferInput,
  type TransferOutcome,
  type TravelRuleDecision,
} from './messages';

const SIGNING: LocalActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [TransferFailure.TransferRefused],
  },
};
/** The last sanctions screening before signing: a provider or list that cannot answer is retried for about two minutes. */
const SCREENING: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 8,
    nonRetryableErrorTypes: [TransferFailure.RecipientSanctioned],
  },
};
const signing = proxyCapabilityActivities<Pick<TransferActivities, 'signTransfer'>>(SIGNING);
const screening = proxyCapabilityActivities<Pick<ComplianceActivities, 'screenTransferRecipient'>>(SCREENING);
/** The Travel Rule inquiry: a provider that cannot be reached is retried for about ten minutes, then the transfer fails. */
const travelRule = proxyCapabilityActivities<
  Pick<TravelRuleActivities, 'sendTravelRuleInquiry' | 'recordTravelRuleOutcome'>
>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
});
/**
 * The short steps of a transfer's own path (the last screening, signing, recording the outcome) as local activities:
 * run by the worker that runs the workflow task, with no activity task through the server (three events and a task
 * dispatch each fewer), same timeouts and retries. The transfers-per-second bench found the Temporal server's CPU per
 * transfer the largest share of the path's. Workflows started before keep their activities (patch transfer-local-steps).
 */
// A retry that waits longer than LOCAL_RETRY_THRESHOLD waits on a durable timer, not in the worker's memory: a worker
// that stops is not held up by a screening provider's backoff.
const LOCAL_RETRY_THRESHOLD = '5 seconds';
const localSigning = proxyLocalActivities<Pick<TransferActivities, 'signTransfer'>>({
  ...SIGNING,
  localRetryThreshold: LOCAL_RETRY_THRESHOLD,
});
const localScreening = proxyLocalActivities<Pick<ComplianceActivities, 'screenTransferRecipient'>>({
  ...SCREENING,
  localRetryThreshold: LOCAL_RETRY_THRESHOLD,
});
/**
 * Version 3 on: the last screening and the signing as one local activity (prepareTransfer), with the screening's
 * retries (a provider that cannot answer, about two minutes) and both refusals final.
 */
const localPreparing = proxyLocalActivities<Pick<TransferPreparationActivities, 'prepareTransfer'>>({
  ...SCREENING,
  startToCloseTimeout: '1 minute',
  retry: {
    ...SCREENING.retry,
    nonRetryableErrorTypes: [TransferFailure.RecipientSanctioned, TransferFailure.TransferRefused],
  },
  localRetryThreshold: LOCAL_RETRY_THRESHOLD,
});
/**
 * Version 5 on: sendTransfer as a local activity, run by the worker that runs the workflow task: one workflow task, no
 * activity task, six history events per transfer (the bench's floor with a local activity cost about 60% of the one
 * with an activity task). The chain submission's timeout and retries; a worker that dies while it runs is noticed by
 * the workflow task's timeout (10 s) instead of the activity's heartbeat, and the next worker runs it again, which the
 * operation's hash makes safe (submitOnce). A wait longer than the workflow task's timeout keeps the task open by the
 * SDK's own heartbeats of it.
 */
const localSending = (attempts: number) =>
  proxyLocalActivities<Pick<TransferPreparationActivities, 'sendTransfer'>>({
    startToCloseTimeout: CHAIN_SUBMISSION_TIMEOUTS.startToCloseTimeout,
    retry: { ...CHAIN_SUBMISSION_OPTIONS.retry, maximumAttempts: attempts },
    localRetryThreshold: LOCAL_RETRY_THRESHOLD,
  });
const localRecords = proxyLocalActivities<Pick<TransferActivities, 'finishTransfer'>>({
  ...RECORD_OPTIONS,
  localRetryThreshold: LOCAL_RETRY_THRESHOLD,
});
/**
 * Recording what the chain did once it did it: retried until it is recorded, never given up on. A failure here must not
 * reach the catch below, which would record a transfer the chain executed as failed (its amount free to spend again).
 */
const localRecordsOfSent = proxyLocalActivities<Pick<TransferActivities, 'finishTransfer'>>({
  ...RECORD_OPTIONS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  localRetryThreshold: LOCAL_RETRY_THRESHOLD,
});
const review_ =
  proxyCapabilityActivities<Pick<ComplianceActivities, 'openReviewCase' | 'releaseHeldTransfer'>>(RECORD_OPTIONS);
const storage =
  proxyCapabilityActivities<
    Pick<TransferActivities, 'finishTransfer' | 'transferMaybeSent' | 'transferReorged' | 'recordTransferNeedsReview'>
  >(RECORD_OPTIONS);
/** As localRecordsOfSent, for workflows started before the local steps (retry options are not part of a history). */
const storageOfSent = proxyCapabilityActivities<Pick<TransferActivities, 'finishTransfer'>>({
  ...RECORD_OPTIONS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
/** Watching a confirmed transfer until it is final: as long as the chain takes, heartbeating; a dead worker is noticed. */
const finality = proxyCapabilityActivities<Pick<TransferActivities, 'awaitFinality'>>({
  startToCloseTimeout: '6 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
/** One network's finality watch: rounds of a few minutes, heartbeating; retried for ever on another worker. */
const watch = proxyCapabilityActivities<Pick<ResidentActivities, 'watchFinality'>>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
/** After the first attempts ran out: no limit, every few minutes, until the chain says what happened. */
const patient = proxyCapabilityActivities<Pick<TransferActivities, 'submitTransfer'>>({
  ...CHAIN_SUBMISSION_TIMEOUTS,
  // No maximumAttempts: retried until it succeeds or fails for a reason the chain proves.
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    nonRetryableErrorTypes: Object.values(ChainFailure),
  },
});

/** Nothing was signed or sent, for a reason the caller is told (the transfer as asked, its gas budget, a price). */
const REFUSALS = new Set<string>([
  TransferFailure.TransferRefused,
  TransferFailure.RecipientSanctioned,
  TransferFailure.ScreeningUnavailable,
  ...Object.values(GasFailure),
]);

/** What only the chain's answer to this very operation raises: the EntryPoint refused it, or it reverted. */
const CHAIN_PROOFS = new Set<string>(Object.values(ChainFailure));

/** Failures the chain itself proves: nothing was sent (refused at signing or by the EntryPoint), or it reverted. */
const PROVEN = new Set<string>([...Object.values(ChainFailure), TransferFailure.TransferRefused]);
const provenFailure = (error: unknown): boolean => {
  // An activity's failure arrives wrapped in ActivityFailure, a local activity's may arrive as its ApplicationFailure.
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && (cause.nonRetryable || PROVEN.has(cause.type ?? ''));
};

/**
 * A crypto transfer the API recorded: the worker signs it (EVM: a user operation of the user's account; Solana: a
 * signed transaction), sends it once, waits until it is final and records the fee.
 *
 * A transfer that may have been broadcast is never recorded failed unless the chain proves it (a revert, a refusal by
 * the EntryPoint, a Solana blockhash that expired without it). When the chain cannot be reached for all the first
 * attempts, the transfer stays processing, is flagged (search attribute NeedsReview = transfer_unconfirmed) and is
 * asked about patiently until the chain answers; it is confirmed (once) or proven failed then.
 */
export async function transferWorkflow(input: TransferInput): Promise<TransferOutcome> {
  /**
   * Whether this transfer runs a step added by `patch` (in version `since`): a transfer started for that version or a
   * later one (its input says so) runs it without a patch marker in its history; an older one only if its history
   * recorded the marker (patched()). The patches below all came before version 2; a step added later takes the next
   * version (TRANSFER_WORKFLOW_VERSION raised with it), so a transfer already running replays as it ran.
   */
  const step = (patch: string, since = 2): boolean => (input.version ?? 1) >= since || patched(patch);
  // Version 2 on: the search attributes came with the start (no event of their own, one visibility write fewer).
  if ((input.version ?? 1) < 2)
    upsertSearchAttributes([
      { key: UserIdSA, value: input.userId },
      { key: NetworkIdSA, value: input.networkId },
    ]);
  const attempts = input.reviewAfterAttempts ?? 30;
  const chain = proxyCapabilityActivities<
    Pick<TransferActivities, 'submitTransfer'> & Pick<TransferPreparationActivities, 'sendTransfer'>
  >({
    ...CHAIN_SUBMISSION_OPTIONS,
    retry: { ...CHAIN_SUBMISSION_OPTIONS.retry, maximumAttempts: attempts },
  });
  const local = step('transfer-local-steps');
  // Version 3 on: screening and signing in one local activity, the outcome recorded by the submission (no step after
  // the chain ran it): three activations of the workflow per transfer where there were five.
  const merged = (input.version ?? 1) >= 3;
  // Version 4 on: the screening, the signing, the submission and its outcome in one activity (sendTransfer), no local
  // activity: two activations per transfer, eleven history events, as a workflow of one activity has.
  const oneStep = (input.version ?? 1) >= 4;
  // Version 5 on: that activity as a local activity: one activation per transfer, six history events.
  const oneLocal = (input.version ?? 1) >= 5;
  const screen = local ? localScreening : screening;
  const sign = local ? localSigning : signing;
  const record = local ? localRecords : storage;
  /** The chain ran the operation: from here on, nothing may record the transfer failed. */
  let ran = false;
  try {
    // The Travel Rule: the receiving provider is told originator and beneficiary and must approve before anything is signed.
    // A monitoring rule held it: an operator decides first (the funds stay reserved meanwhile).
    if (input.review && step('transfer-compliance-review')) {
      const refusal = await complianceReview(input.transferId, input.review);
      if (refusal) {
        await record.finishTransfer({
          transferId: input.transferId,
          status: 'failed',
          txHash: null,
          fee: null,
          error: refusal,
        });
        return {
          status: 'failed',
          txHash: null,
          fee: null,
          error: refusal,
          refused: true,
          refusalType: TransferFailure.ComplianceRejected,
        };
      }
    }
    let confirmTo: string | null = null;
    if (input.travelRuleTimeoutSeconds && step('transfer-travel-rule')) {
      const { refusal, callback } = await travelRuleExchange(input.transferId, input.travelRuleTimeoutSeconds);
      confirmTo = callback;
      if (refusal) {
        await record.finishTransfer({
          transferId: input.transferId,
          status: 'failed',
          txHash: null,
          fee: null,
          error: refusal.message,
        });
        return {
          status: 'failed',
          txHash: null,
          fee: null,
          error: refusal.message,
          refused: true,
          refusalType: refusal.type,
        };
      }
    }
    // Screened once more just before signing: the list may have changed since the API screened the recipient
    // (version 4 on: by sendTransfer, before it signs).
    if (oneStep) {
      // Nothing before the one activity.
    } else if (merged) await localPreparing.prepareTransfer({ transferId: input.transferId });
    else {
      if (step('transfer-screened-before-signing'))
        await screen.screenTransferRecipient({ transferId: input.transferId });
      // Transfers started before signing moved to the worker arrive signed by the API.
      if (step('transfer-signed-in-worker')) await sign.signTransfer({ transferId: input.transferId });
    }
    // Version 3 on, the submission records the outcome itself (`record`).
    const submission = { transferId: input.transferId, ...(merged ? { record: true } : {}) };
    let sent: Awaited<ReturnType<TransferActivities['submitTransfer']>>;
    try {
      sent = oneLocal
        ? await localSending(attempts).sendTransfer({ transferId: input.transferId })
        : oneStep
          ? await chain.sendTransfer({ transferId: input.transferId })
          : await chain.submitTransfer(submission);
    } catch (error) {
      if (
        provenFailure(error) ||
        !step('transfer-held-until-chain-proves') ||
        !(await storage.transferMaybeSent({ transferId: input.transferId }))
      )
        throw error;
      upsertSearchAttributes([{ key: NeedsReviewSA, value: 'transfer_unconfirmed' }]);
      if (step('transfer-needs-review-event'))
        await storage.recordTransferNeedsReview({ transferId: input.transferId });
      try {
        sent = await patient.submitTransfer(submission);
      } finally {
        upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);
      }
    }
    ran = true;
    const outcome = sentOutcome(sent);
    if (!merged)
      await (local ? localRecordsOfSent : storageOfSent).finishTransfer({
        transferId: input.transferId,
        ...outcome,
        ...(sent.block ? { block: sent.block } : {}),
      });
    // The answer goes out at inclusion; the network's finality watch (finality-watch-<network>) follows it to finality
    // with every other transfer on that chain, and hands it to transfer-finality-<id> if a reorg removes it. Workflows
    // started before the watch started a transfer-finality-<id> child for each transfer.
    if (sent.success && sent.block && !step('transfer-finality-watch') && step('transfer-finality')) {
      await startChild(transferFinalityWorkflow, {
        workflowId: transferFinalityWorkflowId(input.transferId),
        args: [input],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    }
    // The receiving provider asked for the transaction id (TRP transfer confirmation): told after the answer goes out.
    if (sent.success && sent.txHash && confirmTo && step('transfer-travel-rule-confirmation')) {
      await startChild(travelRuleConfirmationWorkflow, {
        workflowId: travelRuleConfirmationWorkflowId(input.transferId),
        args: [{ transferId: input.transferId, callback: confirmTo, txHash: sent.txHash }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    }
    return outcome;
  } catch (error) {
    // Only what an activity reported (a proven failure, or nothing was sent) is recorded failed; an error of this
    // code itself fails the workflow task instead, so it is retried once fixed rather than recorded as a failure.
    // An activity's failure arrives wrapped in ActivityFailure, a local activity's as its ApplicationFailure (this
    // code throws none of its own).
    if (!(error instanceof ActivityFailure) && !(local && error instanceof ApplicationFailure)) throw error;
    // After the chain ran it (recording its outcome refused for good, a child that could not start), the transfer is
    // not recorded failed, which would free an amount that left the account: the workflow fails, visible to operators,
    // and the transfer stays as the chain left it.
    if (ran) throw error;
    const cause =
      error instanceof ApplicationFailure ? error : error.cause instanceof ApplicationFailure ? error.cause : undefined;
    const message = cause?.message ?? (error as Error).message;
    const refused = REFUSALS.has(cause?.type ?? '');
    // A failure the chain did not prove (a refusal too: it says only that this attempt sent nothing) is recorded
    // only while nothing was handed over: an attempt still running past its timeout (or a worker's that lost the
    // workflow task) may have handed it to the bundler since the workflow read it unsent. Then it is held and asked
    // about, as one whose attempts ran out after it was.
    const unsent = !CHAIN_PROOFS.has(cause?.type ?? '');
    const recorded = await record.finishTransfer({
      transferId: input.transferId,
      status: 'failed',
      txHash: null,
      fee: null,
      error: message,
      ...(unsent ? { unsent } : {}),
    });
    // (Recorded before this answer existed: no answer, as recorded.)
    if (recorded === false) return heldUntilTheChainAnswers(input.transferId, merged);
    return {
      status: 'failed',
      txHash: null,
      fee: null,
      error: message,
      ...(refused ? { refused: true, refusalType: cause!.type!, refusalDetails: cause!.details?.[0] } : {}),
    };
  }
}

/**
 * A transfer handed to the bundler after the workflow took it for unsent (see the catch in transferWorkflow): flagged
 * (NeedsReview = transfer_unconfirmed) and asked patiently until the chain answers; confirmed once, or failed only by
 * what the chain proves.
 */
async function heldUntilTheChainAnswers(transferId: string, merged: boolean): Promise<TransferOutcome> {
  upsertSearchAttributes([{ key: NeedsReviewSA, value: 'transfer_unconfirmed' }]);
  // Its event is told, not waited on: a database that cannot take it now must not end the hold.
  await storage.recordTransferNeedsReview({ transferId }).catch((error: unknown) => {
    log.warn('the transfer held for review: its event could not be recorded', {
      transferId,
      error: (error as Error).message,
    });
  });
  let sent: Awaited<ReturnType<TransferActivities['submitTransfer']>>;
  try {
    sent = await patient.submitTransfer({ transferId, ...(merged ? { record: true } : {}) });
  } catch (error) {
    // Anything but the chain's proof fails the workflow for an operator, the transfer still flagged and reserved.
    if (!provenFailure(error)) throw error;
    const message = error instanceof ActivityFailure && error.cause ? error.cause.message : (error as Error).message;
    await storageOfSent.finishTransfer({ transferId, status: 'failed', txHash: null, fee: null, error: message });
    upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);
    return { status: 'failed', txHash: null, fee: null, error: message };
  }
  const outcome = sentOutcome(sent);
  if (!merged)
    await storageOfSent.finishTransfer({ transferId, ...outcome, ...(sent.block ? { block: sent.block } : {}) });
  upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);
  return outcome;
}

/**
 * Sends the Travel Rule inquiry and takes the receiving VASP's decision from its answer, or waits durably (a worker
 * may die meanwhile) for it at the TRP callback, which signals it; the first decision counts. Answers why the transfer must fail, or null to go on.
 */
async function travelRuleExchange(
  transferId: string,
  timeoutSeconds: number,
): Promise<{ refusal: { type: string; message: string } | null; callback: string | null }> {
  let decision: TravelRuleDecision | undefined;
  setHandler(travelRuleDecisionSignal, (d) => {
    decision ??= d;
  });
  const sent = await travelRule.sendTravelRuleInquiry({ transferId });
  if (!sent.sent) decision = { approved: false, reason: sent.reason ?? 'the receiving provider refused the inquiry' };
  // A VASP that resolves in the inquiry's answer (TRP allows either): its decision, before any at the callback.
  if (sent.decision) decision ??= sent.decision;
  const decided = await condition(() => decision !== undefined, `${timeoutSeconds} seconds`);
  if (!decided) {
    await travelRule.recordTravelRuleOutcome({ transferId, status: 'timed_out', reason: null });
    return {
      refusal: {
        type: TransferFailure.TravelRuleTimedOut,
        message: `The receiving provider did not answer the Travel Rule inquiry within ${timeoutSeconds} seconds; nothing was sent`,
      },
      callback: null,
    };
  }
  await travelRule.recordTravelRuleOutcome({
    transferId,
    status: decision!.approved ? 'approved' : 'rejected',
    reason: decision!.reason,
  });
  if (decision!.approved) return { refusal: null, callback: decision!.callback ?? null };
  return {
    refusal: {
      type: TransferFailure.TravelRuleRejected,
      message: `The receiving provider rejected the transfer: ${decision!.reason ?? 'no reason given'}; nothing was sent`,
    },
    callback: null,
  };
}

/**
 * Opens the compliance case of a held transfer and waits, without a time limit, for an operator's decision (signal
 * complianceDecision; the first counts). The workflow shows NeedsReview = compliance_review meanwhile. Approved: the
 * transfer is released (processing) and goes on; rejected: answers why it fails.
 */
async function complianceReview(transferId: string, review: { kind: string; detail: string }): Promise<string | null> {
  let decision: ComplianceDecision | undefined;
  setHandler(complianceDecisionSignal, (d) => {
    decision ??= d;
  });
  await review_.openReviewCase({ transferId, kind: review.kind, detail: review.detail });
  upsertSearchAttributes([{ key: NeedsReviewSA, value: 'compliance_review' }]);
  await condition(() => decision !== undefined);
  upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);
  if (!decision!.approved) return `Rejected after a compliance review: ${decision!.reason}; nothing was sent`;
  await review_.releaseHeldTransfer({ transferId });
  return null;
}

/** TRP transfer confirmation: the sent transaction's id to the receiving provider, a few tries; a failure changes no transfer. */
export async function travelRuleConfirmationWorkflow(input: {
  transferId: string;
  callback: string;
  txHash: string;
}): Promise<'confirmed' | 'not-sent'> {
  const confirm = proxyCapabilityActivities<Pick<TravelRuleActivities, 'confirmTravelRuleTransfer'>>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10 },
  });
  try {
    await confirm.confirmTravelRuleTransfer(input);
    return 'confirmed';
  } catch (error) {
    log.warn('the receiving provider could not be told the transaction id', {
      transferId: input.transferId,
      error: (error as Error).message,
    });
    return 'not-sent';
  }
}

/**
 * A confirmed transfer until it is final: `finalized` once deep enough (EVM: the network's confirmations in the
 * canonical chain; Solana: `finalized` commitment). A reorg that removes it puts it back in flight (`submitted`, its
 * amount reserved again) and the same signed operation or bytes are sent again: the EntryPoint nonce (EVM) or the
 * signature (Solana) lets it execute at most once, so it is never counted twice. Sent again and refused by the chain
 * (or its Solana blockhash expired), it is failed: the reorg undid it and nothing moved.
 */
export async function transferFinalityWorkflow(
  input: Pick<TransferInput, 'transferId' | 'userId' | 'networkId'>,
): Promise<void> {
  upsertSearchAttributes([
    { key: UserIdSA, value: input.userId },
    { key: NetworkIdSA, value: input.networkId },
  ]);
  for (;;) {
    if ((await finality.awaitFinality({ transferId: input.transferId })) === 'finalized') return;
    log.warn('a reorg removed the confirmed transfer; sending it again', { transferId: input.transferId });
    await storage.transferReorged({ transferId: input.transferId });
    let sent: Awaited<ReturnType<TransferActivities['submitTransfer']>>;
    try {
      sent = await patient.submitTransfer({ transferId: input.transferId });
    } catch (error) {
      if (!provenFailure(error)) throw error;
      const message =
        error instanceof ActivityFailure && error.cause
          ? error.cause.message
          : 'the transfer was refused when sent again';
      await storage.finishTransfer({
        transferId: input.transferId,
        status: 'failed',
        txHash: null,
        fee: null,
        error: `removed by a reorg, then refused: ${message}`,
      });
      return;
    }
    await storage.finishTransfer({
      transferId: input.transferId,
      status: sent.success ? 'confirmed' : 'failed',
      txHash: sent.txHash,
      fee: sent.fee,
      ...(sent.success ? {} : { error: sent.error ?? 'the transfer reverted on chain' }),
      ...(sent.block ? { block: sent.block } : {}),
    });
    if (!sent.success) return;
  }
}

/** Rounds of the watch per run before it continues as new (a round is up to five minutes; about six events each). */
const WATCH_ROUNDS = 100;

/**
 * One network's finality watch, for every transfer confirmed on it: the worker follows the chain's head once and
 * finalizes each transfer once deep enough and still canonical (activity watchFinality, rounds of a few minutes,
 * heartbeating; a dead worker is noticed and the next one takes it up). A transfer a reorg removed goes to its own
 * transfer-finality-<id>, which puts it back in flight and sends the same signed operation again (see
 * transferFinalityWorkflow). Started by the worker for each configured network (worker/watches.ts), never ends;
 * continues as new every WATCH_ROUNDS rounds.
 */
export async function transferFinalityWatchWorkflow(input: { networkId: string }): Promise<void> {
  upsertSearchAttributes([{ key: NetworkIdSA, value: input.networkId }]);
  for (let round = 0; round < WATCH_ROUNDS; round++) {
    const { reorged } = await watch.watchFinality({ networkId: input.networkId });
    for (const transfer of reorged) {
      log.warn('a reorg removed a confirmed transfer; sending it again', transfer);
      try {
        await startChild(transferFinalityWorkflow, {
          workflowId: transferFinalityWorkflowId(transfer.transferId),
          args: [{ ...transfer, networkId: input.networkId }],
          parentClosePolicy: ParentClosePolicy.ABANDON,
        });
      } catch (error) {
        // Already being sent again (a look before this one saw it too): that workflow has it.
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    }
  }
  await continueAsNew<typeof transferFinalityWatchWorkflow>(input);
}
