import { workflowInfo } from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { TestClockActivities } from '../activities/test-clock';

const activities = proxyCapabilityActivities<TestClockActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/**
 * One move of the test clock (POST /v1/test-clock/advance; TEST_CLOCK_ENABLED only): the service's clock and the
 * local chains' time move `seconds` forward, once, whatever retries it takes. Workflow timers run on Temporal's own
 * clock, which this does not move (docs/operating.md, "The test clock").
 */
export async function testClockMoveWorkflow(input: {
  seconds: number;
}): Promise<{ offsetMs: number; now: string; chains: Record<string, number> }> {
  return activities.moveTestClock({ seconds: input.seconds, moveId: workflowInfo().workflowId });
}
