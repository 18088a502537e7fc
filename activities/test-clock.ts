import type { Orm } from '../db/orm';
import { moveClockForward } from '../db/test-clock';
import { clock, setClockOffset } from '../platform/clock';
import type { NetworkRegistry } from '../platform/networks';
import type { ChainProviders } from '../integrations/evm/smart-account';

export interface TestClockActivityDeps {
  orm: Orm;
  networks: NetworkRegistry;
  providers: ChainProviders;
  /** TEST_CLOCK_ENABLED: without it the activity refuses (production never moves its clock). */
  testClockEnabled: boolean;
}

/**
 * The test clock's one side effect: the service's clock moves forward (the shared record, then this process), and
 * each local EVM chain's next block carries the moved time (anvil: evm_setNextBlockTimestamp, then a block), so what
 * the chain measures (the recovery time lock, the transfer key's day) moves with it. Idempotent per move: a retry
 * sets the same offset and the same (or a later) chain time.
 */
export function createTestClockActivities(deps: TestClockActivityDeps) {
  return {
    async moveTestClock(input: {
      seconds: number;
      moveId: string;
    }): Promise<{ offsetMs: number; now: string; chains: Record<string, number> }> {
      if (!deps.testClockEnabled) throw new Error('the test clock is off (TEST_CLOCK_ENABLED)');
      const offsetMs = await moveClockForward(deps.orm, input.seconds, input.moveId);
      setClockOffset(offsetMs);
      const target = Math.floor(clock.now() / 1000);
      const chains: Record<string, number> = {};
      for (const networkId of deps.networks.evmIds()) {
        const provider = deps.providers.for(deps.networks.get(networkId)!);
        const latest = await provider.getBlock('latest');
        const next = Math.max(target, (latest?.timestamp ?? 0) + 1);
        await provider.send('evm_setNextBlockTimestamp', [next]);
        await provider.send('evm_mine', []);
        chains[networkId] = next;
      }
      return { offsetMs, now: clock.date().toISOString(), chains };
    },
  };
}

export type TestClockActivities = ReturnType<typeof createTestClockActivities>;
