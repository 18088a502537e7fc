/**
 * Every failure type the service names: the `type` of a Temporal ApplicationFailure raised by an activity or a
 * workflow, and of a DomainError thrown by a client. Constants only, no imports, so workflows may import it too;
 * the API maps each type to one HTTP problem (api/http/workflow-errors.ts).
 */

export const RegistrationFailure = {
  StepOutOfOrder: 'StepOutOfOrder',
  AlreadyStarted: 'RegistrationAlreadyStarted',
  PassResultPending: 'PassResultPending',
  PassVerificationFailed: 'PassVerificationFailed',
  DuplicateIdentity: 'DuplicateIdentity',
  UploadNotFound: 'UploadNotFound',
} as const;

/** Refusals of a sign-in on a new device (issue 24), each its own problem type. */
export const SignInFailure = {
  /** The verified person has no account here (register instead). */
  NotRegistered: 'SignInNotRegistered',
  /** The card is readable and genuine but is not the card verified at registration (another person's card). */
  IdCardMismatch: 'SignInIdCardMismatch',
  /** The authority says the card is not valid: reported lost or stolen, replaced, never issued as read. */
  IdCardInvalid: 'SignInIdCardInvalid',
  /** The card's name, birth date or number could not be read, or are not the verified person's. */
  IdCardUnreadable: 'SignInIdCardUnreadable',
  /** The account has no card on file to compare with (registered before cards were kept): use a passkey. */
  IdCardNotOnFile: 'SignInIdCardNotOnFile',
  /** Too many ID cards tried: this sign-in failed; verify again to start a new one. */
  TooManyAttempts: 'SignInTooManyAttempts',
  /** A step of a sign-in that is not in progress (completed, failed, expired) or still waiting for the identity result. */
  NotInProgress: 'SignInNotInProgress',
  /** A step-up identity check verified another person than the account's (another CI). */
  NotSamePerson: 'SignInNotSamePerson',
  /** A step-up identity check whose identity result is older than a step-up allows: verify again. */
  VerificationStale: 'SignInVerificationStale',
  /** A sign-in naming a device the account has signed in already (it would sign that device out and take its place). */
  DeviceSignedIn: 'SignInDeviceSignedIn',
} as const;

/** Basic KYC details that contradict the identity verified at registration: nothing is recorded or signed. */
export const KycFailure = {
  NameMismatch: 'KycNameMismatch',
  NationalityMismatch: 'KycNationalityMismatch',
} as const;

/** A provider refused a request for a reason retrying will not fix (its 4xx); raised by integrations/provider-http.ts. */
export const PROVIDER_REJECTED = 'ProviderRejected';

export const ChainFailure = {
  UserOperationRejected: 'UserOperationRejected',
  UserOperationFailed: 'UserOperationFailed',
  UnknownNetwork: 'UnknownNetwork',
} as const;

export const KeyRotationFailure = { NetworkNotInRotation: 'NetworkNotInRotation' } as const;

export const ChargeFailure = {
  UserNotActive: 'UserNotActive',
  /** The credit is refused: a refund of the charge has begun (its money is going back to the bank account). */
  RefundStarted: 'ChargeRefundStarted',
  /** The refund is refused: the charge was credited already (a credit whose answer was lost), nothing goes back. */
  AlreadyCredited: 'ChargeAlreadyCredited',
} as const;

export const TransferFailure = {
  /** Nothing was sent: the transfer could not be signed as asked (its simulation fails, the key no longer matches). */
  TransferRefused: 'TransferRefused',
  /** The recipient is on a sanctions list or named by the screening provider: nothing was signed, a case is open. */
  RecipientSanctioned: 'RecipientSanctioned',
  /** The recipient could not be screened (no current list, the provider down) through every attempt: nothing was signed. */
  ScreeningUnavailable: 'ScreeningUnavailable',
  /** The receiving provider rejected the Travel Rule inquiry (e.g. the beneficiary's name does not match): nothing signed. */
  TravelRuleRejected: 'TravelRuleRejected',
  /** The receiving provider did not answer the Travel Rule inquiry within TRAVEL_RULE_TIMEOUT_SECONDS: nothing signed. */
  TravelRuleTimedOut: 'TravelRuleTimedOut',
  /** An operator rejected the transfer a monitoring rule held: nothing signed. */
  ComplianceRejected: 'ComplianceRejected',
} as const;

export const GasFailure = {
  /** Sponsoring this operation would take the user's gas over the day's budget: nothing was signed. */
  BudgetExceeded: 'GasBudgetExceeded',
  /** No price of the network's coin in won can be had, so the budget cannot be checked: nothing was signed. */
  PriceUnavailable: 'GasPriceUnavailable',
} as const;

export const BankFailure = {
  /** The bank refused the 1 KRW deposit to this account (closed, frozen, unknown). */
  DepositRefused: 'DepositRefused',
} as const;

/** A provider did not answer in time, could not be reached, or failed (5xx) through every retry. */
export const PROVIDER_UNAVAILABLE = 'ProviderUnavailable';
/**
 * A provider answered, but not as its API promises (another shape, a redirect, an answer too long), through every
 * retry: the failure type an activity's ProviderAnswerInvalid carries (its class name). Answered like an outage.
 */
export const PROVIDER_ANSWER_INVALID = 'ProviderAnswerInvalid';
/**
 * A provider refused our request as malformed where nothing the person sent explains it (CLOVA OCR's 0011 for an image
 * that decodes): the adapter and the provider's protocol disagree. Not retried (the same request is refused again):
 * for an operator; answered like an outage.
 */
export const PROVIDER_REQUEST_INVALID = 'ProviderRequestInvalid';
