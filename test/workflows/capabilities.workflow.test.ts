import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { emailVerificationWorkflow } from '../../workflows/email-verification';
import { testClockMoveWorkflow } from '../../workflows/test-clock';
import { createWorkerGroup, type WorkerGroup } from '../../worker/worker-group';
import type { WorkerRole } from '../../workflows/capabilities';
import { testWorkflowBundle } from '../helpers/workflow-bundle';
import { testNamespace } from '../helpers/global-setup';
import { waitFor } from '../helpers/processes';

/**
 * WORKER_CAPABILITIES on a real Temporal server with the real workflow code: a capability's activity is scheduled on
 * its own queue and runs only in a worker started for that capability; an activity of our database alone stays on the
 * workflows' queue.
 */
describe('workers per capability', () => {
  let env: TestWorkflowEnvironment;
  const groups: { group: WorkerGroup; done: Promise<void> }[] = [];
  const taskQueue = `capabilities-${randomUUID()}`;
  /** Which worker ran each activity: the role it was started for. */
  const ranBy: { activity: string; role: string }[] = [];
  const stubs = (role: string) => ({
    async sendVerificationEmail() {
      ranBy.push({ activity: 'sendVerificationEmail', role });
    },
    async moveTestClock() {
      ranBy.push({ activity: 'moveTestClock', role });
      return { offsetMs: 0, now: new Date(0).toISOString(), chains: {} };
    },
  });
  const start = async (roles: WorkerRole[]) => {
    const group = await createWorkerGroup(
      {
        connection: env.nativeConnection,
        namespace: testNamespace(),
        taskQueue,
        workflowBundle: await testWorkflowBundle(),
        activities: stubs(roles.join('+')),
      },
      roles,
    );
    groups.push({ group, done: group.run() });
    return group;
  };
  const scheduledOn = async (workflowId: string) => {
    const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes)
      .map((e) => ({
        activity: e.activityTaskScheduledEventAttributes!.activityType!.name,
        taskQueue: e.activityTaskScheduledEventAttributes!.taskQueue!.name,
      }));
  };

  beforeAll(async () => {
    if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
    env = await TestWorkflowEnvironment.createFromExistingServer({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      namespace: testNamespace(),
    });
  });
  afterAll(async () => {
    for (const { group } of groups) group.shutdown();
    await Promise.all(groups.map((g) => g.done));
    await env?.teardown();
  });

  it('runs a capability activity only where that capability runs, and a database activity beside the workflows', async () => {
    const workflows = await start(['workflows']);
    expect(workflows.taskQueues).toEqual([taskQueue]);

    // The mail goes to the messaging queue, which nothing polls yet: scheduled there, and waiting.
    const mail = await env.client.workflow.start(emailVerificationWorkflow, {
      taskQueue,
      workflowId: `capabilities-mail-${randomUUID()}`,
      args: [{ verificationId: randomUUID(), code: '123456' }],
    });
    await waitFor(async () => (await scheduledOn(mail.workflowId)).length > 0, 30_000, 'the mail scheduled');
    expect(await scheduledOn(mail.workflowId)).toEqual([
      { activity: 'sendVerificationEmail', taskQueue: `${taskQueue}-messaging` },
    ]);
    // A test-clock move is the database's and the chains' own (core): on the workflows' queue, run by that worker.
    await expect(
      env.client.workflow.execute(testClockMoveWorkflow, {
        taskQueue,
        workflowId: `capabilities-clock-${randomUUID()}`,
        args: [{ seconds: 1 }],
      }),
    ).resolves.toMatchObject({ offsetMs: 0 });
    const description = await mail.describe();
    expect(description.status.name).toBe('RUNNING');
    expect(description.raw.pendingActivities?.[0]?.activityType?.name).toBe('sendVerificationEmail');
    expect(ranBy).toEqual([{ activity: 'moveTestClock', role: 'workflows' }]);

    // A worker for messaging alone (no workflows: it bundles none) picks the mail up, and the workflow completes.
    const messaging = await start(['messaging']);
    expect(messaging.taskQueues).toEqual([`${taskQueue}-messaging`]);
    await mail.result();
    expect(ranBy).toEqual([
      { activity: 'moveTestClock', role: 'workflows' },
      { activity: 'sendVerificationEmail', role: 'messaging' },
    ]);
  });
});
