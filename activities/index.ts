import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';
import { createDeployActivities, type DeployActivityDeps } from './deploy';
import { createKeyRotationActivities, type KeyRotationActivityDeps } from './key-rotation';
import { createDidKeyActivities, type DidKeyActivityDeps } from './did-key';
import { createChargeActivities, type ChargeActivityDeps } from './charge';
import { createTransferActivities, type TransferActivityDeps } from './transfer';

export type ActivityDeps = RegistrationActivityDeps & DeployActivityDeps & KeyRotationActivityDeps & DidKeyActivityDeps & ChargeActivityDeps & TransferActivityDeps;

/** Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createRegistrationActivities(deps),
  ...createDeployActivities(deps),
  ...createKeyRotationActivities(deps),
  ...createDidKeyActivities(deps),
  ...createChargeActivities(deps),
  ...createTransferActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
