import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './baseline-activities';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '30 seconds' });

/** The end-to-end baseline: as many activities as a charge runs on its happy path (withdrawal, credit), doing nothing. */
export async function twoNoopActivitiesWorkflow(): Promise<string> {
  await noop();
  await noop();
  return 'completed';
}
