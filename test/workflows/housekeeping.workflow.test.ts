import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { housekeepingWorkflow } from '../../workflows/housekeeping';
import { payoutWorkflow } from '../../workflows/payout';
import { payoutWorkflowId } from '../../workflows/messages';
import { createWorkerGroup, type WorkerGroup } from '../../worker/worker-group';
import { testWorkflowBundle } from '../helpers/workflow-bundle';
import { testNamespace } from '../helpers/global-setup';

/**
 * The housekeeping sweep's payouts, on a real Temporal server with the real workflow code and the database's answers
 * stubbed: it pages through every payout not final, so a page of payouts that wait with a workflow of their own (held
 * for an operator, a bank in doubt) does not keep a lost one behind it from its workflow.
 */
describe('the housekeeping sweep of payouts', () => {
  let env: TestWorkflowEnvironment;
  let group: WorkerGroup;
  let done: Promise<void>;
  const taskQueue = `housekeeping-${randomUUID()}`;
  const run = randomUUID();
  const waiting = [`po_a-${run}`, `po_b-${run}`];
  const lost = `po_c-${run}`;
  const asked: Array<{ after?: string }> = [];
  const stubs = {
    async deleteExpiredChallenges() {
      return { deleted: 0, pinApprovalsDeleted: 0 };
    },
    async unstartedPayoutPage(input: { after?: string }) {
      asked.push(input);
      return input.after === undefined
        ? { payouts: waiting.map((payoutId) => ({ payoutId, userId: 'usr_1' })), next: waiting[1]! }
        : input.after === waiting[1]
          ? { payouts: [{ payoutId: lost, userId: 'usr_1' }], next: null }
          : { payouts: [], next: null };
    },
    async unstartedTransferCandidates() {
      return { transfers: [], next: null };
    },
  };

  beforeAll(async () => {
    if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
    env = await TestWorkflowEnvironment.createFromExistingServer({
      address: process.env.TEMPORAL_TEST_ADDRESS!,
      namespace: testNamespace(),
    });
    group = await createWorkerGroup(
      {
        connection: env.nativeConnection,
        namespace: testNamespace(),
        taskQueue,
        workflowBundle: await testWorkflowBundle(),
        activities: stubs,
      },
      ['workflows'],
    );
    done = group.run();
  });
  afterAll(async () => {
    for (const payoutId of [...waiting, lost])
      await env.client.workflow
        .getHandle(payoutWorkflowId(payoutId))
        .terminate('test over')
        .catch(() => undefined);
    group?.shutdown();
    await done;
    await env?.teardown();
  });

  it('starts the workflow of a lost payout on the second page, behind payouts whose workflows run', async () => {
    // Payouts with a workflow of their own: each waits at the bank (nothing polls the bank's queue here).
    for (const payoutId of waiting)
      await env.client.workflow.start(payoutWorkflow, {
        taskQueue,
        workflowId: payoutWorkflowId(payoutId),
        args: [{ payoutId, userId: 'usr_1' }],
      });
    const sweepId = `housekeeping-test-${randomUUID()}`;
    const result = await env.client.workflow.execute(housekeepingWorkflow, { taskQueue, workflowId: sweepId });
    expect(result.payoutsResumed).toBe(1);
    expect(asked).toEqual([{}, { after: waiting[1] }]);
    const started = await env.client.workflow.getHandle(payoutWorkflowId(lost)).describe();
    expect(started.parentExecution?.workflowId).toBe(sweepId);
    expect(started.status.name).toBe('RUNNING');
  });
});
