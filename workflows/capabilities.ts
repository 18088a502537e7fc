/**
 * The worker's capabilities: which task queue each activity is scheduled on, so that a deployment can run the
 * activities that call one outside system (the chains, the bank, mail and credentials, compliance's providers) in
 * worker processes of their own (WORKER_CAPABILITIES, docs/production.md), apart from the workflows.
 *
 * A capability's activities go to `<the workflow's task queue>-<capability>`; the activities that only read and write
 * our database (`core`) and every local activity stay on the workflow's own queue. Every worker that runs workflows
 * also registers every activity on that queue, so an activity scheduled there before this file existed (or by a
 * history recorded before it, on replay: the SDK matches a scheduled activity by its id and type, not its queue) is
 * still run. The map is a workflow module's constant: no imports but types, as workflow code requires.
 */
// eslint-disable-next-line @typescript-eslint/no-restricted-imports -- the one place activities are proxied
import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';

/** The outside systems whose activities may run in workers of their own. */
export const CAPABILITIES = ['chains', 'bank', 'messaging', 'compliance'] as const;
export type Capability = (typeof CAPABILITIES)[number];
/** What a worker process may be started for (WORKER_CAPABILITIES): the workflows (with `core`), or a capability. */
export const WORKER_ROLES = ['workflows', ...CAPABILITIES] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

export type ActivityName = keyof Activities;

/**
 * Where each activity runs. `chains`: EVM and Solana nodes, the bundlers, the paymaster and server-held keys;
 * `bank`: the bank's open-banking API; `messaging`: mail, app webhooks and the verifiable credentials we sign;
 * `compliance`: sanctions screening and the list's download, the Travel Rule's providers, eKYC's OCR and ID checks;
 * `core`: our database only, and the local activities (prepareTransfer, signTransfer, screenTransferRecipient,
 * finishTransfer), which always run in the worker of the workflow that asks for them. sendTransfer is `chains` as the
 * activity of a transfer of version 4, and runs in the workflow's worker as the local activity of version 5.
 */
export const ACTIVITY_CAPABILITY = {
  // registration
  recordPassResult: 'core',
  bindRegistrationToDevice: 'core',
  runIdCardOcr: 'compliance',
  recordRegistrationStep: 'core',
  storeWalletBackup: 'core',
  createUserFromRegistration: 'messaging',
  closeRegistration: 'core',
  // signed operations: deployment, DID key, transfer key, swap, account upgrade, recovery cancel
  recordOperationStalled: 'core',
  recordOperationReplaced: 'core',
  submitDeployment: 'chains',
  completeDeployment: 'core',
  failDeployment: 'core',
  submitDidKey: 'chains',
  finishDidKey: 'core',
  submitTransferKeyChange: 'chains',
  submitSwap: 'chains',
  finishTransferKeyChange: 'core',
  submitAccountUpgrade: 'chains',
  finishAccountUpgrade: 'core',
  submitRecoveryCancel: 'chains',
  finishRecoveryCancel: 'core',
  simulateSwap: 'chains',
  finishSwap: 'core',
  signSolanaSwap: 'chains',
  sendSolanaSwap: 'chains',
  failSolanaSwap: 'core',
  // key rotation
  submitNetworkRotation: 'chains',
  recordNetworkRotation: 'core',
  recordNetworkStalled: 'core',
  recordKeyRotationStatus: 'core',
  // money in and out at the bank
  requestWithdrawal: 'bank',
  pollWithdrawal: 'bank',
  holdChargeForReview: 'core',
  creditCharge: 'core',
  refundCharge: 'bank',
  failCharge: 'core',
  payoutAtBank: 'bank',
  decidePayout: 'core',
  holdPayoutForReview: 'core',
  settlePayout: 'core',
  payoutLandings: 'bank',
  recordExtraPayment: 'core',
  reversePayout: 'bank',
  sendVerificationDeposit: 'bank',
  // mail and webhooks
  sendVerificationEmail: 'messaging',
  nextWebhookEvents: 'core',
  deliverWebhookEvent: 'messaging',
  disableWebhookEndpoint: 'core',
  // transfers (signTransfer is a local activity in today's transfers; older ones scheduled it on a queue)
  signTransfer: 'chains',
  submitTransfer: 'chains',
  awaitFinality: 'chains',
  watchFinality: 'chains',
  transferReorged: 'core',
  recordTransferNeedsReview: 'core',
  transferMaybeSent: 'core',
  finishTransfer: 'core',
  prepareTransfer: 'core',
  sendTransfer: 'chains',
  openCustodyKey: 'chains',
  // eKYC, the account, sign-in, recovery
  recordBasicInfo: 'core',
  renewKyc: 'compliance',
  closeAccount: 'core',
  revokeCredential: 'messaging',
  committedSecurityEvent: 'core',
  mailSecurityNotice: 'messaging',
  recordSignIn: 'core',
  checkSignInIdCard: 'compliance',
  completeSignIn: 'core',
  closeSignIn: 'core',
  scheduleRecoveryNetworks: 'chains',
  checkRecoveryCancellations: 'chains',
  executeRecoveryNetworks: 'chains',
  finishRecovery: 'core',
  sponsorOperations: 'chains',
  // compliance
  refreshSanctionsList: 'compliance',
  openReviewCase: 'core',
  releaseHeldTransfer: 'core',
  screenTransferRecipient: 'compliance',
  codeMemberKeys: 'compliance',
  sendTravelRuleInquiry: 'compliance',
  confirmTravelRuleTransfer: 'compliance',
  answerTravelRuleInquiry: 'compliance',
  recordTravelRuleOutcome: 'core',
  // the service's own upkeep
  moveTestClock: 'core',
  deleteExpiredChallenges: 'core',
  unstartedPayoutCandidates: 'core',
  unstartedPayoutPage: 'core',
  unstartedTransferCandidates: 'core',
  failUnstartedTransfer: 'core',
} as const satisfies Record<ActivityName, Capability | 'core'>;

/** The task queue of a capability's activities, beside the workflows' queue. */
export function capabilityTaskQueue(workflowQueue: string, capability: Capability): string {
  return `${workflowQueue}-${capability}`;
}

/**
 * `proxyActivities` that schedules each activity on its capability's queue (ACTIVITY_CAPABILITY), read when the
 * activity is called: the queue is the running workflow's own, with the capability after it.
 */
export function proxyCapabilityActivities<A extends object>(options: ActivityOptions): A {
  return new Proxy({} as A, {
    get(_target, name) {
      if (typeof name !== 'string') return undefined;
      const capability: Capability | 'core' = ACTIVITY_CAPABILITY[name as ActivityName] ?? 'core';
      return (...args: unknown[]) => {
        const scheduled =
          capability === 'core'
            ? options
            : { ...options, taskQueue: capabilityTaskQueue(workflowInfo().taskQueue, capability) };
        return proxyActivities<Record<string, (...a: unknown[]) => Promise<unknown>>>(scheduled)[name]!(...args);
      };
    },
  });
}
