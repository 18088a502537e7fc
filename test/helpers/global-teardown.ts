import { rmSync } from 'node:fs';
import type { RunningDevServer } from '../../dev/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __TEMPORAL__?: RunningDevServer }).__TEMPORAL__?.stop();
  if (process.env.TEST_RUN_DIR) rmSync(process.env.TEST_RUN_DIR, { recursive: true, force: true });
}
