import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { defineSearchAttributeKey, SearchAttributeType, type ActivityOptions } from '@temporalio/common';
import { ChainFailure } from '../platform/failures';

export {
  BankFailure,
  ChainFailure,
  ChargeFailure,
  GasFailure,
  KeyRotationFailure,
  PROVIDER_REJECTED,
  PROVIDER_UNAVAILABLE,
  RegistrationFailure,
  SignInFailure,
  TransferFailure,
} from '../platform/failures';

/** Shared message definitions and input/output types: imported by the workflow, the API client and tests. */

export const REGISTRATION_STEPS = ['pass', 'ekyc', 'backup', 'completed'] as const;
export type RegistrationStep = (typeof REGISTRATION_STEPS)[number];

export interface StepDescriptor {
  step: RegistrationStep;
  required: boolean;
  order: number;
}
export const ALL_REGISTRATION_STEPS: StepDescriptor[] = [
  { step: 'pass', required: true, order: 1 },
  { step: 'ekyc', required: true, order: 2 },
  { step: 'backup', required: true, order: 3 },
  { step: 'completed', required: true, order: 4 },
];

export interface PassResult {
  passRequestId: string;
  success: boolean;
  ci?: string;
  di?: string;
  name?: string;
  birthDate?: string;
  gender?: string;
  nationality?: string;
  phone?: string;
}

export interface RegistrationInput {
  regId: string;
  passRequestId: string;
  ttlSeconds: number;
  passResultWaitSeconds: number;
}
export interface RegistrationOutcome {
  status: 'completed' | 'expired' | 'failed';
  userId?: string;
}

export interface StartRegistrationRequest {
  deviceId: string;
  passTokenHash: string;
  passTokenExpiresAt: string;
}
export interface StartRegistrationResponse {
  regId: string;
  step: RegistrationStep;
  passInfo: { name: string; phone: string };
  allSteps: StepDescriptor[];
  passTokenExpiresAt: string;
}

export interface SubmitEkycRequest {
  uploadRef: string;
  idCardType: string;
}
export interface SubmitEkycResponse {
  step: RegistrationStep;
  ocrResult: { name: string; birthDate: string; verified: boolean };
}

export interface SubmitBackupRequest {
  encryptedMnemonic: string;
  encryptedDerivationPaths: string;
  encryptionMethod: string;
}
export interface SubmitBackupResponse {
  step: RegistrationStep;
  backupId: string;
}

export interface RegistrationState {
  regId: string;
  step: RegistrationStep;
  status: 'in_progress' | RegistrationOutcome['status'];
}

/** Fire-and-forget: the identity provider's callback (may arrive before or after the app's start call). */
export const passResultSignal = defineSignal<[PassResult]>('passResult');
export const startRegistrationUpdate = defineUpdate<StartRegistrationResponse, [StartRegistrationRequest]>(
  'startRegistration',
);
export const submitEkycUpdate = defineUpdate<SubmitEkycResponse, [SubmitEkycRequest]>('submitEkyc');
export const submitBackupUpdate = defineUpdate<SubmitBackupResponse, [SubmitBackupRequest]>('submitBackup');
export const registrationStateQuery = defineQuery<RegistrationState>('registrationState');

/**
 * Sign-in on a new device (workflow sign-in-<signInId>): identity verified again, then a second proof, then tokens.
 * The same workflow runs a step-up identity check on a signed-in device (`stepUp`): the person verified again for one
 * sensitive request, with the ID card too where that request can lose the account; no token comes of it.
 */
