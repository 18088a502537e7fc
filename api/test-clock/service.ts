import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { readClockOffset } from '../../db/clock-offset';
import { ormResidentDatabase } from '../../db/sql';
import { clock, setClockOffset } from '../../platform/clock';
import { testClockMoveWorkflow } from '../../workflows/test-clock';
import { problems } from '../http/problems';

export interface TestClockServiceDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  enabled: boolean;
}

/**
 * The test clock (TEST_CLOCK_ENABLED, refused in production): an operator moves the service's clock and the local
 * chains forward, to see a Korean-day limit reset, a cooling-off end or a hold expire in seconds. The move runs as a
 * workflow (its side effects, the chains', are the worker's); this process follows at once, the others within a second.
 */
export class TestClockService {
  constructor(private readonly deps: TestClockServiceDeps) {}

  async state() {
    const offsetMs = this.deps.enabled ? await readClockOffset(ormResidentDatabase(this.deps.orm)) : 0;
    // The shared record, fresher than this process's copy of it.
    // eslint-disable-next-line no-restricted-syntax -- the system's time plus the recorded offset
    const now = new Date(Date.now() + offsetMs);
    return {
      enabled: this.deps.enabled,
      now: now.toISOString(),
      offsetSeconds: offsetMs / 1000,
    };
  }

  /** With an Idempotency-Key, the move's workflow id follows it: a retry finds the same move (it moved once). */
  async advance(seconds: number, operator: string, idempotencyKey?: string) {
    if (!this.deps.enabled)
      throw problems.conflict(
        'test-clock-disabled',
        'The test clock is off (TEST_CLOCK_ENABLED); it never runs in production',
      );
    const moved = await this.deps.temporal.workflow.execute(testClockMoveWorkflow, {
      workflowId: `test-clock-move-by-${operator}-${idempotencyKey?.toLowerCase() ?? randomUUID()}`,
      workflowIdConflictPolicy: 'USE_EXISTING',
      taskQueue: this.deps.taskQueue,
      args: [{ seconds }],
    });
    setClockOffset(Math.max(clock.offsetMs(), moved.offsetMs));
    return { now: moved.now, offsetSeconds: moved.offsetMs / 1000, chains: moved.chains };
  }
}
