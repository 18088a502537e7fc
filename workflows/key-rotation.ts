import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  executeChild,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { KeyRotationActivities } from '../activities/key-rotation';
import {
  CHAIN_SUBMISSION_TIMEOUTS,
  ChainFailure,
  KeyRotationFailure,
  NetworkIdSA,
  UserIdSA,
  networkRotationWorkflowId,
  retryNetworkRotationUpdate,
  type KeyRotationInput,
  type KeyRotationOutcome,
  type NetworkRotationInput,
  type NetworkRotationOutcome,
} from './messages';

const MAX_NETWORK_ATTEMPTS = 10;

const chain = proxyCapabilityActivities<Pick<KeyRotationActivities, 'submitNetworkRotation'>>({
  ...CHAIN_SUBMISSION_TIMEOUTS,
  // A network whose RPC stays down fails after a bounded effort; the user can retry it later (retryable: true).
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: Object.values(ChainFailure),
  },
});
const storage = proxyCapabilityActivities<
  Pick<KeyRotationActivities, 'recordNetworkRotation' | 'recordNetworkStalled' | 'recordKeyRotationStatus'>
>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 20 },
});

/** Child: rotates the owner key of the user's account on one network. */
export async function networkKeyRotationWorkflow(input: NetworkRotationInput): Promise<NetworkRotationOutcome> {
  upsertSearchAttributes([{ key: NetworkIdSA, value: input.networkId }]);
  await storage.recordNetworkRotation({ ...input, status: 'processing' });
  try {
    let reported = false;
    let submitted = await chain.submitNetworkRotation(input);
    // Stalled (the chain asks more than the operation's fee cap): watched until it lands or a new rotation of this
    // network takes its place (its sponsorship expiring ends it as refused).
    while ('stalled' in submitted) {
      if (!reported) await storage.recordNetworkStalled({ ...input, ...submitted.stalled });
      reported = true;
      await sleep('30 seconds');
      submitted = await chain.submitNetworkRotation(input);
    }
    if ('replacedBy' in submitted) {
      const error = `replaced by key rotation ${submitted.replacedBy}, which rotates this network on the same nonce`;
      await storage.recordNetworkRotation({ ...input, status: 'failed', error, retryable: false });
      return { networkId: input.networkId, status: 'failed', error, retryable: false };
    }
    const { txHash } = submitted;
    await storage.recordNetworkRotation({ ...input, status: 'completed', txHash });
    return { networkId: input.networkId, status: 'completed', txHash: txHash ?? undefined, retryable: false };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    const retryable = !(cause instanceof ApplicationFailure && cause.nonRetryable);
    const message = cause?.message ?? error.message;
    await storage.recordNetworkRotation({ ...input, status: 'failed', error: message, retryable });
    return { networkId: input.networkId, status: 'failed', error: message, retryable };
  }
}

/**
 * One key rotation over several networks: a child per network, all in parallel. After a partial failure the task
 * stays open for `retryWindowSeconds`, so a retryable network can be run again without touching the others.
 */
export async function keyRotationWorkflow(input: KeyRotationInput): Promise<KeyRotationOutcome> {
  upsertSearchAttributes([{ key: UserIdSA, value: input.userId }]);
  const outcomes = new Map<string, NetworkRotationOutcome>();
  const attempts = new Map<string, number>();
  const inFlight = new Set<string>();
  let running = 0;

  const rotate = async (networkId: string): Promise<void> => {
    const attempt = (attempts.get(networkId) ?? 0) + 1;
    attempts.set(networkId, attempt);
    inFlight.add(networkId);
    running += 1;
    try {
      outcomes.set(
        networkId,
        await executeChild(networkKeyRotationWorkflow, {
          workflowId: networkRotationWorkflowId(input.taskId, networkId, attempt),
          args: [{ taskId: input.taskId, networkId }],
          taskQueue: workflowInfo().taskQueue,
        }),
      );
    } finally {
      inFlight.delete(networkId);
      running -= 1;
    }
  };

  setHandler(
    retryNetworkRotationUpdate,
    async (networkId) => {
      void rotate(networkId);
      return { accepted: true as const };
    },
    {
      validator: (networkId) => {
        const outcome = outcomes.get(networkId);
        if (!outcome)
          throw ApplicationFailure.create({
            type: KeyRotationFailure.NetworkNotInRotation,
            message: `${networkId} is not part of this rotation`,
            nonRetryable: true,
          });
        if (outcome.status !== 'failed' || !outcome.retryable) {
          throw ApplicationFailure.create({
            type: 'NetworkNotRetryable',
            message: `${networkId} is ${outcome.status}${outcome.status === 'failed' ? ' and cannot be retried' : ''}`,
            nonRetryable: true,
          });
        }
        if (inFlight.has(networkId)) {
          throw ApplicationFailure.create({
            type: 'NetworkNotRetryable',
            message: `${networkId} is being retried already`,
            nonRetryable: true,
          });
        }
        if ((attempts.get(networkId) ?? 0) >= MAX_NETWORK_ATTEMPTS) {
          throw ApplicationFailure.create({
            type: 'NetworkNotRetryable',
            message: `${networkId} was tried ${MAX_NETWORK_ATTEMPTS} times`,
            nonRetryable: true,
          });
        }
      },
    },
  );

  await Promise.all(input.networkIds.map((networkId) => rotate(networkId)));
  for (;;) {
    await condition(() => running === 0);
    const networks = input.networkIds.map((id) => outcomes.get(id)!);
    const status = networks.every((n) => n.status === 'completed') ? 'completed' : 'partial_failure';
    await storage.recordKeyRotationStatus({ taskId: input.taskId, status });
    if (status === 'completed') return { status, networks };
    const retried = await condition(() => running > 0, `${input.retryWindowSeconds} seconds`);
    if (!retried) return { status, networks };
  }
}
