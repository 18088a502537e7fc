/** A worker for the baseline workflows, on its own task queue: node --import tsx bench/baseline-worker.ts <address> <queue>. */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './baseline-activities';

async function main(): Promise<void> {
  const [address, taskQueue] = process.argv.slice(2);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue: taskQueue!,
    workflowsPath: require.resolve('./baseline-workflows'),
    activities,
  });
  process.once('SIGTERM', () => worker.shutdown());
  console.log('ready');
  await worker.run();
  await connection.close();
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
