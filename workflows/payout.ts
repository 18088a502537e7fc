import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { PayoutActivities } from '../activities/payout';
import {
  NeedsReviewSA,
  UserIdSA,
  payoutDecisionSignal,
  type PayoutDecision,
  type PayoutInput,
  type PayoutOutcome,
  type PayoutSettlement,
} from './messages';

/**
 * Calls to the bank: the deposit is sent once per bank_tran_id, and every later call asks transfer/result about it
 * (never a second send), so they are retried until the bank answers.
 */
const bank = proxyActivities<Pick<PayoutActivities, 'payoutAtBank' | 'decidePayout'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});
/** The ledger and the payout's record: idempotent by the payout id (a journal is posted once by its id). */
const storage = proxyActivities<Pick<PayoutActivities, 'settlePayout' | 'reversePayout' | 'holdPayoutForReview'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const FIRST_POLL_SECONDS = 5;
const MAX_POLL_SECONDS = 300;
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
  let decision: PayoutDecision | undefined;
  setHandler(payoutDecisionSignal, (d) => {
    decision ??= d;
  });

  let state = await bank.payoutAtBank({ payoutId: input.payoutId });
  let review: string | undefined;
  for (let wait = FIRST_POLL_SECONDS; UNSETTLED.has(state.status); wait = Math.min(wait * 2, MAX_POLL_SECONDS)) {
    if (state.status !== 'pending' && review !== state.status) {
      review = state.status;
      wait = FIRST_POLL_SECONDS;
      const kind = state.status === 'not_received' ? 'payout_not_received' : 'unknown_bank_status';
      await storage.holdPayoutForReview({
        payoutId: input.payoutId,
        reason: `${kind}: ${state.reason ?? 'the bank answered something undocumented'}`,
        bankStatus: state.status,
      });
      upsertSearchAttributes([{ key: NeedsReviewSA, value: kind }]);
    }
    if (decision && review) {
      const taken = decision;
      decision = undefined;
      state = await bank.decidePayout({ payoutId: input.payoutId, ...taken });
      continue;
    }
    // Signals that come while nothing is in review wait for it (an operator acts on what the review shows).
    state = (await condition(() => decision !== undefined && review !== undefined, `${wait} seconds`))
      ? state
      : await bank.payoutAtBank({ payoutId: input.payoutId });
  }
  if (review) upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);

  if (state.status === 'reversed') return { status: 'failed', reason: state.reason ?? 'reversed' };
  if (state.status === 'rejected') {
    const reason = state.reason ?? 'deposit_rejected';
    await storage.reversePayout({ payoutId: input.payoutId, reason, code: state.code ?? null });
    return { status: 'failed', reason };
  }
  await storage.settlePayout({ payoutId: input.payoutId });
  return { status: 'completed' };
}
