import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import { sanctionsListRefreshWorkflow } from '../workflows/compliance';
import { housekeepingWorkflow } from '../workflows/housekeeping';
import { housekeepingScheduleId, sanctionsScheduleId } from '../workflows/messages';

/**
 * A schedule that starts `workflow` every `every` ms on the task queue (overlaps skipped; a missed run within an hour
 * is caught up), created once; when it exists already, its interval is updated if it changed (a pause set by an
 * operator is kept). Answers what was done and its handle.
 */
async function ensureIntervalSchedule(
  client: Client,
  options: {
    scheduleId: string;
    taskQueue: string;
    every: number;
    workflow: () => Promise<unknown>;
    note: string;
    triggerImmediately?: boolean;
  },
): Promise<{ outcome: 'created' | 'updated' | 'unchanged'; handle: ScheduleHandle }> {
  const { scheduleId, every } = options;
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action: {
        type: 'startWorkflow',
        workflowType: options.workflow,
        taskQueue: options.taskQueue,
        workflowId: scheduleId,
        args: [],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: { triggerImmediately: options.triggerImmediately ?? false, note: options.note },
    });
    return { outcome: 'created', handle: client.schedule.getHandle(scheduleId) };
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(scheduleId);
  const described = await handle.describe();
  const current = described.spec.intervals?.[0]?.every;
  if (current !== undefined && Number(current) === every) return { outcome: 'unchanged', handle };
  await handle.update((previous) => ({ ...previous, spec: { ...previous.spec, intervals: [{ every }] } }));
  return { outcome: 'updated', handle };
}

/**
 * The sanctions list's schedule: sanctions-list-refresh starts sanctionsListRefreshWorkflow every `everyMinutes`.
 * Created by the worker at start, or its interval updated when SANCTIONS_LIST_REFRESH_MINUTES changed. With no list
 * stored yet, it is triggered at once. Operators see, trigger and pause it in the Temporal UI (Schedules) or with
 * `temporal schedule describe|trigger|toggle --schedule-id sanctions-list-refresh`.
 */
export async function ensureSanctionsListSchedule(
  client: Client,
  options: { taskQueue: string; everyMinutes: number; listStored: boolean },
): Promise<'created' | 'updated' | 'unchanged'> {
  const { outcome, handle } = await ensureIntervalSchedule(client, {
    scheduleId: sanctionsScheduleId(options.taskQueue),
    taskQueue: options.taskQueue,
    every: options.everyMinutes * 60_000,
    workflow: sanctionsListRefreshWorkflow,
    note: 'Reads the OFAC SDN list (SANCTIONS_LIST_URL) into the stored sanctions list',
    triggerImmediately: !options.listStored,
  });
  if (!options.listStored && outcome !== 'created') await handle.trigger(ScheduleOverlapPolicy.SKIP);
  return outcome;
}

/** How often the housekeeping schedule sweeps rows past their use. */
export const HOUSEKEEPING_EVERY_MS = 3_600_000;

/**
 * The housekeeping schedule: `housekeeping` starts housekeepingWorkflow every hour, which deletes WebAuthn challenges
 * an hour past their expiry and used PIN approvals past theirs (activities/housekeeping.ts). Operators see, trigger and
 * pause it as the sanctions list's.
 */
export async function ensureHousekeepingSchedule(
  client: Client,
  options: { taskQueue: string },
): Promise<'created' | 'updated' | 'unchanged'> {
  const { outcome } = await ensureIntervalSchedule(client, {
    scheduleId: housekeepingScheduleId(options.taskQueue),
    taskQueue: options.taskQueue,
    every: HOUSEKEEPING_EVERY_MS,
    workflow: housekeepingWorkflow,
    note: 'Deletes rows past their use: WebAuthn challenges an hour past their expiry',
  });
  return outcome;
}
