import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createDataConverter, type TemporalSettings } from '../platform/temporal';
import type { DataEncryption } from '../platform/data-encryption';
import type { WorkerMetrics } from './metrics';

/** Builds the worker from ready dependencies; used by worker/main.ts and by tests that run a real worker. */
export async function createWorker(
  settings: TemporalSettings,
  deps: ActivityDeps & { encryption: DataEncryption },
  metrics?: WorkerMetrics,
): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: settings.address });
  const worker = await Worker.create({
    connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities(deps),
    dataConverter: createDataConverter(deps.encryption),
    ...(metrics ? { interceptors: { activity: [metrics.interceptor] } } : {}),
  });
  return { worker, connection };
}
