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
  // What the run's test files share and the teardown removes: the workflow bundle, the chains' snapshots.
  process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'wallet-test-run-'));
  await bundleWorkflowsForRun(process.env.TEST_RUN_DIR);
  if (process.env.TEMPORAL_TEST_ADDRESS) return;
  const cliPath = resolveTemporalCli({ build: true, log: (line) => console.log(line) });
  const port = await freePort();
  const server = await startTemporalDevServer({ cliPath, port });
  process.env.TEMPORAL_TEST_ADDRESS = server.address;
  (globalThis as { __TEMPORAL__?: RunningDevServer }).__TEMPORAL__ = server;
}

/** A port nothing listens on, asked of the kernel. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const handedOut = new Set<number>();
/**
 * A free port for a process about to start. Never one this test file was given before: processes started at once
 * (a stack's two chains and bundlers) each get a port before any of them binds, and the kernel may offer a port again
 * until it is bound.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await unusedPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