export type SignInProof = 'passkey' | 'id_card' | 'identity';
export interface SignInInput {
  signInId: string;
  passRequestId: string;
  ttlSeconds: number;
  passResultWaitSeconds: number;
  maxIdCardAttempts: number;
}
export interface SignInOutcome {
  status: 'completed' | 'expired' | 'failed';
  method?: SignInProof;
}
/** What a step-up identity check approves: whose account, the request (canonical JSON), and whether the ID card too. */
export interface StepUpIdentityRequest {
  userId: string;
  request: string;
  idCard: boolean;
  /** The identity provider's result must have arrived at most this long before the check starts. */
  maxResultAgeSeconds: number;
}
export interface StartSignInRequest {
  deviceId: string;
  deviceLabel: string | null;
  passTokenHash: string;
  passTokenExpiresAt: string;
  /** A step-up identity check instead of a sign-in. */
  stepUp?: StepUpIdentityRequest;
}
export interface StartSignInResponse {
  signInId: string;
  /** A step-up identity check that needs no ID card is completed at once. */
  status: 'in_progress' | 'completed';
  proofs: SignInProof[];
  passTokenExpiresAt: string;
}
export interface IdCardProofRequest {
  uploadRef: string;
  idCardType: string;
}
export interface PasskeyProofRequest {
  passkeyId: string;
}
export interface SignInProofResponse {
  signInId: string;
  status: 'completed';
  method: SignInProof;
}
export interface SignInState {
  signInId: string;
  status: 'in_progress' | SignInOutcome['status'];
  method: SignInProof | null;
  idCardAttemptsLeft: number;
}
export const startSignInUpdate = defineUpdate<StartSignInResponse, [StartSignInRequest]>('startSignIn');
export const idCardProofUpdate = defineUpdate<SignInProofResponse, [IdCardProofRequest]>('proveWithIdCard');
export const passkeyProofUpdate = defineUpdate<SignInProofResponse, [PasskeyProofRequest]>('proveWithPasskey');
export const signInStateQuery = defineQuery<SignInState>('signInState');
export const signInWorkflowId = (signInId: string): string => `sign-in-${signInId}`;
/** The owner key of a sign-in's card images (uploads.reg_id). */
export const signInUploadOwner = (signInId: string): string => `sign-in:${signInId}`;

/** Recovery of the owner key with a time lock (workflow account-recovery-<recoveryId>). */
export interface AccountRecoveryInput {
  recoveryId: string;
  userId: string;
  pollSeconds: number;
}
export interface AccountRecoveryOutcome {
  status: 'executed' | 'cancelled' | 'partial' | 'failed';
}
/** "Look on chain now": sent when the owner's cancellation through the API has landed. */
export const recoveryCheckSignal = defineSignal('checkRecovery');
export const accountRecoveryWorkflowId = (recoveryId: string): string => `account-recovery-${recoveryId}`;
export const accountUpgradeWorkflowId = (opId: string): string => `account-upgrade-${opId}`;
export const recoveryCancelWorkflowId = (opId: string): string => `recovery-cancel-${opId}`;
export interface RecoveryCancelInput {
  opId: string;
  userId: string;
  networkId: string;
  recoveryId: string;
}

export interface DeployInput {
  jobId: string;
  userId: string;
  networkId: string;
}
export interface DeployOutcome {
  status: 'completed' | 'failed' | 'replaced';
  txHash?: string;
  error?: string;
  /** `replaced`: the operation the owner signed again on the same nonce, which took this one's place. */
  replacedBy?: string;
}

/** What one submission of an owner-signed operation came to (see submitOnce). */
export type SignedSubmission =
  | { txHash: string | null }
  | { stalled: { reason: 'fees-rose'; maxFeePerGas: string; baseFeePerGas: string } }
  | { replacedBy: string };

export interface KeyRotationInput {
  taskId: string;
  userId: string;
  networkIds: string[];
  retryWindowSeconds: number;
}
export interface NetworkRotationInput {
  taskId: string;
  networkId: string;
}
export interface NetworkRotationOutcome {
  networkId: string;
  status: 'completed' | 'failed';
  txHash?: string;
  error?: string;
  retryable: boolean;
}
export interface KeyRotationOutcome {
  status: 'completed' | 'partial_failure';
  networks: NetworkRotationOutcome[];
}

/** Re-runs one failed network of a key rotation (only when its failure was retryable). */
export const retryNetworkRotationUpdate = defineUpdate<{ accepted: true }, [string]>('retryNetworkRotation');

