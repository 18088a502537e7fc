import { randomUUID } from 'node:crypto';
import { webhookEndpointWorkflow } from '../../workflows/webhooks';
import { webhookWakeSignal } from '../../workflows/messages';
import type { WebhookActivities } from '../../activities/webhooks';
import { workflowTestWorker } from '../helpers/workflow-env';

interface Endpoint {
  status: 'active' | 'disabled' | 'deleted';
  /** Positions of events not yet delivered, in order; delivering one removes it. */
  queue: number[];
  /** Positions the receiver refuses (every attempt). */
  refused: Set<number>;
  /** Attempts at delivering each position. */
  attempts: Map<number, number>;
  disabledBecause?: string;
}

/**
 * One webhook endpoint's delivery loop, fast: the event store and the receiver stubbed per endpoint. Events go in
 * order, one at a time; an event the receiver keeps refusing is retried until the give-up window, then the endpoint
 * is disabled with the reason and nothing after it is sent; a wake signal makes it look at once.
 */
describe('webhook endpoint workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const endpoints = new Map<string, Endpoint>();
  const delivered = new Map<string, number[]>();

  const activities: Pick<WebhookActivities, 'nextWebhookEvents' | 'deliverWebhookEvent' | 'disableWebhookEndpoint'> = {
    async nextWebhookEvents({ endpointId, limit }) {
      const endpoint = endpoints.get(endpointId)!;
      return {
        status: endpoint.status,
        generation: 1,
        positions: endpoint.status === 'active' ? endpoint.queue.slice(0, limit) : [],
      };
    },
    async deliverWebhookEvent({ endpointId, position }) {
      const endpoint = endpoints.get(endpointId)!;
      endpoint.attempts.set(position, (endpoint.attempts.get(position) ?? 0) + 1);
      if (endpoint.refused.has(position)) throw new Error(`HTTP 503 from the receiver for ${position}`);
      endpoint.queue = endpoint.queue.filter((p) => p !== position);
      delivered.set(endpointId, [...(delivered.get(endpointId) ?? []), position]);
      return undefined as never;
    },
    async disableWebhookEndpoint({ endpointId, reason }) {
      const endpoint = endpoints.get(endpointId)!;
      endpoint.status = 'disabled';
      endpoint.disabledBecause = reason;
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const run = async (
    queue: number[],
    refused: number[] = [],
    retry = { initialSeconds: 1, maximumSeconds: 1, giveUpSeconds: 3 },
    pollSeconds = 60,
  ) => {
    const endpointId = `we_${randomUUID()}`;
    endpoints.set(endpointId, { status: 'active', queue, refused: new Set(refused), attempts: new Map() });
    const handle = await harness.env.client.workflow.start(webhookEndpointWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `webhook-endpoint-${endpointId}`,
      args: [{ endpointId, retry, pollSeconds }],
    });
    return { endpointId, handle };
  };
  const until = async (done: () => boolean) => {
    for (let i = 0; i < 100 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(done()).toBe(true);
  };

  it('delivers in order, waits idle, and takes new events at once when woken', async () => {
    const { endpointId, handle } = await run([1, 2, 3]);
    await until(() => delivered.get(endpointId)?.length === 3);
    expect(delivered.get(endpointId)).toEqual([1, 2, 3]);
    endpoints.get(endpointId)!.queue.push(4, 5);
    await handle.signal(webhookWakeSignal); // the poll is a minute away: only the signal explains a prompt delivery
    await until(() => delivered.get(endpointId)?.length === 5);
    expect(delivered.get(endpointId)).toEqual([1, 2, 3, 4, 5]);
    endpoints.get(endpointId)!.status = 'deleted';
    await handle.signal(webhookWakeSignal);
    expect(await handle.result()).toEqual({ status: 'deleted' });
  });

  it('retries a refused event until its give-up window, then disables the endpoint and sends nothing after it', async () => {
    const { endpointId, handle } = await run([1, 2, 3], [2]);
    expect(await handle.result()).toEqual({ status: 'disabled' });
    expect(delivered.get(endpointId)).toEqual([1]);
    const endpoint = endpoints.get(endpointId)!;
    expect(endpoint.attempts.get(2)).toBeGreaterThanOrEqual(2);
    expect(endpoint.attempts.has(3)).toBe(false);
    expect(endpoint.disabledBecause).toContain('event at position 2 could not be delivered');
    expect(endpoint.queue).toEqual([2, 3]); // nothing skipped: the cursor stays before the refused event
  });
});
