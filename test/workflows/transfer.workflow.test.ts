import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { transferFinalityWatchWorkflow, transferWorkflow } from '../../workflows/transfer';
import {
  complianceDecisionSignal,
  travelRuleDecisionSignal,
  NeedsReviewSA,
  NetworkIdSA,
  TRANSFER_WORKFLOW_VERSION,
  UserIdSA,
  finalityWatchWorkflowId,
  transferFinalityWorkflowId,
  travelRuleConfirmationWorkflowId,
  sentOutcome,
  type TransferInput,
} from '../../workflows/messages';
import { ChainFailure, TransferFailure } from '../../platform/failures';
import type { ResidentActivities } from '../../activities/resident';
import type { TransferActivities } from '../../activities/transfer';
import type { TransferPreparationActivities } from '../../activities/transfer-prepare';
import type { ComplianceActivities, TravelRuleActivities } from '../../activities/compliance';
import { workflowTestWorker } from '../helpers/workflow-env';

type Submission = 'included' | 'reverted' | 'unreachable' | 'refused-by-chain';
type Script = {
  screening?: 'sanctioned';
  /** What each submitTransfer answers, in turn (the last repeats). */
  submissions?: Submission[];
  /** Whether a transfer whose submission kept failing may have been broadcast. */
  maybeSent?: boolean;
  /** What each awaitFinality answers, in turn (the last repeats). */
  finality?: Array<'finalized' | 'reorged'>;
  /** How long each awaitFinality takes to answer. */
  finalityDelayMs?: number;
  inquiry?: 'refused';
  /** An attempt the workflow no longer waited for handed the transfer over before its failure was recorded. */
  handedOverMeanwhile?: true;
  /** finishTransfer refuses to record the transfer confirmed, for good (a non-retryable error). */
  recordingConfirmedFails?: true;
};

/**
 * The transfer workflow's branches, fast: the real workflow code (and its finality and Travel Rule confirmation
 * children) on the test run's Temporal server, the chain, the screening, the receiving provider and the database
 * stubbed per transfer (a script), every call recorded in order.
 */