export const keyRotationWorkflowId = (taskId: string): string => `key-rotation-${taskId}`;
export const networkRotationWorkflowId = (taskId: string, networkId: string, attempt: number): string =>
  `key-rotation-${taskId}-${networkId}${attempt > 1 ? `-retry${attempt - 1}` : ''}`;

export interface DidKeyInput {
  opId: string;
  userId: string;
  networkId: string;
}
export const didKeyWorkflowId = (opId: string): string => `did-key-${opId}`;

export const deployWorkflowId = (userId: string, networkId: string, jobId: string): string =>
  `deploy-${userId}-${networkId}-${jobId}`;

export const RegistrationStepSA = defineSearchAttributeKey('RegistrationStep', SearchAttributeType.KEYWORD);
export const UserIdSA = defineSearchAttributeKey('UserId', SearchAttributeType.KEYWORD);
export const NetworkIdSA = defineSearchAttributeKey('NetworkId', SearchAttributeType.KEYWORD);
/** Set (to the reason) while a workflow waits for an operator's eyes: `NeedsReview IS NOT NULL` lists them all. */
export const NeedsReviewSA = defineSearchAttributeKey('NeedsReview', SearchAttributeType.KEYWORD);
/** Every custom search attribute the service uses, for the dev server flags and the production setup. */
export const SEARCH_ATTRIBUTES = [RegistrationStepSA, UserIdSA, NetworkIdSA, NeedsReviewSA];

export const registrationWorkflowId = (regId: string): string => `registration-${regId}`;

/**
 * Timeouts of the activities that submit user operations. They heartbeat every 2 s, so a worker that died is noticed
 * after the heartbeat timeout and the submission retried elsewhere (finding the transaction it recorded).
 */
export const CHAIN_SUBMISSION_TIMEOUTS = { startToCloseTimeout: '3 minutes', heartbeatTimeout: '10 seconds' } as const;

/** Activity options of a single-operation submission (deploy, DID key, transfer): an RPC that is down or slow is retried; a rejected operation is final. */
export const CHAIN_SUBMISSION_OPTIONS: ActivityOptions = {
  ...CHAIN_SUBMISSION_TIMEOUTS,
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 30,
    nonRetryableErrorTypes: Object.values(ChainFailure),
  },
};
/** Activity options of the database steps that record a chain workflow's outcome. */
export const RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumAttempts: 20 },
};

// ---- charges
export interface ChargeInput {
  chargeId: string;
  userId: string;
}
export interface ChargeOutcome {
  status: 'completed' | 'failed' | 'needs_review';
  reason?: string;
}
/**
 * The bank's answer about a withdrawal: by webhook (signal) or by polling. `unknown`: a status the bank does not
 * document or an answer that is not a withdrawal; the charge then waits for review and is never credited on it.
 */
export interface WithdrawalSettlement {
  status: 'pending' | 'completed' | 'rejected' | 'unknown';
  reason: string | null;
}
export const withdrawalSettledSignal = defineSignal<[WithdrawalSettlement]>('withdrawalSettled');
export const chargeWorkflowId = (chargeId: string): string => `charge-${chargeId}`;

// ---- payouts
/** A payout of won from the user's balance to their own verified bank account: payout-<payoutId>. */
export interface PayoutInput {
  payoutId: string;
  userId: string;
  /** What a run that continued as new carries over (a payout in review for long). */
  carried?: { review?: string; decided?: boolean; decision?: PayoutDecision };
}
export interface PayoutOutcome {
  status: 'completed' | 'failed';
  reason?: string;
}
/**
 * What the bank says of a payout's deposit. `pending`: not known yet (asked again with growing waits); `unknown`: an
 * answer it does not document (held for an operator meanwhile); `not_received`: the centre has no record of the send
 * past BANK_NOT_RECEIVED_AFTER_SECONDS, and a payout is never sent again on its own (an operator decides);
 * `reversed`: an operator's reversal, done.
 */
