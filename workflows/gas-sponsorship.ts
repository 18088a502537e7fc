import { proxyCapabilityActivities } from './capabilities';
import type { GasSponsorshipActivities } from '../activities/gas-sponsorship';
import { GasFailure, type GasSponsorshipInput } from './messages';

const sponsor = proxyCapabilityActivities<GasSponsorshipActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 5, nonRetryableErrorTypes: Object.values(GasFailure) },
});

/** Sponsors gas for operations the owner is about to sign: budget check, then paymasterAndData per operation. */
export async function gasSponsorshipWorkflow(input: GasSponsorshipInput): Promise<string[]> {
  return sponsor.sponsorOperations(input);
}
