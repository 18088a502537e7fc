import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { createDataConverter, type TemporalSettings } from '../platform/temporal';
import type { DataEncryption } from '../platform/data-encryption';
import type { WorkerMetrics } from './metrics';

/**
 * The workflows bundled by `npm run build` (worker/bundle-workflows.ts), beside the compiled worker: dist/workflow-bundle.js.
 * Run from the sources (tsx: npm start, tests), there is none, and the worker bundles them as it starts.
 */
export const PREBUILT_WORKFLOW_BUNDLE = join(__dirname, '../workflow-bundle.js');

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
    ...(existsSync(PREBUILT_WORKFLOW_BUNDLE)
      ? { workflowBundle: { codePath: PREBUILT_WORKFLOW_BUNDLE } }
      : { workflowsPath: require.resolve('../workflows') }),
    activities: createActivities(deps),
    dataConverter: createDataConverter(deps.encryption),
    ...(metrics ? { interceptors: { activity: [metrics.interceptor] } } : {}),
  });
  return { worker, connection };
}
