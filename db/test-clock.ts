import type { Orm } from './orm';
import { TestClockEntity } from './entities';
import { setClockOffset } from '../platform/clock';

const ID = 'clock';

/** How far the service's clock runs ahead (ms): 0 until the test clock first moves. */
export async function readClockOffset(orm: Orm): Promise<number> {
  const row = await orm.em.fork().findOne(TestClockEntity, { id: ID });
  return row?.offsetMs ?? 0;
}

/**
 * Moves the service's clock `seconds` ahead, once per `moveId` (a retried move answers the offset it set). Returns
 * the new offset; the caller's process follows it at once, the others within a second (followTestClock).
 */
export async function moveClockForward(orm: Orm, seconds: number, moveId: string): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const row = await em.findOne(TestClockEntity, { id: ID });
    if (row?.lastMoveId === moveId) return row.offsetMs;
    const offsetMs = (row?.offsetMs ?? 0) + seconds * 1000;
    // eslint-disable-next-line no-restricted-syntax -- when the move happened, in real time
    const movedAt = new Date();
    if (row) Object.assign(row, { offsetMs, movedAt, lastMoveId: moveId });
    else em.create(TestClockEntity, { id: ID, offsetMs, movedAt, lastMoveId: moveId });
    return offsetMs;
  });
}

/** Keeps this process's clock on the shared record (TEST_CLOCK_ENABLED only): read now, then every `intervalMs`. */
export async function followTestClock(orm: Orm, intervalMs = 1000): Promise<{ stop(): void }> {
  setClockOffset(await readClockOffset(orm));
  const timer = setInterval(() => {
    readClockOffset(orm).then(setClockOffset, () => undefined); // a missed read keeps the last offset; the next one catches up
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
