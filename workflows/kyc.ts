import { proxyActivities } from '@temporalio/workflow';
import type { KycActivities } from '../activities/kyc';
import { RECORD_OPTIONS, type BasicInfoInput } from './messages';

const kyc = proxyActivities<KycActivities>(RECORD_OPTIONS);

/** Records basic KYC information with its verifiable credential, signed in the worker by the issuer's key. */
export async function basicInfoWorkflow(input: BasicInfoInput): Promise<{ vcId: string }> {
  return kyc.recordBasicInfo(input);
}
