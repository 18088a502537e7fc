import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';

/** Starts a workflow whose id is a business id; finding it already started (by an earlier attempt) is success. */
export async function startOnce(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
