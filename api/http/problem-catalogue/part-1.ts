import type { ProblemEntry } from './entry';

/** Problem types, part 1 of the catalogue (alphabetical; index.ts joins the parts). */
export const PART_1: Record<string, ProblemEntry> = {
  'account-already-deployed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The smart account on this network exists already, so there is nothing to deploy.',
    when:
      'POST /v1/wallet/networks/{networkId}/deploy/prepare answers it when the account on that network is recorded ' +
      'as deployed, or its address already holds a deployed account on chain.',
    action: 'Do not deploy again: go on with the account at the address the detail names.',
    example: 'The account 0x5A0b54D5dc17e0AadC383d2db43B0a0D3E029c4c already exists on ETHEREUM',
  },
  'account-holder-mismatch': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The bank account is not held by the user's verified person.",
    when:
      "POST /api/v1/bank/send-won answers it when the bank's real-name inquiry finds another holder, or a holder " +
      'name other than the verified name, before any 1 KRW is sent; POST /api/v1/bank/send-won/confirm asks again ' +
      'before connecting the account.',
    action: 'Ask the user for an account held in their own name; the same account will be refused again.',
    example: 'The account is not held in your verified name',
  },
  'account-not-closable': {
    title: 'Conflict',
    status: 409,
    meaning: 'The account cannot be closed yet: the service still holds or moves something for the user.',
    when:
      'POST /v1/account/close answers it when the closure finds a won balance, a charge or transfer not finished, ' +
      'or coins or tokens on the Solana wallet the service keeps; the `blockers` member lists each as {reason, ' +
      'detail}.',
    action:
      'Show the blockers: once the user has withdrawn or sent out the funds and running charges and transfers have ' +
      'finished, close again.',
    example: '25000 KRW held for the user: withdraw it first; 1 transfer(s) not final',
  },
  'account-not-deployed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The user has no deployed smart account on the network the operation needs (or on any network).',
    when:
      'Operations on an EVM account answer it when none is deployed there: the recovery settings, upgrade and ' +
      'recovery-cancel routes, GET and POST /v1/wallet/networks/{networkId}/transfer-key(/prepare), POST ' +
      '/v1/wallet/keys/rotate/prepare, POST /v1/did/keys/assertion/prepare and POST ' +
      '/api/v1/transfer/crypto/execute. POST /v1/account/recovery answers it when no account is deployed at all.',
    action:
      'Deploy the account first (POST /v1/wallet/networks/{networkId}/deploy/prepare, then .../deploy) and retry ' +
      'once its deploy job has completed.',
    example: 'Deploy your account on ETHEREUM first',
  },
  'address-book-full': {
    title: 'Conflict',
    status: 409,
    meaning: 'The address book already holds its maximum of 200 recipients.',
    when: 'POST /api/v1/transfer/address-book answers it when adding a recipient that is not in a full address book.',
    action:
      'Remove a recipient (DELETE /api/v1/transfer/address-book/{networkId}/{address}), then add the new one again.',
    example: 'An address book holds at most 200 recipients; remove one first',
  },
  'address-ownership-required': {
    title: 'Prove you control this address',
    status: 422,
    meaning:
      'A transfer under the Travel Rule names no receiving VASP and goes to an address the user has not proved to ' +
      'be their own.',
    when:
      'POST /api/v1/transfer/crypto/prepare and POST /api/v1/transfer/crypto/execute answer it for a transfer worth ' +
      'TRAVEL_RULE_THRESHOLD_KRW (1,000,000 KRW by default) or more, with neither travel_address nor ' +
      'beneficiary_vasp, to a recipient without an ownership proof in the address book.',
    action:
      'For an account at an exchange, send travel_address or beneficiary_vasp with beneficiary_name; for a wallet ' +
      "of the user's own, prove it once (the `challenge` member names the route, then POST .../ownership) and retry.",
    example:
      'This transfer is worth 1,500,000 KRW: from 1,000,000 KRW the Travel Rule applies. If ' +
      '0xBA46a92D78228643EB44c4Cf474E880a53a863aF is an account at another VASP (an exchange), send its ' +
      'travel_address (the "ta…" Travel Address that VASP shows with the deposit address), or for a Korean exchange ' +
      "on CODE's network its beneficiary_vasp (GET /api/v1/transfer/vasps), and beneficiary_name. If it is a wallet " +
      'of your own, prove once that it is yours: POST ' +
      '/api/v1/transfer/address-book/ETHEREUM/0xBA46a92D78228643EB44c4Cf474E880a53a863aF/ownership/challenge, sign ' +
      "its message with that address's key (EVM: EIP-191 personal_sign; SOLANA: ed25519), and POST " +
      '/api/v1/transfer/address-book/ETHEREUM/0xBA46a92D78228643EB44c4Cf474E880a53a863aF/ownership {"signature"}.',
  },
  'already-owner': {
    title: 'Conflict',
    status: 409,
    meaning: 'The key named as the new owner already owns the accounts, so a rotation would change nothing.',
    when:
      'POST /v1/wallet/keys/rotate/prepare answers it when newOwnerAddress is the current owner of the accounts to ' +
      'rotate.',
    action: 'Nothing to rotate: to change the owner key, name another key.',
    example: 'This key already owns your accounts',
  },
  'already-upgraded': {
    title: 'Conflict',
    status: 409,
    meaning: 'The account on this network is recoverable already, so there is nothing to upgrade.',
    when:
      'POST /v1/wallet/networks/{networkId}/upgrade/prepare answers it when the account on chain already reads as ' +
      'recoverable by the service.',
    action: 'Nothing to do: GET /v1/wallet/networks/{networkId}/recovery shows its recovery settings.',
    example: 'The account on ETHEREUM is recoverable already',
  },
  'already-verified': {
    title: 'Conflict',
    status: 409,
    meaning: 'The verification was completed already; its code is not taken again.',
    when:
      'POST /v1/account/email/confirm and POST /api/v1/bank/send-won/confirm answer it for a verification whose ' +
      'code was accepted before, or that another request completed at the same moment.',
    action:
      'Treat it as done: read the result (GET /v1/account/profile, GET /api/v1/bank/accounts) instead of confirming ' +
      'again.',
    example: 'This verification was completed already',
  },
  'authorization-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The exchange authorization (the OAuth state) expired before it was used.',
    when:
      'POST /v1/asset/cex-accounts with the deprecated {state, code} body answers it when the state from POST ' +
      '/v1/asset/cex-accounts/authorize is past its expiry.',
    action:
      'Start again with POST /v1/asset/cex-accounts/authorize, or connect the account with an API key pair instead.',
    example: 'The authorization expired; start again',
  },
  'authorization-used': {
    title: 'Conflict',
    status: 409,
    meaning: 'The exchange authorization (the OAuth state) was used already; each state connects once.',
    when:
      'POST /v1/asset/cex-accounts with the deprecated {state, code} body answers it when the state was claimed by ' +
      'an earlier request, also one whose code the exchange then refused.',
    action:
      'Do not resend: GET /v1/asset/cex-accounts shows whether the account connected; otherwise start a new ' +
      'authorization or use an API key pair.',
    example: 'This authorization was already used',
  },
  'bank-account-already-connected': {
    title: 'Conflict',
    status: 409,
    meaning: "The bank account is already one of the user's connected accounts.",
    when:
      'POST /api/v1/bank/send-won answers it before any inquiry when the user has this bank code and account number ' +
      'connected; POST /api/v1/bank/send-won/confirm answers it when the account was connected meanwhile.',
    action: 'Nothing to verify: use the connected account (GET /api/v1/bank/accounts).',
    example: 'This account is already connected',
  },
  'bank-account-linked-elsewhere': {
    title: 'Conflict',
    status: 409,
    meaning: 'An account the bank consent covers is already linked for withdrawals to another user of the service.',
    when:
      "GET /api/v1/bank/consent/callback (the bank's redirect back) answers it when activating the consent would " +
      'link an account another user has linked; the consent is marked failed and takes nothing.',
    action:
      'This consent cannot be used: the person may start a new one (POST /api/v1/bank/consent) leaving that account ' +
      'out, or contact support if the account is theirs.',
    example: 'An account this consent covers is already connected by another user of this service',
  },
  'bank-account-not-found': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The bank does not know the account number, or refused the 1 KRW verification deposit to it.',
    when:
      'POST /api/v1/bank/send-won answers it when the real-name inquiry finds no such account (asked again by POST ' +
      '/api/v1/bank/send-won/confirm), and, titled "The bank refused the deposit", when the bank refuses the ' +
      'deposit.',
    action: 'Ask the user to check the bank and the account number, or to use another account; do not resend as is.',
    example: 'The bank does not know this account number',
  },
  'bank-account-refused': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The bank refuses real-name inquiries about this account (not for an unknown account or another holder).',
    when:
      'POST /api/v1/bank/send-won answers it when the real-name inquiry is refused, with the bank code in the ' +
      'detail; POST /api/v1/bank/send-won/confirm asks again and can answer it too.',
    action: 'Ask the user for another account.',
    example: 'The bank refuses inquiries about this account (A0301); try another account',
  },
  'bank-consent-required': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The charge's source account has no consent at the bank to withdrawals.",
    when:
      'POST /api/v1/charge/execute answers it when the connected account named as source is not linked by a consent ' +
      'at the bank; the `consentRoute` member names the route that starts one.',
    action:
      'Start the consent (POST /api/v1/bank/consent), open its authorization_url for the person, and charge again ' +
      'once GET /api/v1/bank/consent shows the account covered.',
    example:
      'Charging from 신한은행 needs your consent at the bank first: POST /api/v1/bank/consent, then open its ' +
      'authorization_url',
  },
  'beneficiary-name-required': {
    title: 'Beneficiary name required',
    status: 422,
    meaning: "A transfer under the Travel Rule to an account at another VASP lacks the beneficiary's name.",
    when:
      'POST /api/v1/transfer/crypto/prepare and POST /api/v1/transfer/crypto/execute answer it for a transfer worth ' +
      'the Travel Rule threshold or more that names the receiving VASP (travel_address or beneficiary_vasp) but no ' +
      'beneficiary_name.',
    action:
      "Ask the user for the recipient's name as that VASP knows it and send it as beneficiary_name, in the PIN " +
      'approval too, then retry.',
    example:
      "This transfer is worth 1,500,000 KRW: from 1,000,000 KRW the Travel Rule applies, and the recipient's " +
      "account is at Upbit, which must be told who receives it: send beneficiary_name (the recipient's name as " +
      'Upbit knows it) with the transfer and in its PIN approval.',
  },
  'beneficiary-vasp-unknown': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The beneficiary_vasp is not an exchange the service exchanges Travel Rule data with on CODE's network.",
    when:
      'POST /api/v1/transfer/crypto/prepare and POST /api/v1/transfer/crypto/execute answer it for a transfer worth ' +
      'the Travel Rule threshold or more whose beneficiary_vasp is not listed by GET /api/v1/transfer/vasps.',
    action:
      'Pick the exchange from GET /api/v1/transfer/vasps; one that is not listed cannot receive such a transfer ' +
      'from this service.',
    example:
      'This transfer is worth 1,500,000 KRW: from 1,000,000 KRW the Travel Rule applies, and korbit-kr is not an ' +
      "exchange we exchange Travel Rule data with on CODE's network (GET /api/v1/transfer/vasps lists them): " +
      'nothing can be sent there from this service',
  },
  'case-decided': {
    title: 'Conflict',
    status: 409,
    meaning: 'The compliance case was decided already, the other way.',
    when:
      'POST /v1/compliance/cases/{caseId}/decision (an operator route) answers it when the case is no longer open ' +
      'and the decision sent differs from the recorded one; the same decision again answers the case.',
    action: 'Do not decide again: GET /v1/compliance/cases/{caseId} shows who decided it, when and why.',
    example: 'This case was approved by compliance-lead at 2026-11-26T01:12:40.000Z',
  },
  'cex-account-already-connected': {
    title: 'Conflict',
    status: 409,
    meaning: 'This exchange account (or key pair) is already connected for the user.',
    when:
      'POST /v1/asset/cex-accounts answers it when the same key pair, or by the deprecated OAuth flow the same ' +
      "exchange account, is already one of the user's connected accounts.",
    action: 'Nothing to connect: use the connected account (GET /v1/asset/cex-accounts).',
    example: 'This key pair is already connected',
  },
  'cex-grant-refused': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The exchange refused the OAuth authorization code (expired, used or not matching).',
    when:
      'POST /v1/asset/cex-accounts with the deprecated {state, code} body answers it when the exchange refuses the ' +
      "code; the state is spent by then, and the detail is the exchange's own description.",
    action:
      'Start a new authorization (POST /v1/asset/cex-accounts/authorize), or connect with an API key pair instead.',
    example: 'the exchange refused the code',
  },
  'cex-key-refused': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The exchange refused the API key pair when the service read the balances with it.',
    when:
      'POST /v1/asset/cex-accounts with a key pair (Upbit, Bithumb) answers it when the exchange refuses the key: ' +
      "wrong keys, the service's address not allowed, no View Account permission, an expired key.",
    action: 'Show the detail, which says what to fix at the exchange; connect again with the fixed or a new key pair.',
    example:
      "upbit refused our address (no_authorization_ip): add the service's outbound IP address to the key's allowed " +
      'IPs',
  },
  'challenge-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The passkey challenge (of a registration or an approval) expired before it was used.',
    when:
      'POST /v1/auth/passkeys answers it for an expired registration challenge; operations that take a passkey ' +
      'assertion (a step-up passkeyAssertion, POST /v1/auth/sign-in/{signInId}/passkey) answer it for an expired ' +
      'approval challenge.',
    action:
      'Ask for new options (POST /v1/auth/passkeys/registration/options, POST /v1/auth/passkeys/approvals/options, ' +
      "or the sign-in's passkey/options) and have the user approve again.",
    example: 'The approval challenge expired; ask for new options',
  },
  'challenge-used': {
    title: 'Conflict',
    status: 409,
    meaning: 'The passkey challenge (of a registration or an approval) was used already; each is spent once.',
    when:
      'POST /v1/auth/passkeys and the operations that take a passkey assertion (a step-up passkeyAssertion, POST ' +
      '/v1/auth/sign-in/{signInId}/passkey) answer it when the challenge was spent by an earlier or concurrent ' +
      'request.',
    action: 'Ask for new options and have the user approve again; do not resend the same assertion.',
    example: 'This registration challenge was already used; ask for new options',
  },
  'compliance-rejected': {
    title: 'Rejected after review',
    status: 422,
    meaning: 'A transfer held for compliance review was rejected by an operator; nothing was sent.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it when a monitoring rule held the transfer and an operator ' +
      'rejected it while the request still waited (TRANSFER_WAIT_SECONDS); later the transfer reads failed instead.',
    action: 'Do not retry the transfer: tell the user it was refused after review, with the reason in the detail.',
    example: 'Rejected after a compliance review: the source of funds could not be confirmed; nothing was sent',
  },
  'consent-already-returned': {
    title: 'Conflict',
    status: 409,
    meaning: 'The bank consent this state names was completed or failed already; a state returns once.',
    when:
      "GET /api/v1/bank/consent/callback answers it when the bank's redirect for the same state arrives again (a " +
      'page loaded twice) or the consent is no longer pending.',
    action: "Nothing to redo: GET /api/v1/bank/consent shows the consent's outcome.",
    example: 'This consent was returned already (active)',
  },
  'consent-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The person did not come back from the bank within 15 minutes of starting the consent.',
    when:
      "GET /api/v1/bank/consent/callback answers it when the return arrives after the consent's expires_at; the " +
      'consent is marked failed.',
    action: 'Start the consent again (POST /api/v1/bank/consent) and send the person to the new authorization_url.',
    example: 'The consent was not completed in time; start it again',
  },
  'consent-of-another-person': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The consent at the bank was given by another person than the one the user is verified as.',
    when:
      'GET /api/v1/bank/consent/callback answers it when the name (and, where the bank gives it, the CI) of the ' +
      "person who consented differs from the user's verified identity; the consent is marked failed.",
    action:
      'The account holder must start a consent (POST /api/v1/bank/consent) and complete it at the bank in person.',
    example: 'The consent was given at the bank by another person than the one this account is verified as',
  },
  'consent-refused': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The bank refused the consent's authorization code when the service exchanged it for a token.",
    when:
      'GET /api/v1/bank/consent/callback answers it when the open banking centre refuses the code (expired, used or ' +
      'not ours); the consent is marked failed.',
    action: 'Start the consent again (POST /api/v1/bank/consent).',
    example: "The bank refused the consent's code (O0004)",
  },
  'currency-mismatch': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The charge is in another currency than the one the source bank account holds.',
    when:
      "POST /api/v1/charge/execute answers it when the source account's currency differs from the charge's; as " +
      'charges and connected accounts are KRW only, another currency is answered unsupported-currency first.',
    action: 'Charge in the currency of the source account.',
    example: '신한은행 holds USD, not KRW',
  },
  'device-on-hold': {
    title: 'New device on hold',
    status: 403,
    meaning:
      'The device signed in without a passkey the account trusts and is in its new-device hold, which refuses risky ' +
      'actions.',
    when:
      'Operations whose step-up holds new devices (sending funds, changing the PIN, email, address book, transfer ' +
      'or owner keys, recovery, passkeys, reading the backup, closing the account...) answer it until `holdUntil`.',
    action:
      'Tell the user when the hold ends (holdUntil), or release it now with a passkey registered before the sign-in ' +
      '(POST /v1/account/devices/{deviceId}/release).',
    example:
      'This device signed in without a passkey the account trusts (by ID card, or by a passkey still in its own ' +
      'hold); until 2026-11-27T00:45:08.454Z it cannot send funds, unless a passkey registered before the sign-in ' +
      'releases it (POST /v1/account/devices/{deviceId}/release)',
  },
  'device-revoked': {
    title: 'Forbidden',
    status: 403,
    meaning: "The device was signed out, and a registration's pass token does not bring it back.",
    when: 'POST /v1/auth/token with the registration grant answers it when the registering device was signed out.',
    action: 'Sign the device in again (POST /v1/auth/sign-in).',
    example: 'This device was signed out: sign in again (POST /v1/auth/sign-in)',
  },
  'device-signed-in': {
    title: 'Device signed in already',
    status: 409,
    meaning: 'The device a sign-in names is signed in to the account already.',
    when:
      "POST /v1/auth/sign-in answers it when the device is one of the account's signed-in devices; POST " +
      '/v1/auth/token with the sign-in grant answers it (titled "Conflict") when the device was signed in meanwhile.',
    action: 'Use the device as it is, or sign it out (POST /v1/auth/sign-out, or from another device) and retry.',
    example: 'this device is signed in to the account already: use it as it is, or sign it out first',
  },
  'device-signed-out': {
    title: 'Authentication required',
    status: 401,
    meaning: "The access token's device session has ended: the device was signed out, or signed in again since.",
    when:
      "Every Bearer operation answers it (with WWW-Authenticate: Bearer) when the token's session is not the " +
      "device's current one.",
    action: 'Drop the tokens and sign the device in again (POST /v1/auth/sign-in).',
    example: 'This device was signed out (or signed in again since this token was issued): sign in again',
  },
  'duplicate-identity': {
    title: 'Account already exists',
    status: 409,
    meaning: 'The verified person has an account already and cannot register again.',
    when:
      'POST /v1/account/register answers it when the identity verification is of a person with an account; POST ' +
      '/v1/account/register/{regId}/backup answers it when another registration of the same person completed first.',
    action: 'Sign in on this device instead (POST /v1/auth/sign-in).',
    example: 'An account already exists for this person: sign in on this device instead (POST /v1/auth/sign-in)',
  },
  'email-change-final': {
    title: 'Gone',
    status: 410,
    meaning: 'The email change is past its undo window and can no longer be undone.',
    when: 'POST /v1/account/email/undo answers it for a valid change id and code once the undo window has passed.',
    action: 'Nothing the app can retry: the person must contact the service to get the address back.',
    example: 'This change can no longer be undone: contact us',
  },
  'email-change-pending': {
    title: 'Conflict',
    status: 409,
    meaning: 'The last change of the email address can still be undone, and no other change is taken before then.',
    when:
      'POST /v1/account/email and POST /v1/account/email/confirm answer it while the last change is within its undo ' +
      'window.',
    action: 'Change the address after the time the detail names.',
    example:
      'The last change of the address can be undone until ' + '2026-11-28T00:45:08.454Z: no other change before then',
  },
  'email-change-superseded': {
    title: 'Conflict',
    status: 409,
    meaning: 'The email change cannot be undone: the address was changed again since.',
    when:
      'POST /v1/account/email/undo answers it when the account no longer has the address this change brought, or ' +
      'another request undid the change at the same moment.',
    action: 'Nothing the app can retry: the person must contact the service.',
    example: 'The address was changed again since: contact us',
  },
  'email-change-undone': {
    title: 'Conflict',
    status: 409,
    meaning: 'The email change was undone already.',
    when: 'POST /v1/account/email/undo answers it when an earlier request undid this change.',
    action: 'Treat it as done: nothing to undo.',
    example: 'This change was undone already',
  },
  'exact-output-unsupported': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The network's exchange prices only an exact input: it cannot quote an exact amount out.",
    when:
      "POST /v1/exchange/quote with `direction: exactOutput` on SOLANA, whose quotes come from Jupiter's Swap API " +
      'V2 (ExactIn only).',
    action: 'Ask for an exactInput quote: choose the amount to sell and read `targetAmount`.',
    example: "SOLANA's exchange (Jupiter) quotes an exact input only: ask for exactInput",
  },
  forbidden: {
    title: 'Forbidden',
    status: 403,
    meaning:
      'The caller may not act on this registration or sign-in: the X-Pass-Token is not its own, or the token ' +
      'exchange comes from another device than the one that started it.',
    when:
      'Registration routes (/v1/account/register/{regId}...), sign-in routes (/v1/auth/sign-in/{signInId}...) and ' +
      'POST /v1/auth/token answer it for an X-Pass-Token of another one (counted per address); POST /v1/auth/token ' +
      'also for a device other than the one that started the registration or sign-in.',
    action: 'Send the pass token and device id of the flow that is being continued.',
    example: 'The X-Pass-Token does not belong to this registration',
  },
  'gas-budget-exceeded': {
    title: 'Gas budget exceeded',
    status: 422,
    meaning: "The user's sponsored gas for the Korean day (GAS_BUDGET_DAILY_KRW) cannot cover the operation.",
    when:
      'The prepare routes that build a sponsored EVM operation (deploy, key rotation, upgrade, recovery cancel, ' +
      'transfer key, DID key) answer it when its maximum cost does not fit; POST /api/v1/transfer/crypto/execute ' +
      'when nothing is left today.',
    action: 'Retry after `resetsAt` (midnight in Korea); `budgetKrw` and `usedKrw` say what is sponsored and used.',
    example: 'Gas is sponsored up to 200,000 KRW a day and none is left until 2026-11-26T15:00:00.000Z',
  },
  'id-card-invalid': {
    title: 'ID card not valid',
    status: 422,
    meaning: 'The issuing authority answers that the ID card is not valid (reported lost or stolen, replaced, ...).',
    when:
      'POST /v1/auth/sign-in/{signInId}/id-card and POST /v1/auth/identity-checks/{identityCheckId}/id-card answer ' +
      'it with `attemptsLeft`; the last failed attempt answers sign-in-failed instead.',
    action: 'Ask the user for their current, valid card, or to prove it another way (a passkey).',
    example: 'the issuing authority answers that this card is not valid (reported lost)',
  },
  'id-card-mismatch': {
    title: 'Not the ID card verified at registration',
    status: 422,
    meaning: 'The card reads as the verified person but its number is not that of the card verified at registration.',
    when:
      'POST /v1/auth/sign-in/{signInId}/id-card and POST /v1/auth/identity-checks/{identityCheckId}/id-card answer ' +
      'it with `attemptsLeft`; the last failed attempt answers sign-in-failed instead.',
    action: 'Ask the user for the card verified at registration (or a renewed one of it) and try again.',
    example: 'this is not the ID card verified at registration (use the same card, or a renewed one of it)',
  },
  'id-card-not-on-file': {
    title: 'No ID card on file',
    status: 422,
    meaning: 'The account has no ID card on file to compare a card with.',
    when:
      'POST /v1/auth/sign-in/{signInId}/id-card answers it for such an account, and POST /v1/auth/identity-checks ' +
      'for a check whose action needs the ID card (pin_reset, recovery_start).',
    action:
      'Sign in with a passkey instead, or renew KYC on a signed-in device (POST /v1/account/kyc/renew) to put a ' +
      'card on file.',
    example:
      'this account has no ID card on file to compare with: sign in with a passkey, or renew your KYC on a ' +
      'signed-in device',
  },
  'id-card-unreadable': {
    title: 'ID card not readable as the verified person',
    status: 422,
    meaning:
      "The card's kind, name, birth date and number could not all be read, or they do not read as the verified " +
      'person.',
    when:
      'POST /v1/auth/sign-in/{signInId}/id-card and POST /v1/auth/identity-checks/{identityCheckId}/id-card answer ' +
      'it with `attemptsLeft`; the last failed attempt answers sign-in-failed instead.',
    action: "Ask for a sharper picture of the user's own card, of the kind sent as idCardType, and try again.",
    example: "the card's kind (passport), name, birth date and number could not all be read: take a sharper picture",
  },
  'idempotency-key-required': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'A passkey-approved transfer was sent without the Idempotency-Key it was prepared with.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it when signing.items carries a passkey slot but the request ' +
      'has no Idempotency-Key (the transfer id in the passkey challenge follows the key).',
    action: 'Resend with the Idempotency-Key that POST /api/v1/transfer/crypto/prepare was called with.',
    example:
      'A passkey-approved transfer needs the Idempotency-Key it was prepared with (its transfer id is bound into ' +
      'the challenge)',
  },
  'idempotency-key-reused': {
    title: 'Idempotency-Key reused',
    status: 422,
    meaning: 'The Idempotency-Key was used before, by the same caller, with a different request.',
    when:
      'Every operation that takes an Idempotency-Key answers it when the key is kept (24 hours by default) for ' +
      'another method, path or body; POST /api/v1/bank/send-won also (titled "Unprocessable request") for a key of ' +
      'another account.',
    action: 'Use a new key for a new request; reuse a key only to retry the very same request.',
    example: 'This Idempotency-Key was already used with a different request payload',
  },
};