export interface PayoutSettlement {
  status: 'pending' | 'completed' | 'rejected' | 'unknown' | 'not_received' | 'reversed';
  reason: string | null;
  /** The bank's own code of a refusal. */
  code?: string | null;
  /** Completed, and paid this many more times than once (two sends that both landed): recorded for an operator. */
  extraPaid?: number;
}
/**
 * An operator's decision on a payout the centre has no record of (POST /v1/payouts/{payoutId}/decision): `resend`
 * sends it again under a new bank_tran_id, `reverse` gives the amount back to the balance. Either is taken only if the
 * centre, asked again at that moment, still has no record of the first send.
 */
export interface PayoutDecision {
  action: 'resend' | 'reverse';
  reason: string;
  decidedBy: string;
  /** The bank_tran_id the operator decided on: a decision is taken only while the payout's current id is still it. */
  bankTranId: string;
}
export const payoutDecisionSignal = defineSignal<[PayoutDecision]>('payoutDecision');
export const payoutWorkflowId = (payoutId: string): string => `payout-${payoutId}`;
/**
 * After an operator's decision ended a payout (sent again, or given back), the ids it was sent under are watched for a
 * send that lands late, as long as the centre can still find it: payout-watch-<payoutId>.
 */
export const payoutWatchWorkflowId = (payoutId: string): string => `payout-watch-${payoutId}`;
/** What the bank paid of a payout, against what the ledger says it paid (1 completed, 0 otherwise). */
export interface PayoutLandings {
  paid: number;
  expected: number;
}

// ---- crypto transfers
/** The transfer workflow's version the API starts transfers for (see `step` in workflows/transfer.ts). */
export const TRANSFER_WORKFLOW_VERSION = 5;

export interface TransferInput {
  transferId: string;
  userId: string;
  networkId: string;
  /**
   * The workflow version the transfer was started for (TRANSFER_WORKFLOW_VERSION): it runs every step that version
   * has without patch markers, its search attributes set at the start. Absent: started before versions (1).
   */
  version?: number;
  /** Submission attempts before a transfer that may have been broadcast is held for review (default 30). */
  reviewAfterAttempts?: number;
  /** Set when the Travel Rule applies: how long to wait for the receiving provider's decision before failing. */
  travelRuleTimeoutSeconds?: number;
  /** Set when a monitoring rule holds the transfer for an operator's decision (the case is opened by the workflow). */
  review?: { kind: string; detail: string };
}
/** An operator's decision on the compliance case that holds a transfer. */
export interface ComplianceDecision {
  approved: boolean;
  reason: string;
  decidedBy: string;
}
export const complianceDecisionSignal = defineSignal<[ComplianceDecision]>('complianceDecision');
/** The receiving provider's answer to a Travel Rule inquiry (TRP), as its callback reached the API. */
export interface TravelRuleDecision {
  approved: boolean;
  reason: string | null;
  /** Where the receiving provider wants the transaction id once sent (TRP transfer confirmation), if it said. */
  callback?: string | null;
}
export const travelRuleConfirmationWorkflowId = (transferId: string): string =>
  `travel-rule-confirmation-${transferId}`;
export const travelRuleDecisionSignal = defineSignal<[TravelRuleDecision]>('travelRuleDecision');
export interface TransferOutcome {
  status: 'confirmed' | 'failed';
  txHash: string | null;
  fee: string | null;
  error?: string;
  /** Nothing was sent: the worker could not sign the transfer as recorded (e.g. its simulation fails). */
  refused?: boolean;
  /** The failure type of a refusal (e.g. GasBudgetExceeded), so the API answers the right problem. */
  refusalType?: string;
  /** What the refusal said beyond its message (a gas budget and when it resets). */
  refusalDetails?: unknown;
}
/** What a transfer's submission found on chain, as its outcome: confirmed, or failed when the chain reverted it. */
export const sentOutcome = (sent: {
  success: boolean;
  txHash: string | null;
  fee: string | null;
  error?: string;
}): TransferOutcome => ({
  status: sent.success ? 'confirmed' : 'failed',
  txHash: sent.txHash,
  fee: sent.fee,
  ...(sent.success ? {} : { error: sent.error ?? 'the transfer reverted on chain' }),
});
export const transferWorkflowId = (transferId: string): string => `transfer-${transferId}`;
export const transferFinalityWorkflowId = (transferId: string): string => `transfer-finality-${transferId}`;
/** One network's finality watch (transferFinalityWatchWorkflow), one per task queue like the schedules. */
export const finalityWatchWorkflowId = (networkId: string, taskQueue: string): string =>
  taskQueue === 'wallet' ? `finality-watch-${networkId}` : `finality-watch-${networkId}-${taskQueue}`;

