import type { RunningDevServer } from '../../dev/temporal-dev-server';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __TEMPORAL__?: RunningDevServer }).__TEMPORAL__?.stop();
}
