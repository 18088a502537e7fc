import { proxyCapabilityActivities } from './capabilities';
import type { CustodyActivities } from '../activities/custody';
import type { CustodyKeyInput, CustodyKeyOutcome } from './messages';

const custody = proxyCapabilityActivities<CustodyActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5 },
});

/** Creates (once) a key the service holds for a user - an EVM transfer key or a Solana wallet - in the worker. */
export async function custodyKeyWorkflow(input: CustodyKeyInput): Promise<CustodyKeyOutcome> {
  return custody.openCustodyKey(input);
}