export interface BankVerificationInput {
  verificationId: string;
  remark: string;
}
export const bankVerificationWorkflowId = (verificationId: string): string => `bank-verification-${verificationId}`;

/** The code travels only in this (encrypted) input; the database keeps a keyed hash of it. */
export interface EmailVerificationInput {
  verificationId: string;
  code: string;
}
export const emailVerificationWorkflowId = (verificationId: string): string => `email-verification-${verificationId}`;

/** Keys the service holds for a user: the EVM transfer key its smart accounts authorize, or its Solana wallet. */
export interface CustodyKeyInput {
  userId: string;
  kind: 'evm-transfer-key' | 'solana-wallet' | 'evm-transfer-key-rotation';
  networkId?: string;
  /** Rotation: the key being replaced (rotating from it again answers the key that replaced it). */
  replacing?: string;
}
export interface CustodyKeyOutcome {
  address: string;
  created: boolean;
}
export const custodyKeyWorkflowId = (input: CustodyKeyInput): string =>
  `custody-key-${input.kind}-${input.userId}${input.replacing ? `-${input.replacing.toLowerCase()}` : ''}`;

// ---- the transfer key's grant on an account (renew, rotate, remove, caps)
export interface TransferKeyOperationInput {
  opId: string;
  userId: string;
  networkId: string;
}
export const transferKeyWorkflowId = (opId: string): string => `transfer-key-${opId}`;

// ---- a swap on an EVM network's DEX (Uniswap v3), by an owner-signed user operation
export interface SwapOperationInput {
  swapId: string;
  userId: string;
  networkId: string;
}
export const swapWorkflowId = (swapId: string): string => `swap-${swapId}`;

/**
 * Gas the service sponsors for operations the owner will sign: the worker checks the user's budget and signs each
 * operation's paymasterAndData (valid until `validUntil`, epoch ms); user operations travel serialized (strings).
 */
export interface GasSponsorshipInput {
  userId: string;
  validUntil: number;
  operations: Array<{ sponsorshipId: string; networkId: string; userOperation: Record<string, string> }>;
}
export const gasSponsorshipWorkflowId = (requestId: string): string => `gas-sponsorship-${requestId}`;

/** Basic KYC information as submitted (personal data: workflow payloads are encrypted). */
export interface BasicInfoInput {
  userId: string;
  kycSessionId?: string;
  fullName: string;
  engSurname: string;
  engName: string;
  nationality: string;
}
export const basicInfoWorkflowId = (userId: string, submissionId: string): string =>
  `basic-info-${userId}-${submissionId}`;

/** How one event is retried to one endpoint before the endpoint is disabled (from the API's WEBHOOK_* settings). */
export interface WebhookRetry {
  initialSeconds: number;
  maximumSeconds: number;
  giveUpSeconds: number;
}
export interface WebhookEndpointInput {
  endpointId: string;
  retry: WebhookRetry;
  pollSeconds: number;
}
export type WebhookEndpointOutcome = { status: 'disabled' | 'deleted' };
export const webhookEndpointWorkflowId = (endpointId: string): string => `webhook-endpoint-${endpointId}`;
/** New events, a replay or a changed subscription: look again now rather than at the next poll. */
export const webhookWakeSignal = defineSignal('webhookWake');

/** An operator's revocation of one credential (POST /v1/credentials/{vcId}/revoke): credential-revocation-<vcId>. */
export interface CredentialRevocationInput {
  vcId: string;
  reason: string;
  operator: string;
}
export interface CredentialRevocationOutcome {
  vcId: string;
  revokedAt: string;
  reason: string;
}
export const credentialRevocationWorkflowId = (vcId: string): string => `credential-revocation-${vcId}`;

