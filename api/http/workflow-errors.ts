import {
  NamespaceNotFoundError,
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/client';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import {
  BankFailure,
  GasFailure,
  KeyRotationFailure,
  KycFailure,
  SignInFailure,
  PROVIDER_ANSWER_INVALID,
  PROVIDER_REJECTED,
  PROVIDER_REQUEST_INVALID,
  PROVIDER_UNAVAILABLE,
  RegistrationFailure,
  TransferFailure,
} from '../../platform/failures';
import { HttpError, problems } from './problems';

/** Each typed workflow failure maps to exactly one HTTP answer. */
const FAILURE_STATUS: Record<string, { status: number; slug: string; title: string; retryAfter?: number }> = {
  [RegistrationFailure.StepOutOfOrder]: { status: 409, slug: 'step-out-of-order', title: 'Step out of order' },
  [RegistrationFailure.AlreadyStarted]: {
    status: 409,
    slug: 'registration-already-started',
    title: 'Registration already started',
  },
  [RegistrationFailure.PassResultPending]: {
    status: 409,
    slug: 'pass-result-pending',
    title: 'Identity verification pending',
    retryAfter: 2,
  },
  [RegistrationFailure.PassVerificationFailed]: {
    status: 422,
    slug: 'pass-verification-failed',
    title: 'Identity verification failed',
  },
  [RegistrationFailure.DuplicateIdentity]: { status: 409, slug: 'duplicate-identity', title: 'Account already exists' },
  [RegistrationFailure.UploadNotFound]: { status: 422, slug: 'upload-not-found', title: 'Unknown uploadRef' },
  [SignInFailure.NotRegistered]: { status: 404, slug: 'not-registered', title: 'No account for this person' },
  [SignInFailure.IdCardMismatch]: {
    status: 422,
    slug: 'id-card-mismatch',
    title: 'Not the ID card verified at registration',
  },
  [SignInFailure.IdCardInvalid]: { status: 422, slug: 'id-card-invalid', title: 'ID card not valid' },
  [SignInFailure.IdCardUnreadable]: {
    status: 422,
    slug: 'id-card-unreadable',
    title: 'ID card not readable as the verified person',
  },
  [SignInFailure.IdCardNotOnFile]: { status: 422, slug: 'id-card-not-on-file', title: 'No ID card on file' },
  [SignInFailure.TooManyAttempts]: { status: 422, slug: 'sign-in-failed', title: 'Too many attempts' },
  [SignInFailure.NotInProgress]: { status: 409, slug: 'sign-in-not-in-progress', title: 'Sign-in not in progress' },
  [SignInFailure.NotSamePerson]: {
    status: 422,
    slug: 'identity-mismatch',
    title: "Not the account holder's identity",
  },
  [SignInFailure.VerificationStale]: {
    status: 422,
    slug: 'identity-check-stale',
    title: 'Identity verification too old',
  },
  [SignInFailure.DeviceSignedIn]: { status: 409, slug: 'device-signed-in', title: 'Device signed in already' },
  [KeyRotationFailure.NetworkNotInRotation]: {
    status: 404,
    slug: 'network-not-in-rotation',
    title: 'Network not in this rotation',
  },
  NetworkNotRetryable: { status: 409, slug: 'network-not-retryable', title: 'Network cannot be retried' },
  [PROVIDER_REJECTED]: { status: 502, slug: 'provider-error', title: 'Upstream provider error' },
  // A provider that stayed down through the activity's retries: the caller may try again shortly.
  [PROVIDER_UNAVAILABLE]: { status: 503, slug: 'service-unavailable', title: 'Service unavailable', retryAfter: 5 },
  [PROVIDER_ANSWER_INVALID]: { status: 503, slug: 'service-unavailable', title: 'Service unavailable', retryAfter: 5 },
  // Our request must be fixed by an operator first: asking again soon only fails again.
  [PROVIDER_REQUEST_INVALID]: {
    status: 503,
    slug: 'service-unavailable',
    title: 'Service unavailable',
    retryAfter: 300,
  },
  [KycFailure.NameMismatch]: { status: 422, slug: 'name-mismatch', title: 'Not the verified name' },
  [KycFailure.NationalityMismatch]: {
    status: 422,
    slug: 'nationality-mismatch',
    title: 'Not the verified nationality',
  },
  [BankFailure.DepositRefused]: { status: 422, slug: 'bank-account-not-found', title: 'The bank refused the deposit' },
  [TransferFailure.TransferRefused]: { status: 422, slug: 'transfer-would-fail', title: 'The transfer would fail' },
  [TransferFailure.RecipientSanctioned]: { status: 422, slug: 'recipient-sanctioned', title: 'Recipient sanctioned' },
  [TransferFailure.ScreeningUnavailable]: {
    status: 503,
    slug: 'screening-unavailable',
    title: 'Screening unavailable',
    retryAfter: 30,
  },
  [TransferFailure.TravelRuleRejected]: {
    status: 422,
    slug: 'travel-rule-rejected',
    title: 'Refused by the receiving provider',
  },
  [TransferFailure.ComplianceRejected]: { status: 422, slug: 'compliance-rejected', title: 'Rejected after review' },
  [TransferFailure.TravelRuleTimedOut]: {
    status: 422,
    slug: 'travel-rule-timeout',
    title: 'The receiving provider did not answer',
  },
  [GasFailure.BudgetExceeded]: { status: 422, slug: 'gas-budget-exceeded', title: 'Gas budget exceeded' },
  [GasFailure.PriceUnavailable]: { status: 503, slug: 'price-unavailable', title: 'Price unavailable', retryAfter: 60 },
};

