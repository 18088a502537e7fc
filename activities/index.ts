import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';
import { createDeployActivities, type DeployActivityDeps } from './deploy';
import { createKeyRotationActivities, type KeyRotationActivityDeps } from './key-rotation';

export type ActivityDeps = RegistrationActivityDeps & DeployActivityDeps & KeyRotationActivityDeps;

/** Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createRegistrationActivities(deps),
  ...createDeployActivities(deps),
  ...createKeyRotationActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
