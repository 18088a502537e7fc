import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { sanctionsListRefreshWorkflow } from '../workflows/compliance';
import { sanctionsScheduleId } from '../workflows/messages';

/**
 * The project's first Temporal schedule: sanctions-list-refresh starts sanctionsListRefreshWorkflow every
 * `everyMinutes` (overlaps skipped; a missed run within an hour is caught up). Created by the worker at start, or its
 * interval updated when SANCTIONS_LIST_REFRESH_MINUTES changed (a pause set by an operator is kept). With no list
 * stored yet, it is triggered at once. Operators see, trigger and pause it in the Temporal UI (Schedules) or with
 * `temporal schedule describe|trigger|toggle --schedule-id sanctions-list-refresh`.
 */
export async function ensureSanctionsListSchedule(
  client: Client,
  options: { taskQueue: string; everyMinutes: number; listStored: boolean },
): Promise<'created' | 'updated' | 'unchanged'> {
  const scheduleId = sanctionsScheduleId(options.taskQueue);
  const every = options.everyMinutes * 60_000;
  try {
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every }] },
      action: {
        type: 'startWorkflow',
        workflowType: sanctionsListRefreshWorkflow,
        taskQueue: options.taskQueue,
        workflowId: scheduleId,
        args: [],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
      state: {
        triggerImmediately: !options.listStored,
        note: 'Reads the OFAC SDN list (SANCTIONS_LIST_URL) into the stored sanctions list',
      },
    });
    return 'created';
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(scheduleId);
  const described = await handle.describe();
  const current = described.spec.intervals?.[0]?.every;
  let outcome: 'updated' | 'unchanged' = 'unchanged';
  if (current === undefined || Number(current) !== every) {
    await handle.update((previous) => ({ ...previous, spec: { ...previous.spec, intervals: [{ every }] } }));
    outcome = 'updated';
  }
  if (!options.listStored) await handle.trigger(ScheduleOverlapPolicy.SKIP);
  return outcome;
}
