import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './baseline-activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '30 seconds' });
const { sendAndWait } = proxyActivities<typeof activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second' },
});

/** The end-to-end baseline: as many activities as a charge runs on its happy path (withdrawal, credit), doing nothing. */
export async function twoNoopActivitiesWorkflow(): Promise<string> {
  await noop();
  await noop();
  return 'completed';
}

/**
 * The minimal durable transfer (issue 52): one workflow, one activity that sends a pre-signed user operation to the
 * bundler and waits for its receipt. The floor of any design that keeps a transfer durable on Temporal.
 */
export async function minimalDurableTransferWorkflow(input: activities.DurableTransferInput): Promise<string> {
  return sendAndWait(input);
}