describe('transfer workflow (stubbed activities)', () => {
  let harness: Awaited<ReturnType<typeof workflowTestWorker>>;
  const scripts = new Map<string, Script>();
  const calls = new Map<string, string[]>();
  const record = (transferId: string, call: string) => calls.set(transferId, [...(calls.get(transferId) ?? []), call]);
  const next = <T>(list: T[]): T => (list.length > 1 ? list.shift()! : list[0]!);
  /** Per network, what each round of its finality watch finds removed by a reorg, in turn. */
  const watchRounds = new Map<string, string[][]>();
  /** Transfers sendTransfer has prepared (signed). */
  const prepared = new Set<string>();

  const activities: Pick<
    TransferActivities,
    | 'signTransfer'
    | 'submitTransfer'
    | 'finishTransfer'
    | 'transferMaybeSent'
    | 'transferReorged'
    | 'recordTransferNeedsReview'
    | 'awaitFinality'
  > &
    Pick<ResidentActivities, 'watchFinality'> &
    Pick<ComplianceActivities, 'screenTransferRecipient' | 'openReviewCase' | 'releaseHeldTransfer'> &
    TransferPreparationActivities &
    Pick<TravelRuleActivities, 'sendTravelRuleInquiry' | 'recordTravelRuleOutcome' | 'confirmTravelRuleTransfer'> = {
    async screenTransferRecipient({ transferId }) {
      record(transferId, 'screen');
      if (scripts.get(transferId)!.screening === 'sanctioned')
        throw ApplicationFailure.nonRetryable('the recipient is sanctioned', TransferFailure.RecipientSanctioned);
    },
    async signTransfer({ transferId }) {
      record(transferId, 'sign');
    },
    // As the real one: the screening, then the signing (both recorded as their own calls).
    async prepareTransfer({ transferId }) {
      await activities.screenTransferRecipient({ transferId });
      await activities.signTransfer({ transferId });
    },
    // As the real one (version 4 on): prepared once (a retry finds the transfer signed: neither screened nor signed
    // again), then submitted with its outcome recorded.
    async sendTransfer({ transferId }) {
      if (!prepared.has(transferId)) {
        await activities.prepareTransfer({ transferId });
        prepared.add(transferId);
      }
      return activities.submitTransfer({ transferId, record: true });
    },
    async submitTransfer({ transferId, record: recordOutcome }) {
      const submission = next((scripts.get(transferId)!.submissions ??= ['included']));
      record(transferId, `submit:${submission}`);
      if (submission === 'unreachable') throw new Error('connect ECONNREFUSED');
      if (submission === 'refused-by-chain')
        throw ApplicationFailure.nonRetryable('AA23 reverted', ChainFailure.UserOperationRejected);
      const sent =
        submission === 'included'
          ? { success: true, txHash: '0xabc', fee: '21000', block: { number: '7', hash: '0xb7' } }
          : { success: false, txHash: '0xabc', fee: '21000', error: 'execution reverted' };
      // As the real one (version 3 on): the outcome recorded before it is answered, a failure to record retried.
      if (recordOutcome)
        await activities.finishTransfer({ transferId, ...sentOutcome(sent), block: sent.block }).catch((error) => {
          throw new Error(`not recorded: ${(error as Error).message}`);
        });
      return sent;
    },
    async transferMaybeSent({ transferId }) {
      record(transferId, 'maybeSent');
      return scripts.get(transferId)!.maybeSent ?? false;
    },
    async recordTransferNeedsReview({ transferId }) {
      record(transferId, 'needsReview');
    },
    async finishTransfer({ transferId, status, unsent }) {
      const script = scripts.get(transferId)!;
      // As the real one: an unsent failure of a transfer handed over meanwhile is not recorded (false).
      if (unsent && script.handedOverMeanwhile) {
        record(transferId, `finish:${status}:handed-over`);
        return false;
      }
      record(transferId, `finish:${status}${unsent ? ':unsent' : ''}`);
      if (status === 'confirmed' && script.recordingConfirmedFails)
        throw ApplicationFailure.nonRetryable('the row is not there', 'Broken');
      return true;
    },
    async awaitFinality({ transferId }) {
      const delay = scripts.get(transferId)!.finalityDelayMs;
      if (delay) await new Promise((r) => setTimeout(r, delay));
      const state = next((scripts.get(transferId)!.finality ??= ['finalized']));
      record(transferId, `finality:${state}`);
      return state;
    },
    async watchFinality({ networkId }) {
      // Each round answers the transfers the script lists for it; then quiet rounds, a moment each.
      const rounds = watchRounds.get(networkId) ?? [];
      const round = rounds.shift();
      if (!round) await new Promise((r) => setTimeout(r, 200));
      return { reorged: (round ?? []).map((transferId) => ({ transferId, userId: 'usr_1' })), finalized: 0 };
    },
    async transferReorged({ transferId }) {
      record(transferId, 'reorged');
    },
    async openReviewCase({ transferId, kind }) {
      record(transferId, `case:${kind}`);
      return { caseId: `case_${transferId}` };
    },
    async releaseHeldTransfer({ transferId }) {
      record(transferId, 'released');
    },
    async sendTravelRuleInquiry({ transferId }) {
      record(transferId, 'inquiry');
      return scripts.get(transferId)!.inquiry === 'refused'
        ? { recordId: `tr_${transferId}`, sent: false, reason: 'unknown beneficiary address' }
        : { recordId: `tr_${transferId}`, sent: true };
    },
    async recordTravelRuleOutcome({ transferId, status }) {
      record(transferId, `travelRule:${status}`);
    },
    async confirmTravelRuleTransfer({ transferId, txHash }) {
      record(transferId, `confirmTo:${txHash}`);
    },
  };

  beforeAll(async () => {
    harness = await workflowTestWorker(activities);
  });
  afterAll(async () => {
    await harness?.stop();
  });

  const transfer = async (script: Script, input: Partial<TransferInput> = {}) => {
    const transferId = `tr_${randomUUID()}`;
    scripts.set(transferId, script);
    // As the API starts it: the current version, its search attributes with the start.
    const handle = await harness.env.client.workflow.start(transferWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `transfer-${transferId}`,
      typedSearchAttributes: [
        { key: UserIdSA, value: 'usr_1' },
        { key: NetworkIdSA, value: 'ETHEREUM' },
      ],
      args: [{ version: TRANSFER_WORKFLOW_VERSION, transferId, userId: 'usr_1', networkId: 'ETHEREUM', ...input }],
    });
    return { transferId, handle };
  };
  const child = (workflowId: string) => harness.env.client.workflow.getHandle(workflowId).result();
  const waitForCall = async (transferId: string, call: string) => {
    for (let i = 0; i < 100 && !calls.get(transferId)?.includes(call); i++) await new Promise((r) => setTimeout(r, 50));
    expect(calls.get(transferId)).toContain(call);
  };

  it('never records failed a transfer the chain ran, even when its outcome cannot be recorded (version 2: the workflow fails for an operator)', async () => {
    const { transferId, handle } = await transfer({ recordingConfirmedFails: true }, { version: 2 });
    await expect(handle.result()).rejects.toThrow();
    expect(calls.get(transferId)).toEqual(['screen', 'sign', 'submit:included', 'finish:confirmed']);
  });

  it('never records failed a transfer the chain ran, even when its outcome cannot be recorded (version 3 on: the submission is retried, then held for review)', async () => {
    const { transferId, handle } = await transfer(
      { recordingConfirmedFails: true, maybeSent: true },
      { reviewAfterAttempts: 1 },
    );
    await waitForCall(transferId, 'needsReview');
    const E = temporal.api.enums.v1.EventType;
    const flagged = async () =>
      ((await handle.describe()).typedSearchAttributes.get(NeedsReviewSA) as string | undefined) ?? null;
    for (let i = 0; i < 50 && (await flagged()) === null; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await flagged()).toBe('transfer_unconfirmed');
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(calls.get(transferId)!.slice(0, 6)).toEqual([
      'screen',
      'sign',
      'submit:included',
      'finish:confirmed',
      'maybeSent',
      'needsReview',
    ]);
    expect(calls.get(transferId)).not.toContain('finish:failed');
    expect(
      ((await handle.fetchHistory()).events ?? []).some((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED),
    ).toBe(false);
    await handle.terminate('test over');
  });

  it("screens, signs and sends; answers at inclusion and leaves finality to the network's watch (no workflow of its own)", async () => {
    const { transferId, handle } = await transfer({});
    expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
    expect(calls.get(transferId)).toEqual(['screen', 'sign', 'submit:included', 'finish:confirmed']);
    // Its version says which steps it runs: no patch marker, no search-attribute event (they came with the start).
    const E = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    // Version 5: the screening, the signing, the submission and its outcome in one local activity, in the first
    // workflow task: no activity task, one workflow task, six events (started, the task's three, the marker, done).
    expect(
      events
        .filter((e) => e.eventType === E.EVENT_TYPE_MARKER_RECORDED)
        .map((e) => e.markerRecordedEventAttributes?.markerName),
    ).toEqual(['core_local_activity']);
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toEqual([]);
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)).toHaveLength(1);
    expect(events).toHaveLength(6);
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)).toEqual([]);
    await expect(
      harness.env.client.workflow.getHandle(transferFinalityWorkflowId(transferId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('runs a transfer of version 4 as it ran: all of it in one activity (sendTransfer), no local activity', async () => {
    const { transferId, handle } = await transfer({}, { version: 4 });
    expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
    expect(calls.get(transferId)).toEqual(['screen', 'sign', 'submit:included', 'finish:confirmed']);
    const E = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    // The eleven events of a workflow of one activity (the bench's minimal durable transfer).
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_MARKER_RECORDED)).toEqual([]);
    expect(
      events
        .filter((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name),
    ).toEqual(['sendTransfer']);
    expect(events).toHaveLength(11);
  });

  it('retries a send of version 5 within its local activity: the attempts in one marker, no activity task', async () => {
    // The first attempt finds the bundler unreachable (after signing), the second sends (the stub, as sendTransfer,
    // signs once: test/e2e/send-transfer.test.ts holds the real one to that).
    const { transferId, handle } = await transfer({ submissions: ['unreachable', 'included'] });
    expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
    expect(calls.get(transferId)).toEqual([
      'screen',
      'sign',
      'submit:unreachable',
      'submit:included',
      'finish:confirmed',
    ]);
    const E = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_MARKER_RECORDED)).toHaveLength(1);
    expect(events.filter((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toEqual([]);
  });

  it('runs a transfer of version 3 as it ran: the screening and the signing as one local activity, then the submission', async () => {
    const { transferId, handle } = await transfer({}, { version: 3 });
    expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
    expect(calls.get(transferId)).toEqual(['screen', 'sign', 'submit:included', 'finish:confirmed']);
    const E = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    expect(
      events
        .filter((e) => e.eventType === E.EVENT_TYPE_MARKER_RECORDED)
        .map((e) => e.markerRecordedEventAttributes?.markerName),
    ).toEqual(['core_local_activity']);
    expect(
      events
        .filter((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
        .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name),
    ).toEqual(['submitTransfer']);
  });

  it('runs a transfer started before versions (no version in its input) by its patch markers, as recorded', async () => {
    const transferId = `tr_${randomUUID()}`;
    scripts.set(transferId, {});
    const handle = await harness.env.client.workflow.start(transferWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `transfer-${transferId}`,
      args: [{ transferId, userId: 'usr_1', networkId: 'ETHEREUM' }],
    });
    expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
    expect(calls.get(transferId)).toEqual(['screen', 'sign', 'submit:included', 'finish:confirmed']);
    const E = temporal.api.enums.v1.EventType;
    const events = (await handle.fetchHistory()).events ?? [];
    // Its search attributes upserted by itself, and each patch marker with its TemporalChangeVersion upsert.
    const upserted = events
      .filter((e) => e.eventType === E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES)
      .map((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
    expect(upserted.filter((keys) => keys.includes('UserId')).map((keys) => keys.sort())).toEqual([
      ['NetworkId', 'UserId'],
    ]);
    expect(upserted.filter((keys) => keys.includes('TemporalChangeVersion')).length).toBeGreaterThanOrEqual(4);
    expect(
      events.filter(
        (e) =>
          e.eventType === E.EVENT_TYPE_MARKER_RECORDED &&
          e.markerRecordedEventAttributes?.markerName !== 'core_local_activity',
      ).length,
    ).toBeGreaterThanOrEqual(4);
  });

  // The send's branches as an activity on the chains' queue (version 4) and as a local activity (version 5).
  describe.each([4, 5])('version %i', (version) => {
    it('signs nothing for a recipient the last screening names: a refusal the caller is told', async () => {
      const { transferId, handle } = await transfer({ screening: 'sanctioned' }, { version });
      expect(await handle.result()).toMatchObject({
        status: 'failed',
        refused: true,
        refusalType: TransferFailure.RecipientSanctioned,
      });
      expect(calls.get(transferId)).toEqual(['screen', 'finish:failed:unsent']);
    });

    it('holds, never fails, a transfer an earlier attempt handed over before a later one was refused (its screening)', async () => {
      // The refusal says only that this attempt sent nothing: the transfer handed over meanwhile is asked about.
      const { transferId, handle } = await transfer(
        { screening: 'sanctioned', handedOverMeanwhile: true },
        { version },
      );
      expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
      expect(calls.get(transferId)).toEqual([
        'screen',
        'finish:failed:handed-over',
        'needsReview',
        'submit:included',
        'finish:confirmed',
      ]);
    });

    it('records a revert as failed (the chain proves it), and a refusal by the chain without asking whether it was sent', async () => {
      const reverted = await transfer({ submissions: ['reverted'] }, { version });
      expect(await reverted.handle.result()).toMatchObject({ status: 'failed', error: 'execution reverted' });
      expect(calls.get(reverted.transferId)).toEqual(['screen', 'sign', 'submit:reverted', 'finish:failed']);
      const refused = await transfer({ submissions: ['refused-by-chain'] }, { version });
      expect(await refused.handle.result()).toMatchObject({ status: 'failed', error: 'AA23 reverted' });
      expect(calls.get(refused.transferId)).toEqual(['screen', 'sign', 'submit:refused-by-chain', 'finish:failed']);
    });

    it('never records failed a transfer that may have been broadcast: flagged for review, asked patiently, confirmed once', async () => {
      const { transferId, handle } = await transfer(
        { submissions: ['unreachable', 'included'], maybeSent: true },
        { reviewAfterAttempts: 1, version },
      );
      expect(await handle.result()).toMatchObject({ status: 'confirmed', txHash: '0xabc' });
      expect(calls.get(transferId)).toEqual([
        'screen',
        'sign',
        'submit:unreachable',
        'maybeSent',
        'needsReview',
        'submit:included',
        'finish:confirmed',
      ]);
    });

    it('fails a transfer that was never broadcast once its attempts run out', async () => {
      const { transferId, handle } = await transfer(
        { submissions: ['unreachable'] },
        { reviewAfterAttempts: 1, version },
      );
      expect(await handle.result()).toMatchObject({ status: 'failed', error: 'connect ECONNREFUSED' });
      expect(calls.get(transferId)).toEqual([
        'screen',
        'sign',
        'submit:unreachable',
        'maybeSent',
        'finish:failed:unsent',
      ]);
    });

    it('holds, never fails, a transfer handed over after it was read unsent (an attempt past its timeout), and confirms it once', async () => {
      const { transferId, handle } = await transfer(
        { submissions: ['unreachable', 'included'], handedOverMeanwhile: true },
        { reviewAfterAttempts: 1, version },
      );
      expect(await handle.result()).toEqual({ status: 'confirmed', txHash: '0xabc', fee: '21000' });
      expect(calls.get(transferId)).toEqual([
        'screen',
        'sign',
        'submit:unreachable',
        'maybeSent',
        'finish:failed:handed-over',
        'needsReview',
        'submit:included',
        'finish:confirmed',
      ]);
    });
  });

  it('holds a transfer a monitoring rule flagged until an operator approves (the first decision counts)', async () => {
    const { transferId, handle } = await transfer({}, { review: { kind: 'structuring', detail: 'three in a day' } });
    await waitForCall(transferId, 'case:structuring');
    expect(calls.get(transferId)).toEqual(['case:structuring']);
    await handle.signal(complianceDecisionSignal, { approved: true, reason: 'known payee', decidedBy: 'op_1' });
    await handle.signal(complianceDecisionSignal, { approved: false, reason: 'too late', decidedBy: 'op_2' });
    expect(await handle.result()).toMatchObject({ status: 'confirmed' });
    expect(calls.get(transferId)).toEqual([
      'case:structuring',
      'released',
      'screen',
      'sign',
      'submit:included',
      'finish:confirmed',
    ]);
  });

  it('signs nothing when the operator rejects the held transfer, and says why', async () => {
    const { transferId, handle } = await transfer({}, { review: { kind: 'fan_out', detail: 'five new recipients' } });
    await waitForCall(transferId, 'case:fan_out');
    await handle.signal(complianceDecisionSignal, { approved: false, reason: 'mule account', decidedBy: 'op_1' });
    expect(await handle.result()).toMatchObject({
      status: 'failed',
      refused: true,
      refusalType: TransferFailure.ComplianceRejected,
      error: expect.stringContaining('mule account'),
    });
    expect(calls.get(transferId)).toEqual(['case:fan_out', 'finish:failed']);
  });

  it('sends under the Travel Rule once the receiving provider approves, then tells it the transaction id', async () => {
    const { transferId, handle } = await transfer({}, { travelRuleTimeoutSeconds: 60 });
    await waitForCall(transferId, 'inquiry');
    await handle.signal(travelRuleDecisionSignal, { approved: true, reason: null, callback: 'https://vasp.example/c' });
    expect(await handle.result()).toMatchObject({ status: 'confirmed' });
    expect(await child(travelRuleConfirmationWorkflowId(transferId))).toBe('confirmed');
    expect(calls.get(transferId)).toEqual(
      expect.arrayContaining(['inquiry', 'travelRule:approved', 'sign', 'submit:included', 'confirmTo:0xabc']),
    );
    expect(calls.get(transferId)!.indexOf('travelRule:approved')).toBeLessThan(calls.get(transferId)!.indexOf('sign'));
  });

  it('signs nothing when the receiving provider rejects, refuses the inquiry, or does not answer in time', async () => {
    const rejected = await transfer({}, { travelRuleTimeoutSeconds: 60 });
    await waitForCall(rejected.transferId, 'inquiry');
    await rejected.handle.signal(travelRuleDecisionSignal, { approved: false, reason: 'name mismatch' });
    expect(await rejected.handle.result()).toMatchObject({ refusalType: TransferFailure.TravelRuleRejected });
    expect(calls.get(rejected.transferId)).toEqual(['inquiry', 'travelRule:rejected', 'finish:failed']);

    const refused = await transfer({ inquiry: 'refused' }, { travelRuleTimeoutSeconds: 60 });
    expect(await refused.handle.result()).toMatchObject({
      refusalType: TransferFailure.TravelRuleRejected,
      error: expect.stringContaining('unknown beneficiary address'),
    });

    const silent = await transfer({}, { travelRuleTimeoutSeconds: 1 });
    expect(await silent.handle.result()).toMatchObject({ refusalType: TransferFailure.TravelRuleTimedOut });
    expect(calls.get(silent.transferId)).toEqual(['inquiry', 'travelRule:timed_out', 'finish:failed']);
  });

  it("sends again the same operation after a reorg removed it (the network's watch hands it over, once), and records it confirmed again", async () => {
    const { transferId, handle } = await transfer({ finality: ['reorged', 'finalized'], finalityDelayMs: 1_000 });
    expect(await handle.result()).toMatchObject({ status: 'confirmed' });
    // The watch sees it removed, twice (a second look before the transfer is back in flight): one workflow sends it.
    const networkId = `NET_${randomUUID()}`;
    watchRounds.set(networkId, [[transferId], [transferId]]);
    const watch = await harness.env.client.workflow.start(transferFinalityWatchWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: finalityWatchWorkflowId(networkId, harness.taskQueue),
      args: [{ networkId }],
    });
    try {
      // Both looks taken while the first awaitFinality of the transfer's own workflow still runs (a second each).
      for (let i = 0; i < 100 && (watchRounds.get(networkId)?.length ?? 0) > 0; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(watchRounds.get(networkId)).toEqual([]);
      await child(transferFinalityWorkflowId(transferId));
      // The second hand-over found it already being sent again: the watch goes on.
      expect((await watch.describe()).status.name).toBe('RUNNING');
    } finally {
      await watch.terminate('test done');
    }
    expect(calls.get(transferId)).toEqual([
      'screen',
      'sign',
      'submit:included',
      'finish:confirmed',
      'finality:reorged',
      'reorged',
      'submit:included',
      'finish:confirmed',
      'finality:finalized',
    ]);
  });
});
