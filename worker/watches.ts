import type { Client } from '@temporalio/client';
import { transferFinalityWatchWorkflow } from '../workflows/transfer';
import { finalityWatchWorkflowId } from '../workflows/messages';

/**
 * The finality watch of each network (transferFinalityWatchWorkflow, `finality-watch-<network>`): started by the worker
 * at start when it is not running (an existing one is kept, as a schedule is). One per network and task queue follows
 * every confirmed transfer there; operators see each in the Temporal UI, its current round as a pending activity.
 */
export async function ensureFinalityWatches(
  client: Client,
  options: { taskQueue: string; networkIds: string[] },
): Promise<string[]> {
  return Promise.all(
    options.networkIds.map(async (networkId) => {
      const workflowId = finalityWatchWorkflowId(networkId, options.taskQueue);
      await client.workflow.start(transferFinalityWatchWorkflow, {
        workflowId,
        taskQueue: options.taskQueue,
        args: [{ networkId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return workflowId;
    }),
  );
}
