import type { RunningDevServer } from '../../platform/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __TEMPORAL__?: RunningDevServer }).__TEMPORAL__?.stop();
}
