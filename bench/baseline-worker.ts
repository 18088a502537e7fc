/**
 * A worker for the baseline workflows, on its own task queue: node dist/bench/baseline-worker.js <address> <queue>
 * [<workflow bundle>] (npm run bench compiles it, and bundles the workflows ahead, as npm run build does the worker's).
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './baseline-activities';

async function main(): Promise<void> {
  const [address, taskQueue, bundle] = process.argv.slice(2);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    taskQueue: taskQueue!,
    ...(bundle ? { workflowBundle: { codePath: bundle } } : { workflowsPath: require.resolve('./baseline-workflows') }),
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
