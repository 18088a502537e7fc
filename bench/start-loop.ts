/**
 * The orchestration baseline: a plain script that starts the charge workflow with client.workflow.start, with the
 * same number of concurrent callers and duration as the HTTP load, and prints how many it started.
 * node dist/bench/start-loop.js <address> <queue> <connections> <seconds> (compiled by npm run bench)
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { chargeWorkflowId } from '../workflows/messages';

async function main(): Promise<void> {
  const [address, taskQueue, connections, seconds] = process.argv.slice(2);
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const until = Date.now() + Number(seconds) * 1000;
  let started = 0;
  await Promise.all(
    Array.from({ length: Number(connections) }, async () => {
      while (Date.now() < until) {
        const chargeId = `chg_${randomUUID()}`;
        await client.workflow.start('chargeWorkflow', {
          workflowId: chargeWorkflowId(chargeId),
          taskQueue: taskQueue!,
          args: [{ chargeId, userId: 'usr_bench' }],
        });
        started += 1;
      }
    }),
  );
  console.log(JSON.stringify({ started, seconds: Number(seconds) }));
  await connection.close();
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
