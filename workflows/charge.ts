import { condition, proxyActivities, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import type { ChargeActivities } from '../activities/charge';
import { ChargeFailure, PROVIDER_REJECTED, UserIdSA, withdrawalSettledSignal, type ChargeInput, type ChargeOutcome, type WithdrawalSettlement } from './messages';


/** Calls to the bank: idempotent by reference, so they are retried until the bank answers (a refusal is final). */
const bank = proxyActivities<Pick<ChargeActivities, 'requestWithdrawal' | 'pollWithdrawal' | 'refundCharge'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '2 minutes', nonRetryableErrorTypes: [PROVIDER_REJECTED] },
});
const storage = proxyActivities<Pick<ChargeActivities, 'creditCharge' | 'failCharge'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 20, nonRetryableErrorTypes: Object.values(ChargeFailure) },
});

const FIRST_POLL_SECONDS = 5;
const MAX_POLL_SECONDS = 300;

/**
 * A charge: debit the user's connected bank account (withdrawal referenced by the charge id), wait for the bank to
 * settle it (its webhook signals us; polling with growing timers covers a lost webhook), then credit the user's
 * balance in the ledger. If the credit cannot be made, the money goes back to the bank account (compensation).
 */
export async function chargeWorkflow(input: ChargeInput): Promise<ChargeOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  let settlement: WithdrawalSettlement | undefined;
  setHandler(withdrawalSettledSignal, (update) => { if (update.status !== 'pending') settlement ??= update; });

  let requested: WithdrawalSettlement;
  try {
    requested = await bank.requestWithdrawal({ chargeId: input.chargeId });
  } catch {
    // The bank refused the request itself (unknown account, invalid amount): nothing was debited.
    await storage.failCharge({ chargeId: input.chargeId, reason: 'bank_refused_withdrawal', bankStatus: 'rejected' });
    return { status: 'failed', reason: 'bank_refused_withdrawal' };
  }
  if (requested.status !== 'pending') settlement ??= requested;

  for (let wait = FIRST_POLL_SECONDS; !settlement; wait = Math.min(wait * 2, MAX_POLL_SECONDS)) {
    if (await condition(() => settlement !== undefined, `${wait} seconds`)) break;
    const polled = await bank.pollWithdrawal({ chargeId: input.chargeId });
    if (polled.status !== 'pending') settlement ??= polled;
  }

  const settled = settlement as WithdrawalSettlement;
  if (settled.status === 'rejected') {
    const reason = settled.reason ?? 'withdrawal_rejected';
    await storage.failCharge({ chargeId: input.chargeId, reason, bankStatus: 'rejected' });
    return { status: 'failed', reason };
  }
  try {
    await storage.creditCharge({ chargeId: input.chargeId });
  } catch {
    await bank.refundCharge({ chargeId: input.chargeId });
    await storage.failCharge({ chargeId: input.chargeId, reason: 'credit_failed_refunded', bankStatus: 'refunded' });
    return { status: 'failed', reason: 'credit_failed_refunded' };
  }
  return { status: 'completed' };
}
