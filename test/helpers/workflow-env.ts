import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ALL_WORKER_ROLES, createWorkerGroup } from '../../worker/worker-group';
import type { WorkerRole } from '../../workflows/capabilities';
import { testWorkflowBundle } from './workflow-bundle';
import { testNamespace } from './global-setup';

/**
 * A worker for fast workflow tests: the real workflow code, bundled once per test run, on the test run's Temporal
 * server (global-setup), with the activities a test gives (stubs that record their calls), on a task queue of its own
 * and its capabilities' queues beside it (`roles`: all by default, as a worker process with WORKER_CAPABILITIES unset).
 */
export async function workflowTestWorker(
  activities: object,
  roles: readonly WorkerRole[] = ALL_WORKER_ROLES,
): Promise<{
  env: TestWorkflowEnvironment;
  taskQueue: string;
  stop(): Promise<void>;
}> {
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
  const env = await TestWorkflowEnvironment.createFromExistingServer({
    address: process.env.TEMPORAL_TEST_ADDRESS!,
    namespace: testNamespace(),
  });
  const taskQueue = `workflow-test-${randomUUID()}`;
  const worker = await createWorkerGroup(
    {
      connection: env.nativeConnection,
      namespace: testNamespace(),
      taskQueue,
      workflowBundle: await testWorkflowBundle(),
      activities,
    },
    roles,
  );
  const running = worker.run();
  return {
    env,
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}
