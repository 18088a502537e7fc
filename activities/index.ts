import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';
import { createSignedOperationActivities, type SignedOperationActivityDeps } from './signed-operation';
import { createSwapActivities } from './swap';
import { createSolanaSwapActivities, type SolanaSwapActivityDeps } from './solana-swap';
import { createKeyRotationActivities, type KeyRotationActivityDeps } from './key-rotation';
import { createChargeActivities, type ChargeActivityDeps } from './charge';
import { createPayoutActivities } from './payout';
import { createBankVerificationActivities, type BankVerificationActivityDeps } from './bank-verification';
import { createEmailVerificationActivities, type EmailVerificationActivityDeps } from './email-verification';
import { createWebhookActivities, type WebhookActivityDeps } from './webhooks';
import { createTransferActivities, type TransferActivityDeps } from './transfer';
import { createTransferPreparationActivities } from './transfer-prepare';
import { createCustodyActivities, type CustodyActivityDeps } from './custody';
import { createKycActivities, type KycActivityDeps } from './kyc';
import { createAccountActivities, type AccountActivityDeps } from './account';
import { createSecurityNoticeActivities, type SecurityNoticeActivityDeps } from './security-notice';
import { createSignInActivities, type SignInActivityDeps } from './sign-in';
import { createRecoveryActivities, type RecoveryActivityDeps } from './recovery';
import { createComplianceActivities, createTravelRuleActivities, type ComplianceActivityDeps } from './compliance';
import { createTestClockActivities, type TestClockActivityDeps } from './test-clock';
import { createHousekeepingActivities, type HousekeepingActivityDeps } from './housekeeping';
import { GasSponsor, createGasSponsorshipActivities, type GasSponsorDeps } from './gas-sponsorship';
import { createResidentActivities, type FinalityLooks, type ResidentActivityDeps } from './resident';
import { createFinalityLooks } from './transfer';

type WithGasSponsor<T> = Omit<T, 'gasSponsor'>;
export type ActivityDeps = RegistrationActivityDeps &
  WithGasSponsor<SignedOperationActivityDeps> &
  WithGasSponsor<KeyRotationActivityDeps> &
  ChargeActivityDeps &
  BankVerificationActivityDeps &
  EmailVerificationActivityDeps &
  WebhookActivityDeps &
  WithGasSponsor<TransferActivityDeps> &
  CustodyActivityDeps &
  KycActivityDeps &
  AccountActivityDeps &
  SecurityNoticeActivityDeps &
  SignInActivityDeps &
  RecoveryActivityDeps &
  ComplianceActivityDeps &
  TestClockActivityDeps &
  HousekeepingActivityDeps &
  SolanaSwapActivityDeps &
  GasSponsorDeps &
  Omit<ResidentActivityDeps, 'finalityLooks'>;

/**
 * Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. `looks`: the
 * finality watch's looks at waiting transfers, when the caller holds them too (worker/main.ts hands them to the watch).
 */
export const createActivities = (clients: ActivityDeps, looks: FinalityLooks = createFinalityLooks(clients)) => {
  const deps = { ...clients, gasSponsor: new GasSponsor(clients) };
  const transfers = createTransferActivities(deps, looks);
  const compliance = createComplianceActivities(deps);
  return {
    ...createRegistrationActivities(deps),
    ...createSignedOperationActivities(deps),
    ...createSwapActivities(deps),
    ...createSolanaSwapActivities(deps),
    ...createKeyRotationActivities(deps),
    ...createChargeActivities(deps),
    ...createPayoutActivities(deps),
    ...createBankVerificationActivities(deps),
    ...createEmailVerificationActivities(deps),
    ...createWebhookActivities(deps),
    ...transfers,
    ...createTransferPreparationActivities(deps, compliance, transfers),
    ...createCustodyActivities(deps),
    ...createKycActivities(deps),
    ...createAccountActivities(deps),
    ...createSecurityNoticeActivities(deps),
    ...createSignInActivities(deps),
    ...createRecoveryActivities(deps),
    ...createGasSponsorshipActivities(deps),
    ...compliance,
    ...createTravelRuleActivities(deps),
    ...createTestClockActivities(deps),
    ...createHousekeepingActivities(deps),
    ...createResidentActivities({ ...deps, finalityLooks: async () => looks }),
  };
};

export type Activities = ReturnType<typeof createActivities>;
export { createFinalityLooks };
