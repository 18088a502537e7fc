import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { deployWorkflow } from '../../workflows/deploy';
import { didKeyWorkflow } from '../../workflows/did-key';
import { transferKeyWorkflow } from '../../workflows/transfer-key';
import { accountUpgradeWorkflow, recoveryCancelWorkflow } from '../../workflows/account-upgrade';
import { securityNoticeWorkflow } from '../../workflows/security-notice';
import { accountRecoveryWorkflowId } from '../../workflows/messages';
import { ChainFailure } from '../../platform/failures';
import type { SignedOperationActivities } from '../../activities/signed-operation';
import type { SecurityNoticeActivities } from '../../activities/security-notice';
import { workflowTestWorker } from '../helpers/workflow-env';

type Submission = 'included' | 'refused' | 'flaky';

/**
 * The workflows that submit one owner-signed user operation (deploy, DID key, transfer key change, account upgrade,
 * recovery cancellation) share one shape; each is run here through its branches with the chain and the database
 * stubbed (a script per operation id). And the security notice: mailed only once its change committed.
 */
describe('signed-operation workflows (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const scripts = new Map<string, Submission[]>();
  const calls = new Map<string, string[]>();
  const record = (id: string, call: string): void => {
    calls.set(id, [...(calls.get(id) ?? []), call]);
  };
  const submit = async (id: string) => {
    const script = scripts.get(id) ?? ['included'];
    const submission = script.length > 1 ? script.shift()! : script[0]!;
    record(id, `submit:${submission}`);
    if (submission === 'flaky') throw new Error('socket hang up');
    if (submission === 'refused')
      throw ApplicationFailure.nonRetryable('AA23 reverted: not the owner', ChainFailure.UserOperationRejected);
    return { txHash: '0xfeed' };
  };
  const finish = async ({ opId, status }: { opId: string; status: 'completed' | 'failed' }) =>
    record(opId, `finish:${status}`);
  const committed = new Map<string, string | null>();
  const mails = new Map<string, number>();

  const activities: Pick<
    SignedOperationActivities,
    | 'submitDeployment'
    | 'completeDeployment'
    | 'failDeployment'
    | 'submitDidKey'
    | 'finishDidKey'
    | 'submitTransferKeyChange'
    | 'finishTransferKeyChange'
    | 'submitAccountUpgrade'
    | 'finishAccountUpgrade'
    | 'submitRecoveryCancel'
    | 'finishRecoveryCancel'
  > &
    Pick<SecurityNoticeActivities, 'committedSecurityEvent' | 'mailSecurityNotice'> = {
    submitDeployment: ({ jobId }) => submit(jobId),
    completeDeployment: async ({ jobId }) => record(jobId, 'finish:completed'),
    failDeployment: async ({ jobId }) => record(jobId, 'finish:failed'),
    submitDidKey: ({ opId }) => submit(opId),
    finishDidKey: finish,
    submitTransferKeyChange: ({ opId }) => submit(opId),
    finishTransferKeyChange: finish,
    submitAccountUpgrade: ({ opId }) => submit(opId),
    finishAccountUpgrade: finish,
    submitRecoveryCancel: ({ opId }) => submit(opId),
    finishRecoveryCancel: finish,
    async committedSecurityEvent({ resourceId }) {
      return committed.get(resourceId) ?? null;
    },
    async mailSecurityNotice({ eventId }) {
      const attempt = (mails.get(eventId) ?? 0) + 1;
      mails.set(eventId, attempt);
      if (eventId.endsWith('-mail-down') && attempt === 1) throw new Error('mail provider 503');
      return { mailed: true, eventId };
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const kinds = [
    [
      'deploy',
      (id: string) => ({ workflow: deployWorkflow, args: { jobId: id, userId: 'usr_1', networkId: 'ETHEREUM' } }),
    ],
    [
      'DID key',
      (id: string) => ({ workflow: didKeyWorkflow, args: { opId: id, userId: 'usr_1', networkId: 'ETHEREUM' } }),
    ],
    [
      'transfer key change',
      (id: string) => ({ workflow: transferKeyWorkflow, args: { opId: id, userId: 'usr_1', networkId: 'ETHEREUM' } }),
    ],
    [
      'account upgrade',
      (id: string) => ({
        workflow: accountUpgradeWorkflow,
        args: { opId: id, userId: 'usr_1', networkId: 'ETHEREUM' },
      }),
    ],
  ] as const;
  const run = async (kind: (typeof kinds)[number][1], script: Submission[]) => {
    const id = `op_${randomUUID()}`;
    scripts.set(id, script);
    const { workflow, args } = kind(id);
    const handle = await harness.env.client.workflow.start(workflow as typeof deployWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `signed-op-${id}`,
      args: [args as never],
    });
    return { id, handle };
  };

  describe.each(kinds)('%s', (_name, kind) => {
    it('submits once and records it completed', async () => {
      const { id, handle } = await run(kind, ['included']);
      expect(await handle.result()).toEqual({ status: 'completed', txHash: '0xfeed' });
      expect(calls.get(id)).toEqual(['submit:included', 'finish:completed']);
    });

    it('records a refusal the chain proves as failed, with its reason', async () => {
      const { id, handle } = await run(kind, ['refused']);
      expect(await handle.result()).toEqual({ status: 'failed', error: 'AA23 reverted: not the owner' });
      expect(calls.get(id)).toEqual(['submit:refused', 'finish:failed']);
    });

    it('retries a node that did not answer, and submits until it does', async () => {
      const { id, handle } = await run(kind, ['flaky', 'included']);
      expect(await handle.result()).toMatchObject({ status: 'completed' });
      expect(calls.get(id)).toEqual(['submit:flaky', 'submit:included', 'finish:completed']);
    });
  });

  it('the owner cancelling a recovery completes even when the recovery workflow it tells has ended', async () => {
    const recoveryId = `rcv_${randomUUID()}`;
    const opId = `op_${randomUUID()}`;
    const handle = await harness.env.client.workflow.start(recoveryCancelWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `recovery-cancel-${opId}`,
      args: [{ opId, userId: 'usr_1', networkId: 'ETHEREUM', recoveryId }],
    });
    // No workflow account-recovery-<id> runs: the signal fails and the cancellation still completes.
    expect(await handle.result()).toEqual({ status: 'completed', txHash: '0xfeed' });
    expect(calls.get(opId)).toEqual(['submit:included', 'finish:completed']);
    expect(accountRecoveryWorkflowId(recoveryId)).toBe(`account-recovery-${recoveryId}`);
  });

  it('a security notice mails only a change that committed, and a mail provider outage delays it', async () => {
    const start = (resourceId: string) =>
      harness.env.client.workflow.execute(securityNoticeWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `security-notice-${resourceId}`,
        args: [{ userId: 'usr_1', eventType: 'device.added', resourceId }],
      });
    expect(await start(`dev_${randomUUID()}`)).toEqual({ mailed: false, reason: 'not-committed' });
    const device = `dev_${randomUUID()}`;
    committed.set(device, `evt_${device}-mail-down`);
    expect(await start(device)).toEqual({ mailed: true, eventId: `evt_${device}-mail-down` });
    expect(mails.get(`evt_${device}-mail-down`)).toBe(2);
  }, 20_000);
});
