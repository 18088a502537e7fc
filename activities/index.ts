import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';
import { createDeployActivities, type DeployActivityDeps } from './deploy';

export type ActivityDeps = RegistrationActivityDeps & DeployActivityDeps;

/** Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createRegistrationActivities(deps),
  ...createDeployActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