const applicationFailureIn = (error: unknown): ApplicationFailure | undefined => {
  let current: unknown = error;
  for (let depth = 0; current && depth < 6; depth += 1) {
    if (current instanceof ApplicationFailure && current.type && FAILURE_STATUS[current.type]) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/** gRPC codes of a Temporal frontend that is down, restarting or overloaded: UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED. */
const TEMPORAL_UNAVAILABLE = new Set([14, 4, 8]);

/**
 * A Temporal service that cannot serve now. Its frontend answers "namespace not found" while it cannot read its own
 * store (found by the cluster drill: a PostgreSQL restart under the cluster), so that one is a 503 too; a namespace
 * that really is missing (a deployment fault) then shows as every start failing with 503, its cause in the warn log.
 */
const temporalUnavailable = (error: unknown): boolean =>
  error instanceof NamespaceNotFoundError ||
  (error instanceof ServiceError &&
    TEMPORAL_UNAVAILABLE.has((error.cause as { code?: number } | undefined)?.code ?? -1));

/** Turns a Temporal client error into an HttpError, or undefined when it is not one we know. */
export function httpErrorFromWorkflow(error: unknown): HttpError | undefined {
  if (temporalUnavailable(error)) return problems.unavailable('The workflow service is unavailable; retry shortly');
  if (error instanceof WorkflowNotFoundError) return problems.notFound('The workflow');
  if (error instanceof WorkflowExecutionAlreadyStartedError)
    return problems.conflict('workflow-closed', 'This process has already finished');
  if (
    !(error instanceof WorkflowUpdateFailedError) &&
    !(error instanceof TemporalFailure) &&
    !(error as { cause?: unknown })?.cause
  )
    return undefined;
  const failure = applicationFailureIn(error);
  return failure ? httpErrorOfFailure(failure.type!, failure.message, failure.details?.[0]) : undefined;
}

/**
 * The one HTTP answer of a failure type, also for outcomes that report a failure instead of throwing it (a refused
 * transfer); `details` (an object) become extension members of the problem, e.g. a gas budget and when it resets.
 */
export function httpErrorOfFailure(type: string, message: string, details?: unknown): HttpError {
  const mapped = FAILURE_STATUS[type] ?? FAILURE_STATUS[TransferFailure.TransferRefused]!;
  const headers: Record<string, string> = mapped.retryAfter ? { 'retry-after': String(mapped.retryAfter) } : {};
  const extensions = details && typeof details === 'object' ? (details as Record<string, unknown>) : undefined;
  return new HttpError(mapped.status, mapped.slug, mapped.title, message, undefined, headers, false, extensions);
}
