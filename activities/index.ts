import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';
import { createDeployActivities, type DeployActivityDeps } from './deploy';
import { createKeyRotationActivities, type KeyRotationActivityDeps } from './key-rotation';
import { createDidKeyActivities, type DidKeyActivityDeps } from './did-key';
import { createChargeActivities, type ChargeActivityDeps } from './charge';
import { createBankVerificationActivities, type BankVerificationActivityDeps } from './bank-verification';
import { createTransferActivities, type TransferActivityDeps } from './transfer';
import { createCustodyActivities, type CustodyActivityDeps } from './custody';
import { createKycActivities, type KycActivityDeps } from './kyc';

export type ActivityDeps = RegistrationActivityDeps & DeployActivityDeps & KeyRotationActivityDeps & DidKeyActivityDeps & ChargeActivityDeps
  & BankVerificationActivityDeps & TransferActivityDeps & CustodyActivityDeps & KycActivityDeps;

/** Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createRegistrationActivities(deps),
  ...createDeployActivities(deps),
  ...createKeyRotationActivities(deps),
  ...createDidKeyActivities(deps),
  ...createChargeActivities(deps),
  ...createBankVerificationActivities(deps),
  ...createTransferActivities(deps),
  ...createCustodyActivities(deps),
  ...createKycActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
