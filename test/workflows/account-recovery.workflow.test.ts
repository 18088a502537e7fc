import { randomUUID } from 'node:crypto';
import { accountRecoveryWorkflow } from '../../workflows/account-recovery';
import { recoveryCheckSignal } from '../../workflows/messages';
import type { RecoveryActivities } from '../../activities/recovery';
import type { SecurityNoticeActivities } from '../../activities/security-notice';
import { workflowTestWorker } from '../helpers/workflow-env';

interface Chains {
  /** Networks scheduled, and the chains' delay (s). */
  scheduled: number;
  waitSeconds: number;
  /** What each look at the chains shows, in turn (the last repeats). */
  looks: Array<{ pending: number; due: boolean }>;
}

/**
 * The recovery workflow's branches, fast: the chains and the ledger stubbed per recovery, every call recorded, the
 * person's notices (child workflows) recorded by their event type. The delay is the chains': the workflow executes
 * when its timer passes it, or as soon as a look shows the chains past it (a moved test clock), or not at all when
 * the owner cancelled everywhere.
 */
describe('account recovery workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const chains = new Map<string, Chains>();
  const calls = new Map<string, string[]>();
  const record = (id: string, call: string) => calls.set(id, [...(calls.get(id) ?? []), call]);

  const activities: Pick<
    RecoveryActivities,
    'scheduleRecoveryNetworks' | 'checkRecoveryCancellations' | 'executeRecoveryNetworks' | 'finishRecovery'
  > &
    Pick<SecurityNoticeActivities, 'committedSecurityEvent' | 'mailSecurityNotice'> = {
    async scheduleRecoveryNetworks({ recoveryId }) {
      record(recoveryId, 'schedule');
      const { scheduled, waitSeconds } = chains.get(recoveryId)!;
      return { scheduled, waitSeconds } as never;
    },
    async checkRecoveryCancellations({ recoveryId }) {
      record(recoveryId, 'look');
      const { looks } = chains.get(recoveryId)!;
      return (looks.length > 1 ? looks.shift()! : looks[0]!) as never;
    },
    async executeRecoveryNetworks({ recoveryId }) {
      record(recoveryId, 'execute');
    },
    async finishRecovery({ recoveryId }) {
      record(recoveryId, 'finish');
      const executed = calls.get(recoveryId)!.includes('execute');
      const scheduled = chains.get(recoveryId)!.scheduled;
      return { status: !scheduled ? 'failed' : executed ? 'executed' : 'cancelled' };
    },
    async committedSecurityEvent({ resourceId, eventType }) {
      record(resourceId, `notice:${eventType}`);
      return null; // nothing to mail in these tests
    },
    async mailSecurityNotice() {
      throw new Error('not mailed in these tests');
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const recover = async (script: Chains, pollSeconds = 1) => {
    const recoveryId = `rcv_${randomUUID()}`;
    chains.set(recoveryId, script);
    const handle = await harness.env.client.workflow.start(accountRecoveryWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `account-recovery-${recoveryId}`,
      args: [{ recoveryId, userId: 'usr_1', pollSeconds }],
    });
    return { recoveryId, handle };
  };
  /** The notices, which run as child workflows, may be recorded after the parent's own calls. */
  const own = (recoveryId: string) => calls.get(recoveryId)!.filter((c) => !c.startsWith('notice:'));
  const notices = async (recoveryId: string, count: number) => {
    for (
      let i = 0;
      i < 50 && (calls.get(recoveryId) ?? []).filter((c) => c.startsWith('notice:')).length < count;
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return calls.get(recoveryId)!.filter((c) => c.startsWith('notice:'));
  };

  it('finishes at once when no network could be scheduled', async () => {
    const { recoveryId, handle } = await recover({ scheduled: 0, waitSeconds: 0, looks: [] });
    expect(await handle.result()).toEqual({ status: 'failed' });
    expect(own(recoveryId)).toEqual(['schedule', 'finish']);
  });

  it('executes once the delay has passed, looking for cancellations meanwhile', async () => {
    const { recoveryId, handle } = await recover({ scheduled: 2, waitSeconds: 2, looks: [{ pending: 2, due: false }] });
    expect(await handle.result()).toEqual({ status: 'executed' });
    const seen = own(recoveryId);
    expect(seen[0]).toBe('schedule');
    expect(seen.filter((c) => c === 'look').length).toBeGreaterThanOrEqual(2);
    expect(seen.slice(-2)).toEqual(['execute', 'finish']);
    expect(await notices(recoveryId, 2)).toEqual(['notice:recovery.scheduled', 'notice:recovery.executed']);
  });

  it('executes as soon as the chains show the delay passed (a moved test clock), before its own timer', async () => {
    const { recoveryId, handle } = await recover({
      scheduled: 1,
      waitSeconds: 3600,
      looks: [
        { pending: 1, due: false },
        { pending: 1, due: true },
      ],
    });
    const started = Date.now();
    expect(await handle.result()).toEqual({ status: 'executed' });
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(own(recoveryId)).toEqual(['schedule', 'look', 'look', 'execute', 'finish']);
  });

  it('does not execute where the owner cancelled everywhere, and says so', async () => {
    const { recoveryId, handle } = await recover(
      { scheduled: 2, waitSeconds: 3600, looks: [{ pending: 0, due: false }] },
      600,
    );
    // The API signals once the owner's cancellation landed: the workflow looks at once, not after its poll.
    await handle.signal(recoveryCheckSignal);
    expect(await handle.result()).toEqual({ status: 'cancelled' });
    expect(own(recoveryId)).toEqual(['schedule', 'look', 'finish']);
    expect(await notices(recoveryId, 2)).toEqual(['notice:recovery.scheduled', 'notice:recovery.cancelled']);
  });
});
