import {
  ParentClosePolicy,
  condition,
  continueAsNew,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { PayoutActivities } from '../activities/payout';
import {
  NeedsReviewSA,
  UserIdSA,
  payoutDecisionSignal,
  payoutWatchWorkflowId,
  type PayoutDecision,
  type PayoutInput,
  type PayoutOutcome,
  type PayoutSettlement,
} from './messages';

/**
 * Calls to the bank: the deposit is sent once per bank_tran_id, and every later call asks transfer/result about it
 * (never a second send), so they are retried until the bank answers.
 */
const bank = proxyCapabilityActivities<Pick<PayoutActivities, 'payoutAtBank' | 'decidePayout' | 'payoutLandings'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});
/** The ledger and the payout's record: idempotent by the payout id (a journal is posted once by its id). */
const storage = proxyCapabilityActivities<
  Pick<PayoutActivities, 'settlePayout' | 'reversePayout' | 'holdPayoutForReview' | 'recordExtraPayment'>
>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const FIRST_POLL_SECONDS = 5;
const MAX_POLL_SECONDS = 300;
/** Events in a run before it continues as new (Temporal's limit is 51,200; a poll every 5 minutes adds ~1,700 a day). */
const HISTORY_LIMIT = 10_000;
const UNSETTLED = new Set<PayoutSettlement['status']>(['pending', 'unknown', 'not_received']);

/**
 * A payout: its amount left the person's balance when it was accepted (journal payout:<id>, into payouts in transit).
 * The workflow asks the bank to deposit it into the person's own account (open banking transfer/deposit/acnt_num,
 * holder's name checked), then:
 * - completed: the amount in transit is settled against bank clearing;
 * - refused with a documented reason: the journal is reversed once, the amount back in the balance;
 * - in doubt: never guessed, and never sent again on its own (both deposits would pay): the bank is asked
 *   (transfer/result) with growing waits. An answer it does not document, or no record of the send past
 *   BANK_NOT_RECEIVED_AFTER_SECONDS, puts the payout in `needs_review` (search attribute NeedsReview) while the same
 *   loop keeps asking: a late landing of the send completes it. Only an operator's decision (signal payoutDecision)
 *   sends it again or reverses it, and only if the centre still has no record of the send at that moment.
 */
export async function payoutWorkflow(input: PayoutInput): Promise<PayoutOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  let decision: PayoutDecision | undefined = input.carried?.decision;
  setHandler(payoutDecisionSignal, (d) => {
    decision ??= d;
  });

  let state = await bank.payoutAtBank({ payoutId: input.payoutId });
  let review = input.carried?.review;
  let decided = input.carried?.decided ?? false;
  for (let wait = FIRST_POLL_SECONDS; UNSETTLED.has(state.status); wait = Math.min(wait * 2, MAX_POLL_SECONDS)) {
    if (state.status !== 'pending' && review !== state.status) {
      // Asked again soon when it first enters review (an operator is looking); a flip between kinds keeps the pace.
      if (!review) wait = FIRST_POLL_SECONDS;
      review = state.status;
      const kind = state.status === 'not_received' ? 'payout_not_received' : 'unknown_bank_status';
      await storage.holdPayoutForReview({
        payoutId: input.payoutId,
        kind,
        detail: state.reason ?? 'the bank answered something undocumented',
        bankStatus: state.status,
      });
      upsertSearchAttributes([{ key: NeedsReviewSA, value: kind }]);
    }
    if (decision && review) {
      const taken = decision;
      decision = undefined;
      state = await bank.decidePayout({ payoutId: input.payoutId, ...taken });
      decided ||= state.status === 'reversed' || taken.action === 'resend';
      continue;
    }
    // A payout in review for weeks: its history starts again, carrying what it knows.
    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > HISTORY_LIMIT)
      await continueAsNew<typeof payoutWorkflow>({ ...input, carried: { review, decided, decision } });
    // Signals that come while nothing is in review wait for it (an operator acts on what the review shows).
    state = (await condition(() => decision !== undefined && review !== undefined, `${wait} seconds`))
      ? state
      : await bank.payoutAtBank({ payoutId: input.payoutId });
  }
  if (review) upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);

  let outcome: PayoutOutcome;
  if (state.status === 'reversed') outcome = { status: 'failed', reason: state.reason ?? 'reversed' };
  else if (state.status === 'rejected') {
    const reason = state.reason ?? 'deposit_rejected';
    await storage.reversePayout({ payoutId: input.payoutId, reason, code: state.code ?? null });
    outcome = { status: 'failed', reason };
  } else {
    await storage.settlePayout({ payoutId: input.payoutId });
    // Two sends that both paid (one sent again by an operator, the first landing late): recorded, never unseen.
    if (state.extraPaid) await storage.recordExtraPayment({ payoutId: input.payoutId, extra: state.extraPaid });
    outcome = { status: 'completed' };
  }
  // An operator decided on a send the centre had no record of: it may still land. Watched on its own, so that the
  // payout's outcome (and a closure waiting for it) is not held up.
  if (decided)
    await startChild(payoutLandingWatchWorkflow, {
      workflowId: payoutWatchWorkflowId(input.payoutId),
      args: [{ payoutId: input.payoutId, userId: input.userId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  return outcome;
}

/** How long a send is watched after an operator's decision: transfer/result finds a transfer on its day and the next. */
const WATCH_MS = 3 * 24 * 3600 * 1000;
const MAX_WATCH_WAIT_SECONDS = 1800;

/**
 * payout-watch-<id>: asks the centre, with growing waits, whether the payout's sends paid more than the ledger says (a
 * first send that lands after an operator reversed it or sent it again). If so, it is recorded once (the amount taken
 * from the balance again, or the payout held for an operator when the balance no longer holds it).
 */
export async function payoutLandingWatchWorkflow(input: PayoutInput): Promise<{ landedLate: boolean }> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  const until = workflowInfo().startTime.getTime() + WATCH_MS;
  for (let wait = FIRST_POLL_SECONDS; Date.now() < until; wait = Math.min(wait * 2, MAX_WATCH_WAIT_SECONDS)) {
    await sleep(`${wait} seconds`);
    const seen = await bank.payoutLandings({ payoutId: input.payoutId });
    if (seen.paid > seen.expected) {
      await storage.recordExtraPayment({ payoutId: input.payoutId, extra: seen.paid - seen.expected });
      return { landedLate: true };
    }
  }
  return { landedLate: false };
}
