import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { ChargeActivities } from '../activities/charge';
import {
  ChargeFailure,
  NeedsReviewSA,
  PROVIDER_REJECTED,
  UserIdSA,
  withdrawalSettledSignal,
  type ChargeInput,
  type ChargeOutcome,
  type WithdrawalSettlement,
} from './messages';

/** Calls to the bank: idempotent by reference, so they are retried until the bank answers (a refusal is final). */
const bank = proxyCapabilityActivities<Pick<ChargeActivities, 'requestWithdrawal' | 'pollWithdrawal' | 'refundCharge'>>(
  {
    startToCloseTimeout: '30 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '2 minutes',
      nonRetryableErrorTypes: [PROVIDER_REJECTED],
    },
  },
);
const storage = proxyCapabilityActivities<
  Pick<ChargeActivities, 'creditCharge' | 'failCharge' | 'holdChargeForReview'>
>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: Object.values(ChargeFailure),
  },
});

/** Patch: a refund that finds the charge credited already completes the charge (before: held as refund_refused). */
const CREDITED_BEFORE_REFUND = 'charge-credited-before-refund';

/** The type of an activity's application failure, if it is one. */
const failureType = (error: unknown): string | undefined =>
  error instanceof ActivityFailure && error.cause instanceof ApplicationFailure
    ? (error.cause.type ?? undefined)
    : undefined;

const FIRST_POLL_SECONDS = 5;
const MAX_POLL_SECONDS = 300;

/**
 * A charge: debit the user's connected bank account (withdrawal referenced by the charge id), wait for the bank to
 * settle it (its webhook signals us; polling with growing timers covers a lost webhook), then credit the user's
 * balance in the ledger. If the credit cannot be made, the money goes back to the bank account (compensation), unless
 * the refund finds the charge credited after all (a credit whose answer was lost): then it is complete.
 *
 * Only a documented settlement is acted on. A status the bank does not document, or an answer that is not a
 * withdrawal, puts the charge in `needs_review` (search attribute NeedsReview) while the same loop keeps asking the
 * bank; a documented answer later resumes the charge. A refund the bank refuses leaves the charge in `needs_review`
 * for an operator: the money is in our operating account, neither credited nor returned.
 */
export async function chargeWorkflow(input: ChargeInput): Promise<ChargeOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  let reported: WithdrawalSettlement | undefined;
  setHandler(withdrawalSettledSignal, (update) => {
    if (update.status !== 'pending') reported ??= update;
  });

  let state: WithdrawalSettlement;
  try {
    state = await bank.requestWithdrawal({ chargeId: input.chargeId });
  } catch {
    // The bank refused the request itself (unknown account, invalid amount): nothing was debited.
    await storage.failCharge({ chargeId: input.chargeId, reason: 'bank_refused_withdrawal', bankStatus: 'rejected' });
    return { status: 'failed', reason: 'bank_refused_withdrawal' };
  }
  state = takeReport() ?? state;

  let inReview = false;
  for (
    let wait = FIRST_POLL_SECONDS;
    state.status === 'pending' || state.status === 'unknown';
    wait = Math.min(wait * 2, MAX_POLL_SECONDS)
  ) {
    if (state.status === 'unknown' && !inReview) {
      inReview = true;
      wait = FIRST_POLL_SECONDS;
      await holdForReview('unknown_bank_status', state.reason ?? 'the bank answered something undocumented', 'unknown');
    }
    state = (await condition(() => reported !== undefined, `${wait} seconds`))
      ? takeReport()!
      : await bank.pollWithdrawal({ chargeId: input.chargeId });
  }
  if (inReview) upsertSearchAttributes([{ key: NeedsReviewSA, value: null }]);

  if (state.status === 'rejected') {
    const reason = state.reason ?? 'withdrawal_rejected';
    await storage.failCharge({ chargeId: input.chargeId, reason, bankStatus: 'rejected' });
    return { status: 'failed', reason };
  }
  try {
    await storage.creditCharge({ chargeId: input.chargeId });
  } catch {
    try {
      await bank.refundCharge({ chargeId: input.chargeId });
    } catch (error) {
      // The credit committed but its answer was lost (a worker killed, a connection dropped at commit, then a database
      // out through the remaining attempts): the refund found the charge credited and sent nothing. It is complete.
      if (failureType(error) === ChargeFailure.AlreadyCredited && patched(CREDITED_BEFORE_REFUND))
        return { status: 'completed' };
      const refusal = error instanceof ActivityFailure && error.cause ? error.cause.message : String(error);
      await holdForReview(
        'refund_refused',
        `the credit failed and the bank refused the refund: ${refusal}`,
        'refund_refused',
      );
      return { status: 'needs_review', reason: 'refund_refused' };
    }
    await storage.failCharge({ chargeId: input.chargeId, reason: 'credit_failed_refunded', bankStatus: 'refunded' });
    return { status: 'failed', reason: 'credit_failed_refunded' };
  }
  return { status: 'completed' };

  function takeReport(): WithdrawalSettlement | undefined {
    const report = reported;
    reported = undefined;
    return report;
  }

  async function holdForReview(kind: string, reason: string, bankStatus: string): Promise<void> {
    await storage.holdChargeForReview({ chargeId: input.chargeId, reason: `${kind}: ${reason}`, bankStatus });
    upsertSearchAttributes([{ key: NeedsReviewSA, value: kind }]);
  }
}
