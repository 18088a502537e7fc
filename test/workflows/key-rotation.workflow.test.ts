import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { keyRotationWorkflow } from '../../workflows/key-rotation';
import { networkRotationWorkflowId, retryNetworkRotationUpdate } from '../../workflows/messages';
import { ChainFailure } from '../../platform/failures';
import type { KeyRotationActivities } from '../../activities/key-rotation';
import { workflowTestWorker } from '../helpers/workflow-env';

type Submission = 'included' | 'refused' | 'down';

/**
 * The key rotation's branches, fast: the real parent and per-network child workflows on the test run's Temporal server,
 * the chain and the database stubbed per task and network (a script of submissions), every call recorded.
 */
describe('key rotation workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const scripts = new Map<string, Submission[]>();
  const calls = new Map<string, string[]>();
  const record = (taskId: string, call: string) => calls.set(taskId, [...(calls.get(taskId) ?? []), call]);

  const activities: Pick<
    KeyRotationActivities,
    'submitNetworkRotation' | 'recordNetworkRotation' | 'recordKeyRotationStatus'
  > = {
    async submitNetworkRotation({ taskId, networkId }) {
      const script = scripts.get(`${taskId}/${networkId}`) ?? ['included'];
      const submission = script.length > 1 ? script.shift()! : script[0]!;
      record(taskId, `submit:${networkId}:${submission}`);
      if (submission === 'down') throw new Error('connect ECONNREFUSED');
      if (submission === 'refused')
        throw ApplicationFailure.nonRetryable('AA24 signature error', ChainFailure.UserOperationRejected);
      return { txHash: `0x${networkId.toLowerCase()}` };
    },
    async recordNetworkRotation({ taskId, networkId, status }) {
      record(taskId, `record:${networkId}:${status}`);
    },
    async recordKeyRotationStatus({ taskId, status }) {
      record(taskId, `status:${status}`);
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const rotation = async (networks: Record<string, Submission[]>, retryWindowSeconds = 1) => {
    const taskId = `krt_${randomUUID()}`;
    for (const [networkId, script] of Object.entries(networks)) scripts.set(`${taskId}/${networkId}`, script);
    const handle = await harness.env.client.workflow.start(keyRotationWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `key-rotation-${taskId}`,
      args: [{ taskId, userId: 'usr_1', networkIds: Object.keys(networks), retryWindowSeconds }],
    });
    return { taskId, handle };
  };
  const retry = (handle: Awaited<ReturnType<typeof rotation>>['handle'], networkId: string) =>
    handle.executeUpdate(retryNetworkRotationUpdate, { args: [networkId] });

  it('rotates every network in a child of its own and completes', async () => {
    const { taskId, handle } = await rotation({ ETHEREUM: ['included'], POLYGON: ['included'] });
    expect(await handle.result()).toEqual({
      status: 'completed',
      networks: [
        { networkId: 'ETHEREUM', status: 'completed', txHash: '0xethereum', retryable: false },
        { networkId: 'POLYGON', status: 'completed', txHash: '0xpolygon', retryable: false },
      ],
    });
    expect(calls.get(taskId)).toEqual(
      expect.arrayContaining(['record:ETHEREUM:completed', 'record:POLYGON:completed', 'status:completed']),
    );
    expect(calls.get(taskId)!.at(-1)).toBe('status:completed');
    const child = harness.env.client.workflow.getHandle(networkRotationWorkflowId(taskId, 'POLYGON', 1));
    expect((await child.describe()).status.name).toBe('COMPLETED');
  });

  it('reports a network the chain refused as not retryable, refuses to retry it or a network outside the rotation, and ends after the window', async () => {
    const { taskId, handle } = await rotation({ ETHEREUM: ['included'], POLYGON: ['refused'] }, 2);
    // The window is open once the partial failure is recorded.
    for (let i = 0; i < 100 && !calls.get(taskId)?.includes('status:partial_failure'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await expect(retry(handle, 'POLYGON')).rejects.toThrow(WorkflowUpdateFailedError);
    const outside = await retry(handle, 'SOLANA').catch((error: WorkflowUpdateFailedError) => error);
    expect((outside as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'NetworkNotInRotation' });
    expect(await handle.result()).toEqual({
      status: 'partial_failure',
      networks: [
        { networkId: 'ETHEREUM', status: 'completed', txHash: '0xethereum', retryable: false },
        { networkId: 'POLYGON', status: 'failed', error: 'AA24 signature error', retryable: false },
      ],
    });
    expect(calls.get(taskId)!.filter((c) => c.startsWith('submit:POLYGON'))).toEqual(['submit:POLYGON:refused']);
  });

  it('retries a network whose node stayed down within the window, in a new child, and completes', async () => {
    const { taskId, handle } = await rotation(
      { ETHEREUM: ['included'], POLYGON: ['down', 'down', 'down', 'down', 'included'] },
      60,
    );
    for (let i = 0; i < 400 && !calls.get(taskId)?.includes('status:partial_failure'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(calls.get(taskId)).toContain('record:POLYGON:failed');
    expect(await retry(handle, 'POLYGON')).toEqual({ accepted: true });
    expect(await handle.result()).toMatchObject({
      status: 'completed',
      networks: [{ status: 'completed' }, { networkId: 'POLYGON', status: 'completed', txHash: '0xpolygon' }],
    });
    expect(calls.get(taskId)!.filter((c) => c.startsWith('submit:POLYGON'))).toHaveLength(5);
    const retried = harness.env.client.workflow.getHandle(networkRotationWorkflowId(taskId, 'POLYGON', 2));
    expect((await retried.describe()).status.name).toBe('COMPLETED');
  }, 40_000);
});
