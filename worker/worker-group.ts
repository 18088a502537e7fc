/**
 * The Temporal workers of one process, by WORKER_CAPABILITIES: the workflows' own queue (every workflow, and every
 * activity, so that one scheduled there before capabilities had queues of their own still runs) and one queue per
 * capability (workflows/capabilities.ts: the activities that call one outside system). One connection serves them all.
 */
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { ConfigError } from '../platform/config';
import {
  ACTIVITY_CAPABILITY,
  WORKER_ROLES,
  capabilityTaskQueue,
  type ActivityName,
  type Capability,
  type WorkerRole,
} from '../workflows/capabilities';

/** Every role of the deployment: the default, one process running all. */
export const ALL_WORKER_ROLES: readonly WorkerRole[] = WORKER_ROLES;

/** WORKER_CAPABILITIES as roles, each once, in WORKER_ROLES' order (config validated the names). */
export function workerRoles(setting: string): WorkerRole[] {
  const named = setting.split(',');
  const unknown = named.filter((n) => !(WORKER_ROLES as readonly string[]).includes(n));
  if (unknown.length)
    throw new ConfigError([`WORKER_CAPABILITIES: unknown ${unknown.join(', ')} (known: ${WORKER_ROLES.join(', ')})`]);
  return WORKER_ROLES.filter((role) => named.includes(role));
}

/** The activities of one capability, out of all of them. */
export function activitiesOf<A extends object>(activities: A, capability: Capability): Partial<A> {
  return Object.fromEntries(
    Object.entries(activities).filter(([name]) => ACTIVITY_CAPABILITY[name as ActivityName] === capability),
  ) as Partial<A>;
}

export interface GroupMember {
  role: WorkerRole;
  taskQueue: string;
  worker: Worker;
}

/** Runs and stops the workers together: one that fails stops the others, and the failure is the group's. */
export class WorkerGroup {
  constructor(readonly members: readonly GroupMember[]) {}

  get taskQueues(): string[] {
    return this.members.map((m) => m.taskQueue);
  }

  async run(): Promise<void> {
    const runs = this.members.map(({ worker }) => worker.run());
    try {
      await Promise.all(runs);
    } catch (error) {
      this.shutdown();
      await Promise.allSettled(runs);
      throw error;
    }
  }

  /** Asks every running worker to stop (each finishes or cancels its tasks within its shutdownGraceTime). */
  shutdown(): void {
    for (const { worker } of this.members) if (worker.getState() === 'RUNNING') worker.shutdown();
  }
}

/**
 * Creates the workers of `roles` on `options.taskQueue` (the workflows' queue) and the capabilities' queues beside it.
 * `options` holds what every member shares (connection, namespace, data converter, interceptors, the workflows'
 * bundle); the workflows' member alone gets the workflows, each capability's member only its own activities.
 */
export async function createWorkerGroup(
  options: Omit<WorkerOptions, 'activities'> & { taskQueue: string; activities: object },
  roles: readonly WorkerRole[],
): Promise<WorkerGroup> {
  if (roles.length === 0) throw new ConfigError(['WORKER_CAPABILITIES names nothing to run']);
  const { workflowBundle, workflowsPath, bundlerOptions, activities, ...shared } = options;
  const members: GroupMember[] = [];
  for (const role of roles) {
    if (role === 'workflows') {
      members.push({
        role,
        taskQueue: options.taskQueue,
        worker: await Worker.create({
          ...shared,
          ...(workflowBundle ? { workflowBundle } : {}),
          ...(workflowsPath ? { workflowsPath } : {}),
          ...(bundlerOptions ? { bundlerOptions } : {}),
          activities,
        }),
      });
    } else {
      const own = activitiesOf(activities, role);
      // A test's stubs may hold none of a capability's activities: nothing to poll its queue for.
      if (Object.keys(own).length === 0) continue;
      const taskQueue = capabilityTaskQueue(options.taskQueue, role);
      members.push({ role, taskQueue, worker: await Worker.create({ ...shared, taskQueue, activities: own }) });
    }
  }
  if (members.length === 0)
    throw new ConfigError([`WORKER_CAPABILITIES ${roles.join(',')}: none of its activities is here`]);
  return new WorkerGroup(members);
}
