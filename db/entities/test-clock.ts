import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * The test clock's one record (id `clock`): how far the service's clock runs ahead of the system's. Only the test
 * clock writes it (TEST_CLOCK_ENABLED, refused in production); every API and worker process follows it.
 */
export const TestClockEntity = defineEntity({
  name: 'TestClock',
  tableName: 'test_clock',
  properties: (p) => ({
    id: p.string().primary().length(16),
    offsetMs: p.bigint('number'),
    movedAt: p.datetime(),
    /** The move that set it (a retried move is not applied twice). */
    lastMoveId: p.string().length(128).nullable(),
  }),
});
export type TestClock = InferEntity<typeof TestClockEntity>;
