import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { resolveTemporalCli } from '../../dev/temporal-cli';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { bundleWorkflowsForRun } from './workflow-bundle';

/**
 * One real Temporal dev server for the whole test run (in memory), on a free port; the workflow code bundled once for
 * every test worker; a directory for what the test files share (TEST_RUN_DIR).
 */
export default async function globalSetup(): Promise<void> {
  // Node's on-disk cache of compiled code, for every node process the run starts (the worker and api processes, Alto,
  // the CLIs): they load the same modules again and again (a worker process's start takes about 20 % less CPU with it).
  process.env.NODE_COMPILE_CACHE ??= join(__dirname, '..', '..', '.data', 'node-compile-cache');
  // What the run's test files share and the teardown removes: the workflow bundle, the chains' snapshots.
  process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'wallet-test-run-'));
  await bundleWorkflowsForRun(process.env.TEST_RUN_DIR);
  if (process.env.TEMPORAL_TEST_ADDRESS) return;
  const cliPath = resolveTemporalCli({ build: true, log: (line) => console.log(line) });
  const port = await freePort();
  const server = await startTemporalDevServer({ cliPath, port, extraNamespaces: TEST_NAMESPACES });
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  process.env.TEMPORAL_TEST_NAMESPACES = 'per-worker';
  (globalThis as { __TEMPORAL__?: RunningDevServer }).__TEMPORAL__ = server;
}

/** Jest's workers (JEST_WORKER_ID 1, 2, …) each get their own namespace and ports, so files run side by side. */
const MAX_WORKERS = 8;
const TEST_NAMESPACES = Array.from({ length: MAX_WORKERS }, (_, i) => `test-${i + 1}`);
const workerSlot = (): number => (Math.max(1, Number(process.env.JEST_WORKER_ID ?? 1)) - 1) % MAX_WORKERS;

/**
 * The Temporal namespace of this jest worker's stacks: workflow ids some workflows fix (one per CODE member, say) then
 * never meet another file's running at the same time. `default` on a server the run did not start (it may have no
 * other namespace).
 */
export const testNamespace = (): string =>
  process.env.TEMPORAL_TEST_NAMESPACES === 'per-worker' ? TEST_NAMESPACES[workerSlot()]! : 'default';

/** Whether a port can be bound now. */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Each worker's ports, below Linux's ephemeral range (32768 and up, where the kernel picks the source ports of
 * outgoing connections and the ports of `listen(0)`) and above the fixed ones `npm start`'s test uses (13100-19466):
 * a worker never hands out a port another worker may hand out too.
 */
const PORT_BASE = 20_000;
const PORTS_PER_WORKER = Math.floor((32_768 - PORT_BASE) / MAX_WORKERS);

const handedOut = new Set<number>();
/**
 * A free port for a process about to start. Never one this test file was given before: processes started at once
 * (a stack's two chains and bundlers) each get a port before any of them binds. Taken from this worker's own range
 * (see above), at random, so files that follow one another in a worker rarely meet a port still in TIME_WAIT.
 */
export async function freePort(): Promise<number> {
  const from = PORT_BASE + workerSlot() * PORTS_PER_WORKER;
  for (let tries = 0; tries < 10_000; tries += 1) {
    const port = from + Math.floor(Math.random() * PORTS_PER_WORKER);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canBind(port)) return port;
  }
  throw new Error(`no free port in ${from}-${from + PORTS_PER_WORKER - 1}`);
}
