import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import type { Activities, ActivityDeps } from '../activities';
import { createDataConverter, type TemporalSettings } from '../platform/temporal';
import type { DataEncryption } from '../platform/data-encryption';
import type { WorkerMetrics } from './metrics';
import { WORKFLOW_BUNDLE_OPTIONS } from './workflow-bundle';
import { ALL_WORKER_ROLES, createWorkerGroup, type WorkerGroup } from './worker-group';
import type { WorkerRole } from '../workflows/capabilities';

/**
 * The workflows bundled by `npm run build` (worker/bundle-workflows.ts), beside the compiled worker: dist/workflow-bundle.js.
 * Run from the sources (tsx: npm start, tests), there is none, and the worker bundles them as it starts.
 */
export const PREBUILT_WORKFLOW_BUNDLE = join(__dirname, '../workflow-bundle.js');

/**
 * The prebuilt bundle, if there is one no older than any compiled workflow module beside it: a `tsc` run without the
 * bundling step (or a build that failed after tsc) leaves an older bundle, which would run old workflow code beside
 * new activities; the worker then bundles at start instead.
 */
export function freshWorkflowBundle(): string | undefined {
  if (!existsSync(PREBUILT_WORKFLOW_BUNDLE)) return undefined;
  const built = statSync(PREBUILT_WORKFLOW_BUNDLE).mtimeMs;
  const sources = [join(__dirname, '../workflows'), join(__dirname, '../platform')];
  const newer = sources.some((dir) =>
    readdirSync(dir).some((f) => f.endsWith('.js') && statSync(join(dir, f)).mtimeMs > built),
  );
  return newer ? undefined : PREBUILT_WORKFLOW_BUNDLE;
}

/** A WORKFLOW_BUNDLE that is not there fails the start (worker/main.ts checks it before it opens anything). */
export function assertWorkflowBundle(path: string | undefined): void {
  if (path !== undefined && !existsSync(path))
    throw new Error(`WORKFLOW_BUNDLE ${path} does not exist (npm run build writes one)`);
}

type WorkerSettings = TemporalSettings & {
  workflowBundle?: string;
  roles?: readonly WorkerRole[];
  /** WORKFLOW_TASK_SLOTS: workflow tasks and local activities at once (the SDK's defaults, 40 and 100, without). */
  workflowTaskSlots?: number;
};

/** Builds the worker from ready dependencies, every activity built at once: tests that run a real worker in-process. */
export async function createWorker(
  settings: WorkerSettings,
  deps: ActivityDeps & { encryption: DataEncryption },
  metrics?: WorkerMetrics,
): Promise<{ worker: WorkerGroup; connection: NativeConnection }> {
  const { createActivities } = await import('../activities');
  return createWorkerOf(settings, { activities: createActivities(deps), encryption: deps.encryption }, metrics);
}

/**
 * Builds the worker for these activities (worker/main.ts: those opened by use, worker/resident.ts). `workflowBundle`
 * (WORKFLOW_BUNDLE): the workflows bundled ahead, run as they are (a missing file fails the start). `roles`
 * (WORKER_CAPABILITIES): the workflows and the capabilities this process runs (worker/worker-group.ts); all by default.
 */
export async function createWorkerOf(
  settings: WorkerSettings,
  { activities, encryption }: { activities: Activities; encryption: DataEncryption },
  metrics?: WorkerMetrics,
): Promise<{ worker: WorkerGroup; connection: NativeConnection }> {
  assertWorkflowBundle(settings.workflowBundle);
  const connection = await NativeConnection.connect({ address: settings.address });
  const bundle = settings.workflowBundle ?? freshWorkflowBundle();
  if (!settings.workflowBundle && existsSync(PREBUILT_WORKFLOW_BUNDLE) && !bundle)
    console.warn(`${PREBUILT_WORKFLOW_BUNDLE} is older than the compiled workflows: bundling them now (npm run build)`);
  const roles = settings.roles ?? ALL_WORKER_ROLES;
  const worker = await createWorkerGroup(
    {
      connection,
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      // A process without the workflows neither bundles nor loads them.
      ...(!roles.includes('workflows')
        ? {}
        : bundle
          ? { workflowBundle: { codePath: bundle } }
          : { workflowsPath: require.resolve('../workflows'), bundlerOptions: WORKFLOW_BUNDLE_OPTIONS }),
      activities,
      dataConverter: createDataConverter(encryption),
      // A transfer sending locally holds its workflow task, and its slot, until the chain includes it.
      ...(settings.workflowTaskSlots
        ? {
            maxConcurrentWorkflowTaskExecutions: settings.workflowTaskSlots,
            maxConcurrentLocalActivityExecutions: settings.workflowTaskSlots,
          }
        : {}),
      ...(metrics ? { interceptors: { activity: [metrics.interceptor] } } : {}),
    },
    roles,
  );
  return { worker, connection };
}
