import { createRegistrationActivities, type RegistrationActivityDeps } from './registration';

export type ActivityDeps = RegistrationActivityDeps;

/** Every activity of the service, built from dependencies that only worker/main.ts (or a test) constructs. */
export const createActivities = (deps: ActivityDeps) => ({
  ...createRegistrationActivities(deps),
});

export type Activities = ReturnType<typeof createActivities>;