/** Closing a user's account (POST /v1/account/close): account-closure-<userId>. */
export interface AccountClosureInput {
  userId: string;
  /**
   * The payout of the won balance the closure pays back first (recorded by the API, purpose `closure`): run as the
   * child workflow payout-<payoutId>; the account closes only once it completed.
   */
  payoutId?: string;
}
/** What stops a closure: money the service holds or moves for the user. */
export interface ClosureBlocker {
  reason:
    | 'won-balance'
    | 'charge-in-progress'
    | 'payout-in-progress'
    | 'payout-failed'
    | 'closure-in-progress'
    | 'transfer-in-progress'
    | 'custodial-balance';
  detail: string;
}
export type AccountClosureOutcome =
  { closed: true; closedAt: string; revokedCredentials: string[] } | { closed: false; blockers: ClosureBlocker[] };
export const accountClosureWorkflowId = (userId: string): string => `account-closure-${userId}`;
/** The payout a closure run pays the balance back with (null: it had no balance): which closure a request joined. */
export const closurePayoutQuery = defineQuery<string | null>('closurePayout');

/** A registered user's KYC done again with a new ID-card image (POST /v1/account/kyc/renew): kyc-renewal-<userId>-<request>. */
export interface KycRenewalInput {
  userId: string;
  uploadRef: string;
  idCardType: string;
}
export interface KycRenewalOutcome {
  verified: boolean;
  ocrResult: { name: string; birthDate: string; verified: boolean };
  /** The new KycCredential when verified (the earlier ones are revoked as superseded), else null. */
  vcId: string | null;
}
export const kycRenewalWorkflowId = (userId: string, requestId: string): string => `kyc-renewal-${userId}-${requestId}`;

/**
 * A change to how an account is protected (a passkey, a device, the PIN, the email, the backup, a recovery), told to
 * the person by mail at every address they have: security-notice-<eventType>-<resourceId>, or -<eventId> for a
 * resource that changes more than once (the PIN, the backup). Started before the change commits, so a crash in between
 * loses no mail; a change that never committed mails nothing.
 */
export const SECURITY_EVENT_TYPES = [
  'passkey.added',
  'passkey.removed',
  'device.added',
  'device.revoked',
  'backup.read',
  'backup.stored',
  'pin.set',
  'pin.changed',
  'pin.reset',
  'pin.locked',
  'email.changed',
  'email.change_undone',
  'recovery.scheduled',
  'recovery.executed',
  'recovery.cancelled',
  'payout.processing',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];
export interface SecurityNoticeInput {
  userId: string;
  eventType: SecurityEventType;
  resourceId: string;
  /** The event the change commits (api/common/security-notices.ts): the notice waits for this very one. */
  eventId?: string;
}
export type SecurityNoticeOutcome =
  /** `refused`: the addresses the mail provider refused (a suppressed or bouncing mailbox); the others were mailed. */
  | { mailed: true; eventId: string; addresses?: number; refused?: Array<'current' | 'previous'> }
  | { mailed: false; reason: 'not-committed' | 'no-verified-email' }
  | { mailed: false; reason: 'refused'; refused: Array<'current' | 'previous'> };
export const securityNoticeWorkflowId = (eventType: SecurityEventType, key: string): string =>
  `security-notice-${eventType.replace('.', '-')}-${key}`;

// ---- compliance
/** The sanctions list's schedule: `sanctions-list-refresh` on the default task queue, suffixed elsewhere (test stacks share a server). */
export const sanctionsScheduleId = (taskQueue: string): string =>
  taskQueue === 'wallet' ? 'sanctions-list-refresh' : `sanctions-list-refresh-${taskQueue}`;

/** The housekeeping schedule's id (and its runs' workflow id): one per task queue, as the sanctions list's. */
export const housekeepingScheduleId = (taskQueue: string): string =>
  taskQueue === 'wallet' ? 'housekeeping' : `housekeeping-${taskQueue}`;
