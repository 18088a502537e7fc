import type { Orm } from './orm';
import { TestClockEntity } from './entities';
import { TEST_CLOCK_ID } from './clock-offset';

/**
 * Moves the service's clock `seconds` ahead, once per `moveId` (a retried move answers the offset it set). Returns
 * the new offset; the caller's process follows it at once, the others within a second (followTestClock).
 */
export async function moveClockForward(orm: Orm, seconds: number, moveId: string): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const row = await em.findOne(TestClockEntity, { id: TEST_CLOCK_ID });
    if (row?.lastMoveId === moveId) return row.offsetMs;
    const offsetMs = (row?.offsetMs ?? 0) + seconds * 1000;
    // eslint-disable-next-line no-restricted-syntax -- when the move happened, in real time
    const movedAt = new Date();
    if (row) Object.assign(row, { offsetMs, movedAt, lastMoveId: moveId });
    else em.create(TestClockEntity, { id: TEST_CLOCK_ID, offsetMs, movedAt, lastMoveId: moveId });
    return offsetMs;
  });
}
