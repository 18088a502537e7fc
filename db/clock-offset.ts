import { Statement } from './statement';
import type { Rows } from './resident';
import { setClockOffset } from '../platform/clock';

/** The test clock's one row (test_clock, TestClockEntity). */
export const TEST_CLOCK_ID = 'clock';

const CLOCK_OFFSET = new Statement<{ offset_ms: string | number }>(
  'test-clock-offset',
  'select offset_ms from test_clock where id = ?',
);

/** How far the service's clock runs ahead (ms): 0 until the test clock first moves. */
export async function readClockOffset(db: Rows): Promise<number> {
  const [row] = await db.rows(CLOCK_OFFSET, [TEST_CLOCK_ID]);
  return row ? Number(row.offset_ms) : 0;
}

/** Keeps this process's clock on the shared record (TEST_CLOCK_ENABLED only): read now, then every `intervalMs`. */
export async function followTestClock(db: Rows, intervalMs = 1000): Promise<{ stop(): void }> {
  setClockOffset(await readClockOffset(db));
  const timer = setInterval(() => {
    readClockOffset(db).then(setClockOffset, () => undefined); // a missed read keeps the last offset; the next one catches up
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
