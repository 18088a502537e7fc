import { Context } from '@temporalio/activity';

/**
 * Tells Temporal the activity is alive; nothing in a local activity, which has no heartbeat of its own (the worker
 * keeps its workflow task open instead, and the server would not know the task's token: the SDK logs each such call).
 */
export const heartbeat = (): void => {
  const context = Context.current();
  if (!context.info.isLocal) context.heartbeat();
};
