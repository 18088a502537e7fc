import { defineRoute, type RouteSpec } from '../http/route-table';
import type { TestClockService } from './service';
import * as S from './schemas';

const TAGS = ['Test clock'];

/** The test clock, for operators of the embedded stack and tests (docs/operating.md, "The test clock"). */
export function testClockRoutes({ testClock }: { testClock: TestClockService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/test-clock',
      operationId: 'getTestClock',
      tags: TAGS,
      auth: 'operator',
      summary:
        "The service's clock: whether the test clock is on, the time its business rules read, and how far it was moved",
      description:
        'Answers wherever the service runs, also with the test clock off (`enabled: false`, `offsetSeconds` 0, ' +
        '`now` the system time); moving it (POST /v1/test-clock/advance) answers 409 there. `now` comes from the ' +
        'record every API and worker process follows within a second; workflow timers still run on the clock of ' +
        'the Temporal server, whatever it says.',
      responses: { 200: { description: 'The clock', schema: S.TestClockView } },
      handler: async () => ({ status: 200, body: await testClock.state() }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/test-clock/advance',
      operationId: 'advanceTestClock',
      tags: TAGS,
      auth: 'operator',
      summary: 'Move the service clock and the local chains forward (TEST_CLOCK_ENABLED only; never in production)',
      description:
        "Korean-day limits, recipient cooling-off, new-device and new-passkey holds, code and link expiries read the moved clock at once; the local EVM chains' next block carries the moved time. Workflow timers keep Temporal's own time.",
      body: S.AdvanceBody,
      // A retried move (same Idempotency-Key) answers the first one's result: the clock moves once.
      idempotency: { required: false, scope: ({ operator }) => `test-clock:${operator}` },
      responses: {
        200: { description: 'Moved', schema: S.TestClockMoved },
        409: { description: 'The test clock is off (test-clock-disabled)' },
      },
      handler: async ({ body, operator }, ctx) => ({
        status: 200,
        body: await testClock.advance(body.seconds, operator, ctx.get('idempotency-key') || undefined),
      }),
    }),
  ];
}
