import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { sanctionsListState } from '../../db/sanctions-list';
import { ormResidentDatabase } from '../../db/sql';
import { NetworkRegistry } from '../../platform/networks';
import { finalityWatchWorkflowId, housekeepingScheduleId } from '../../workflows/messages';

const OPENED = 'activities opened (their first use)';

/**
 * A worker process at rest runs only its resident activities (activities/resident.ts: the finality watches and the
 * sanctions list's download), through the resident database, and opens the ORM and every other activity on the first
 * use of one (worker/main.ts; issue 52, the worker's memory at rest). Here the worker starts on a new database: it
 * downloads and stores the list and watches each network without opening them; the housekeeping schedule's first run
 * opens them, once, and runs.
 */
// On the last database only (PostgreSQL where there is one, helpers/databases.ts): on SQLite the resident statements
// run on the ORM's connection, opened at start, which npm-start.test's embedded worker covers.
describe.each(testDatabases().slice(-1))('the worker at rest on $name', (database) => {
  let stack: TestStack;
  let worker: ServiceProcess | undefined;
  beforeAll(async () => {
    stack = await startTestStack(database, { chains: true });
    await stack.stopWorker(); // the worker process below is the only one on this task queue
  });
  afterAll(async () => {
    worker?.child.kill('SIGKILL');
    await worker?.exited;
    await stack?.stop();
  });

  it('still refuses at start a provider setting it cannot use, though the provider’s activities open on first use', async () => {
    const refused = runServiceProcess('worker/main.ts', {
      ...stack.workerProcessEnv(),
      BANK_TLS_CERT_FILE: '/no/such/cert.pem',
      BANK_TLS_KEY_FILE: '/no/such/key.pem',
    });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('BANK_TLS_CERT_FILE: cannot read /no/such/cert.pem (ENOENT)');
  }, 60_000);

  it('downloads the sanctions list and watches every network without opening the other activities, then opens them once on first use', async () => {
    const listState = () => sanctionsListState(ormResidentDatabase(stack.orm), 'ofac-sdn');
    // The stack stored a list: gone, as on a new database, so that the worker's start downloads it.
    const connection = stack.orm.em.getConnection();
    await connection.execute('delete from sanctioned_addresses');
    await connection.execute('delete from sanctions_lists');
    expect(await listState()).toBeNull();
    worker = runServiceProcess('worker/main.ts', { ...stack.workerProcessEnv(), LOG_LEVEL: 'info' });
    const output = worker.output;
    await waitFor(() => output().includes('worker started'), 90_000, 'the worker started').catch((error: Error) => {
      throw new Error(`${error.message}\n${output()}`);
    });
    // The list stored by the resident download (the schedule runs it at once: none was stored).
    await waitFor(async () => (await listState()) !== null, 60_000, 'the sanctions list stored');
    expect((await listState())!.addressCount).toBeGreaterThan(0);
    // Each network's watch is looking (its activity started and heartbeating in this process).
    const networkIds = NetworkRegistry.fromJson(stack.workerProcessEnv().NETWORKS!).ids();
    expect(networkIds.length).toBeGreaterThan(0);
    for (const networkId of networkIds) {
      const handle = stack.temporal.workflow.getHandle(finalityWatchWorkflowId(networkId, stack.taskQueue));
      await waitFor(
        async () =>
          (await handle.describe().catch(() => undefined))?.raw.pendingActivities?.some(
            (a) => a.activityType?.name === 'watchFinality' && a.lastHeartbeatTime,
          ) ?? false,
        60_000,
        `the finality watch of ${networkId} looking`,
      );
    }
    await new Promise((r) => setTimeout(r, 2000)); // a few more looks of each watch
    expect(output()).not.toContain(OPENED);

    // The first activity of another kind opens them (once) and runs.
    const schedule = stack.temporal.schedule.getHandle(housekeepingScheduleId(stack.taskQueue));
    await schedule.trigger();
    let workflowId: string | undefined;
    await waitFor(
      async () => {
        const action = (await schedule.describe()).info.recentActions[0]?.action;
        workflowId = action?.type === 'startWorkflow' ? action.workflow.workflowId : undefined;
        return workflowId !== undefined;
      },
      30_000,
      'the housekeeping run started',
    );
    await stack.temporal.workflow.getHandle(workflowId!).result();
    expect(output().split(OPENED).length - 1).toBe(1);

    // Stopped as an operator stops it: everything it opened is closed.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(output()).toContain('worker stopped');
    worker = undefined;
  }, 240_000);
});
