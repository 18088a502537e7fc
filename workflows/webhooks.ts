import { ActivityFailure, ApplicationFailure, condition, continueAsNew, setHandler } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { WebhookActivities } from '../activities/webhooks';
import { webhookWakeSignal, type WebhookEndpointInput, type WebhookEndpointOutcome } from './messages';

/** Deliveries and idle looks per run; then the run continues as new, so its history stays short. */
const STEPS_PER_RUN = 500;

/**
 * One endpoint's deliveries, in event order, one at a time: an event is retried with growing delays (from
 * `retry.initialSeconds`, doubling, at most `retry.maximumSeconds` apart) for `retry.giveUpSeconds` (3 days and more by
 * default) before the next one goes, so a receiver never sees a later event of ours before an earlier one. When an
 * event cannot be delivered in that time the endpoint is disabled, with the reason, for an operator to see and enable
 * again; nothing is skipped (the cursor stays before that event).
 */
export async function webhookEndpointWorkflow(input: WebhookEndpointInput): Promise<WebhookEndpointOutcome> {
  const store = proxyCapabilityActivities<Pick<WebhookActivities, 'nextWebhookEvents' | 'disableWebhookEndpoint'>>({
    // Database reads and writes of a few rows: a worker stopped or killed while one ran holds deliveries back this
    // long at most before another worker runs it again (30 s held a restart's deliveries that long).
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const delivery = proxyCapabilityActivities<Pick<WebhookActivities, 'deliverWebhookEvent'>>({
    // The delivery heartbeats while it waits for the receiver: a worker that dies mid-delivery is noticed in seconds.
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '5 seconds',
    scheduleToCloseTimeout: `${input.retry.giveUpSeconds} seconds`,
    retry: {
      initialInterval: `${input.retry.initialSeconds} seconds`,
      backoffCoefficient: 2,
      maximumInterval: `${input.retry.maximumSeconds} seconds`,
    },
  });
  let woken = false;
  setHandler(webhookWakeSignal, () => {
    woken = true;
  });
  for (let steps = 0; steps < STEPS_PER_RUN;) {
    woken = false;
    const next = await store.nextWebhookEvents({ endpointId: input.endpointId, limit: 50 });
    if (next.status !== 'active') return { status: next.status };
    if (!next.positions.length) {
      await condition(() => woken, `${input.pollSeconds} seconds`);
      steps += 1;
      continue;
    }
    for (const position of next.positions) {
      try {
        await delivery.deliverWebhookEvent({ endpointId: input.endpointId, position, generation: next.generation });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
        const cause =
          error.cause instanceof ApplicationFailure || error.cause instanceof Error
            ? error.cause.message
            : error.message;
        await store.disableWebhookEndpoint({
          endpointId: input.endpointId,
          reason: `event at position ${position} could not be delivered: ${cause}`,
        });
        return { status: 'disabled' };
      }
      steps += 1;
      if (woken) break; // a replay or a new subscription: read the cursor again
    }
  }
  return continueAsNew<typeof webhookEndpointWorkflow>(input);
}
