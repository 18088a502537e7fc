import { proxyCapabilityActivities } from './capabilities';
import type { KycActivities } from '../activities/kyc';
import { RECORD_OPTIONS, type BasicInfoInput, type KycRenewalInput, type KycRenewalOutcome } from './messages';

const kyc = proxyCapabilityActivities<Pick<KycActivities, 'recordBasicInfo'>>(RECORD_OPTIONS);
/**
 * The OCR provider is asked with one idempotency key per renewal (a retry is not billed twice); an app waits for the
 * answer, so a provider that stays down fails the renewal within half a minute (503) and nothing changes.
 */
const renewal = proxyCapabilityActivities<Pick<KycActivities, 'renewKyc'>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '8 seconds', maximumAttempts: 5 },
});

/** Records basic KYC information with its verifiable credential, signed in the worker by the issuer's key. */
export async function basicInfoWorkflow(input: BasicInfoInput): Promise<{ vcId: string }> {
  return kyc.recordBasicInfo(input);
}

/**
 * KYC done again by a registered user (periodic customer due diligence, a renewed ID card): the image is read by the
 * OCR provider and compared with the identity verified at registration; a match issues a new KycCredential and
 * revokes the earlier ones (superseded), in one transaction.
 */
export async function kycRenewalWorkflow(input: KycRenewalInput): Promise<KycRenewalOutcome> {
  return renewal.renewKyc(input);
}
