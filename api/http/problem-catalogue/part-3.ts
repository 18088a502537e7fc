import type { ProblemEntry } from './entry';

/** Problem types, part 3 of the catalogue (alphabetical; index.ts joins the parts). */
export const PART_3: Record<string, ProblemEntry> = {
  'not-registered': {
    title: 'No account for this person',
    status: 404,
    meaning:
      'The person the identity verification verified has no active account here, so there is nothing to sign in to.',
    when:
      'POST /v1/auth/sign-in when the verified person has no account (their identity result went to a ' +
      'registration) or their account is suspended or closed; POST /v1/auth/identity-checks can answer it ' +
      'too when the identity result arrives after the check started.',
    action:
      'Offer registration (POST /v1/account/register) instead of a sign-in; for a suspended or closed ' +
      'account nothing the app sends can help.',
    example: 'No account exists for the person verified: register instead (POST /v1/account/register)',
  },
  'operation-in-flight': {
    title: 'Conflict',
    status: 409,
    meaning:
      'Another operation of the same smart account on the same EntryPoint nonce is on its way to the chain (handed to ' +
      'the bundler, not stalled): a second one would take its place.',
    when:
      'The prepare and execute routes of owner-signed operations (deploy, transfer key, upgrade, DID key, recovery ' +
      'cancellation, key rotation, swaps on EVM networks) answer it while an earlier operation of the account is ' +
      'submitted; the detail names it.',
    action:
      'Wait for the earlier operation to complete or fail (its job, swap or event), then prepare again (Retry-After ' +
      'suggests when to look). A stalled operation is not in the way: preparing again signs its replacement.',
    example:
      'Another operation of this account on ETHEREUM (swap swap_3f1c…) is on its way: prepare this one again once it has completed or failed',
  },
  'owner-address-required': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The user's first deploy prepare must name the owner key of their accounts, and this one did not.",
    when:
      'POST /v1/wallet/networks/{networkId}/deploy/prepare without `ownerAddress` while the user has no ' +
      'smart account on any network yet.',
    action:
      'Send `ownerAddress` (the address of the wallet key) with a proof the first prepare takes (PIN, ' +
      'passkey or identity check naming that address), and retry.',
    example: 'Send ownerAddress (the address of your wallet key) on the first prepare',
  },
  'owner-mismatch': {
    title: 'Conflict',
    status: 409,
    meaning: "The owner key named is not the one that owns the user's existing accounts; all of them have one owner.",
    when:
      'POST /v1/wallet/networks/{networkId}/deploy/prepare with an `ownerAddress` other than the owner of ' +
      'the accounts the user already has (prepared or deployed) on other networks.',
    action:
      'Send the owner address of the existing accounts, or none; the owner key changes only by a key ' +
      'rotation (POST /v1/wallet/keys/rotate/prepare) or a recovery.',
    example: 'Your accounts are owned by another key; rotate keys instead',
  },
  'owners-differ': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The accounts a key rotation would cover do not all have the same owner key, so one rotation cannot cover them.',
    when:
      'POST /v1/wallet/keys/rotate/prepare when the deployed accounts on the networks in `networkIds` ' +
      '(every deployed one when none are named) have different owners, e.g. after a recovery that ' +
      'completed on some networks only.',
    action: 'Rotate them separately: send `networkIds` naming only networks whose accounts have the same owner.',
    example: 'Your accounts have different owners; rotate them separately',
  },
  'ownership-challenge-expired': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The address-book entry has no current ownership challenge: none was asked for, it was used, or it expired.',
    when:
      'POST /api/v1/transfer/address-book/{networkId}/{address}/ownership when no challenge was issued, ' +
      'the last one already served a proof, or it is past its `expires_at` (15 minutes after it was ' +
      'issued).',
    action:
      'Ask for a new challenge (POST …/ownership/challenge), sign its message with the key of the address ' +
      'and send the proof before it expires.',
    example:
      'No current challenge: ask for one (POST ' +
      '/api/v1/transfer/address-book/ETHEREUM/0xBA46a92D78228643EB44c4Cf474E880a53a863aF/ownership/challenge)',
  },
  'ownership-proof-invalid': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The ownership proof is missing, or is not a signature by the address over its current challenge.',
    when:
      'POST /api/v1/transfer/address-book/{networkId}/{address}/ownership without `signature`, or with one ' +
      "that does not verify as the address's over the challenge (EVM: EIP-191 personal_sign, 0x-hex; " +
      'SOLANA: ed25519, base64 or base58).',
    action:
      "Sign the challenge message exactly as answered, with the key of that address in its network's " +
      'scheme, and send it again before the challenge expires.',
    example:
      "The signature is not 0xBA46a92D78228643EB44c4Cf474E880a53a863aF's over the challenge (EIP-191 " +
      'personal_sign, 0x-hex)',
  },
  'pass-result-pending': {
    title: 'Identity verification pending',
    status: 409,
    meaning: "The identity provider's result for this verification has not reached the service yet.",
    when:
      'POST /v1/account/register, POST /v1/auth/sign-in and POST /v1/auth/identity-checks wait up to ' +
      "PASS_RESULT_WAIT_SECONDS for the provider's callback and answer this, with Retry-After: 2, when it " +
      'has not come.',
    action: 'Wait Retry-After and send the same request again (with the same Idempotency-Key).',
    example: 'the identity verification result has not arrived yet; retry shortly',
  },
  'pass-token-expired': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The pass token of this registration or sign-in has passed its expiry (`passTokenExpiresAt`).',
    when:
      'Requests with X-Pass-Token naming a registration or a sign-in (GET /v1/account/register/{regId} and ' +
      'its steps, GET /v1/auth/sign-in/{signInId} and its proofs) and POST /v1/auth/token with grantType ' +
      '"registration" or "sign_in", once the pass token has expired; it counts as a refused credential of ' +
      'the client address.',
    action:
      'Have the person verify with the identity provider again and start a new registration or sign-in ' +
      'with the new pass token.',
    example: 'The pass token has expired; verify your identity again',
  },
  'pass-token-required': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'A token request whose grant is proved by the pass token came without X-Pass-Token.',
    when:
      'POST /v1/auth/token with grantType "registration" or "sign_in" and no X-Pass-Token header; it ' +
      'counts as a refused credential of the client address.',
    action: 'Send the pass token of the registration or sign-in in X-Pass-Token and retry.',
    example: 'X-Pass-Token (the credential of grantType "registration") is required',
  },
  'pass-token-used': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The identity verification behind this pass token already served a sign-in or identity check that has ended.',
    when:
      'POST /v1/auth/sign-in and POST /v1/auth/identity-checks with the pass token of a verification whose ' +
      'sign-in or identity check is completed, failed or expired: a verification is used once.',
    action: 'Have the person verify with the identity provider again and start over with the new pass token.',
    example:
      'This identity verification was used already (for a sign-in or an identity check): verify your identity again',
  },
  'pass-verification-failed': {
    title: 'Identity verification failed',
    status: 422,
    meaning:
      'The identity provider reported this verification as failed (or, for a registration, its result ' +
      'lacks the CI, name or phone), so nothing can be started with it.',
    when:
      'POST /v1/account/register, POST /v1/auth/sign-in and POST /v1/auth/identity-checks once the ' +
      "provider's result for the pass token's verification is a failure.",
    action: 'Have the person verify their identity again and retry with the new pass token.',
    example: 'identity verification failed',
  },
  'passkey-approval-not-for-this-request': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The passkey assertion answers a challenge issued for another request than the one it came with.',
    when:
      'Requests approved with a `passkeyAssertion` (e.g. POST /v1/account/close, PUT /v1/account/backup) ' +
      'and POST /v1/auth/sign-in/{signInId}/passkey, when the challenge named by `challengeId` was asked ' +
      'for with another request (another action or bound field).',
    action:
      'Ask for new options naming exactly this request (POST /v1/auth/passkeys/approvals/options, or ' +
      '…/passkey/options for a sign-in), sign that challenge and retry.',
    example: 'This approval challenge was issued for another request: {"action":"backup_replace"}',
  },
  'passkey-exists': {
    title: 'Conflict',
    status: 409,
    meaning: 'This passkey (its credential ID) is already registered.',
    when:
      'POST /v1/auth/passkeys with the registration response of a credential already stored, for this ' +
      'account or another.',
    action:
      "Nothing to add: if it is the user's own, it is already listed (GET /v1/auth/passkeys); otherwise " +
      'create a new credential on the authenticator, with new options.',
    example: 'This passkey is already registered',
  },
  'passkey-on-hold': {
    title: 'Forbidden',
    status: [403, 422],
    meaning:
      'The passkey used was added less than NEW_PASSKEY_HOLD_SECONDS ago, and a passkey that new is not ' +
      'trusted to approve this.',
    when:
      'Requests approved with a `passkeyAssertion` answer 403; POST /api/v1/transfer/crypto/execute ' +
      "answers 422 (titled 'Unprocessable request') when such a passkey signs the slot that would waive a " +
      "recipient's cooling-off or approve a transfer above the passkey threshold. Both carry `heldUntil`.",
    action:
      'Approve with another proof the request takes (the PIN, or a passkey registered earlier), or wait ' +
      'until `heldUntil` and retry; a transfer needs an older passkey or the wait.',
    example:
      'This passkey was added less than NEW_PASSKEY_HOLD_SECONDS ago: until 2026-11-27T09:00:00.000Z it ' +
      'approves nothing (use your PIN, or an older passkey)',
  },
  'passkey-required': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The operation needs the approval of one of the user's passkeys and came without it.",
    when:
      'Executing a signed operation without its passkey slot while the user has a passkey (POST ' +
      '/v1/wallet/networks/{networkId}/deploy, …/transfer-key, …/upgrade, POST /v1/wallet/keys/rotate, ' +
      'POST /v1/did/keys/assertion, a recovery cancel); and POST /api/v1/transfer/crypto/execute without a ' +
      "passkey slot for a transfer worth more than the user's passkey threshold.",
    action:
      'Prepare again, sign the passkey slot of the answer with a passkey and send it with the signed ' +
      'items; for a transfer, a user without a passkey registers one (POST /v1/auth/passkeys) or sends at ' +
      'most the threshold.',
    example: 'Approve this operation with your passkey: prepare again and sign its passkey slot',
  },
  'passkey-too-new': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The passkey that approved releasing a device's hold was registered after that device signed in.",
    when:
      'POST /v1/account/devices/{deviceId}/release approved by a passkey registered at or after the moment ' +
      'the held device signed in.',
    action: 'Approve the release with a passkey registered before that device signed in, or wait for the hold to end.',
    example: 'Only a passkey registered before this device signed in can release its hold',
  },
  'payload-too-large': {
    title: 'Payload too large',
    status: 413,
    meaning: 'The request body is larger than the service accepts.',
    when:
      'Any JSON body over JSON_BODY_MAX_BYTES (64 KiB by default), and multipart uploads of ID-card images ' +
      '(e.g. POST /v1/account/register/{regId}/uploads) whose file is over UPLOAD_MAX_BYTES (5 MiB by ' +
      'default) or whose form exceeds a limit on parts or fields.',
    action: 'Send a smaller body (resize or compress the image, keep JSON within the limit) and retry.',
    example: 'idCardImage must be at most 5242880 bytes',
  },
  'payout-account-not-verified': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The account named to pay out to is not one of the caller's verified bank accounts.",
    when:
      'POST /api/v1/payouts and POST /v1/account/close (with a balance) answer it for a bank_account_id that is not ' +
      "one of the caller's accounts verified with 1 KRW: money is paid out only to the person's own account.",
    action: 'Verify the account first (POST /api/v1/bank/send-won and its confirmation), then name it.',
    example:
      'ba_0c3e… is not one of your verified bank accounts: pay out only to an account of yours verified with 1 KRW (POST /api/v1/bank/send-won, then GET /api/v1/bank/accounts)',
  },
  'payout-daily-limit-exceeded': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The payout would take the day's payouts over PAYOUT_DAILY_LIMIT_KRW.",
    when:
      'POST /api/v1/payouts, counting the payouts of the Korean day (00:00 KST) that did not fail; `limit`, `used` ' +
      'and `resetsAt` say how much and until when.',
    action: 'Pay out what is left today, or the rest after `resetsAt`.',
    example:
      'Payouts are limited to 5,000,000 KRW a day; 4,000,000 KRW paid out today, 1,000,000 KRW left until 2026-12-02T15:00:00.000Z',
  },
  'payout-limit-exceeded': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The payout is larger than one payout may be (PAYOUT_MAX_AMOUNT_KRW).',
    when: 'POST /api/v1/payouts for an amount over the limit (`limit`). A closure pays the whole balance whatever it is.',
    action: 'Pay out in several payouts of at most `limit`.',
    example: 'A payout is limited to 2,000,000 KRW',
  },
  'payout-not-decidable': {
    title: 'Conflict',
    status: 409,
    meaning: "The payout does not wait for an operator's decision.",
    when:
      'POST /v1/payouts/{payoutId}/decision (operators) for a payout that is not in review for a send the centre has ' +
      'no record of: one processing, final, or in review for an answer the bank does not document.',
    action: 'Read the payout again; an undocumented answer waits for the bank to say more (it is asked on its own).',
    example:
      'This payout is processing (the bank: pending): only a payout the centre has no record of takes a decision',
  },
  'pin-already-set': {
    title: 'Conflict',
    status: 409,
    meaning: 'The user already has a PIN, and setting a first PIN cannot replace it.',
    when: 'POST /api/v1/pin and POST /v1/account/register/{regId}/pin for a user who has a PIN.',
    action: 'Change the PIN with PUT /api/v1/pin, or reset a forgotten one with POST /api/v1/pin/reset.',
    example: 'A PIN is already set; change it with PUT /api/v1/pin, or reset it with POST /api/v1/pin/reset',
  },
  'pin-already-used': {
    title: 'Conflict',
    status: 409,
    meaning: 'This encrypted PIN (its `jti`) already approved a request; a PIN approval is used once.',
    when:
      'Requests approved with the PIN (a step-up `pin`, the `current_pin` of PUT /api/v1/pin, the `pin` of ' +
      'POST /api/v1/transfer/crypto/execute) whose JWE was used before, unless it is the same request ' +
      'retried with the same Idempotency-Key.',
    action: 'Encrypt the PIN again, with a new random `jti`, for this request and retry.',
    example: 'This encrypted PIN already approved a request; encrypt it again for this one',
  },
  'pin-locked': {
    title: 'PIN locked',
    status: 423,
    meaning: 'Too many wrong PINs in a row locked the PIN for a while.',
    when:
      'Requests approved with the PIN after PIN_MAX_ATTEMPTS (5 by default) wrong PINs in a row, for ' +
      'PIN_LOCK_SECONDS (30 minutes by default); Retry-After says how long is left, and each lock is mailed ' +
      'to the person.',
    action:
      'Do not ask for the PIN again before Retry-After has passed; a person who forgot it resets it (POST ' +
      '/api/v1/pin/reset) with an identity check and the ID card.',
    example: 'Too many wrong PINs; try again in 1800 s',
  },
  'pin-not-bound': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The encrypted PIN does not name the request it approves, or lacks a usable random `jti`.',
    when: 'Requests approved with the PIN whose JWE has no `request` object, or no `jti` of 16 to 128 characters.',
    action:
      'Encrypt the PIN again with `request` naming the request it approves (as the step-up refusal shows ' +
      'it) and a random `jti`, then retry.',
    example: 'pin must name the request it approves: "request": {"action", "device_id"}, and a random "jti"',
  },
  'pin-not-for-this-request': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The encrypted PIN approves another request than the one it was sent with.',
    when:
      'Requests approved with the PIN whose JWE names a `request` with a field that differs from this ' +
      'request (the action, a device, the new PIN digest, the transfer).',
    action: 'Encrypt the PIN again naming exactly this request and retry.',
    example: 'current_pin approves another request: new_pin_sha256 differs',
  },
  'pin-not-set': {
    title: 'Conflict',
    status: 409,
    meaning: 'The user has no PIN, so a request that needs one cannot be approved with it.',
    when:
      'Requests approved with the PIN (a step-up `pin`, PUT /api/v1/pin, POST ' +
      '/api/v1/transfer/crypto/execute) from a user who has not set one.',
    action:
      'Have the user set a PIN (POST /api/v1/pin with an identity check proved with the ID card), or use ' +
      'another proof the request takes, then retry.',
    example: 'Set a PIN first (POST /api/v1/pin)',
  },
  'pin-reset-required': {
    title: 'PIN locked until reset',
    status: 423,
    meaning: 'The PIN was locked PIN_MAX_LOCKS times in a row and stays locked until it is reset.',
    when:
      'Requests approved with the PIN once wrong PINs have caused the PIN_MAX_LOCKS-th lock (3 by default) ' +
      'with no right PIN in between.',
    action:
      'Reset the PIN with POST /api/v1/pin/reset and an identity check proved with the ID card; waiting ' +
      'does not help.',
    example: 'Too many wrong PINs: reset the PIN (POST /api/v1/pin/reset) with an identity check and the ID card',
  },
  'price-unavailable': {
    title: 'Price unavailable',
    status: 503,
    meaning: 'No usable price in won can be had, so the service will not value a transfer or sponsor gas.',
    when:
      'POST /api/v1/transfer/crypto/prepare and …/execute when the token has no price, a stale one or one ' +
      'failing its checks; prepares the service pays gas for (deploy, key rotation, DID key...) and EVM ' +
      "transfers when the network's coin has none. It carries Retry-After: 60.",
    action: 'Wait Retry-After and retry; nothing in the request changes it.',
    example:
      'No ETH price in won can be had now (the price feed has no ETH price for the last hour), so no ' +
      'transfer is made; try again later',
  },
  'provider-error': {
    title: 'Upstream provider error',
    status: 502,
    meaning:
      'A provider (bank, mail, identity, exchange...) refused a request of the service for a reason ' +
      'retrying will not fix, or the identity provider could not be asked.',
    when:
      'Operations whose provider answers a refusal (its 4xx) the service does not turn into a problem of ' +
      'its own, e.g. the mail service refusing the address of POST /v1/account/email; and POST ' +
      '/v1/account/register, POST /v1/auth/sign-in or POST /v1/auth/identity-checks when the pass token ' +
      'cannot be checked with the identity provider.',
    action:
      'Do not resend the same request unchanged: correct what the provider refused where the detail says; ' +
      'when the identity provider could not be reached, retry later.',
    example: 'The identity verification service could not be reached',
  },
  'rate-limited': {
    title: 'Too many requests',
    status: 429,
    meaning: 'A rate limit on this operation, caller or credential was reached.',
    when:
      'Operations with limits of their own (registration and sign-in starts, ID-card uploads, requests ' +
      'carrying a PIN, 1 KRW sends, email codes, quotes, prepares...) per user, device, address or ' +
      'account; and any wrong credential from a client address that has had 30 refused in 5 minutes (the ' +
      'defaults; RATE_LIMITS changes them).',
    action: 'Wait the Retry-After seconds before trying again; the RateLimit fields, when present, show what is left.',
    example: 'Limit of 5 per 3600 s reached (registration-start-device); try again in 1200 s',
  },
  'recipient-cooling-off': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The recipient is new or still in its address-book cooling-off, so a transfer to it needs a passkey approval.',
    when:
      'POST /api/v1/transfer/crypto/execute without a passkey slot to an address not in the address book ' +
      '(while ADDRESS_COOLING_OFF_SECONDS is above 0) or added less than that long ago, for a transfer not ' +
      'above the passkey threshold.',
    action:
      'Add the address to the address book and wait until `usableFrom`, or approve the transfer with a ' +
      'passkey: prepare it again and send its signed passkey slot.',
    example:
      '0xBA46a92D78228643EB44c4Cf474E880a53a863aF is a new recipient on ETHEREUM: it is in your address ' +
      'book and can receive from 2026-11-26T00:45:12.454Z. To send now, approve this transfer with your ' +
      'passkey: POST /api/v1/transfer/crypto/prepare with the same fields and Idempotency-Key, sign its ' +
      'passkey slot and send it as signing.items.',
  },
  'recipient-sanctioned': {
    title: 'Recipient sanctioned',
    status: 422,
    meaning:
      'The address is on a sanctions list (OFAC SDN) or named by the screening provider, so the service ' +
      'sends nothing to it and lets it control no account.',
    when:
      'POST /api/v1/transfer/crypto/prepare and …/execute (the worker screens again before signing), POST ' +
      '/api/v1/transfer/address-book, and the new key of a first deploy prepare, POST ' +
      '/v1/wallet/keys/rotate/prepare or POST /v1/account/recovery; a compliance case is opened.',
    action: 'Do not retry: nothing the app sends makes this address pass; use another address.',
    example:
      'This address cannot receive transfers from this service (sanctions screening: OFAC SDN). Nothing was sent.',
  },
  'recovery-cooling-down': {
    title: 'Conflict',
    status: 409,
    meaning:
      'A recovery was cancelled recently, and a new one cannot be asked for until RECOVERY_COOLDOWN_SECONDS pass.',
    when:
      'POST /v1/account/recovery within RECOVERY_COOLDOWN_SECONDS (7 days by default) of the last ' +
      'cancelled recovery; Retry-After says how long is left.',
    action: 'Wait until the time the detail names (Retry-After) before asking again.',
    example:
      'A recovery of your account was cancelled at 2026-11-20T08:00:00.000Z: a new one can be asked for ' +
      'from 2026-11-27T08:00:00.000Z',
  },
  'recovery-in-progress': {
    title: 'Conflict',
    status: 409,
    meaning: 'A recovery of the account is already being scheduled or is scheduled; only one runs at a time.',
    when: 'POST /v1/account/recovery while an earlier recovery is scheduling or scheduled.',
    action:
      'Follow that recovery (GET /v1/account/recovery/{recoveryId}) until it ends, or cancel it on each ' +
      'network first.',
    example: 'A recovery of your account is in progress: wait for it, or cancel it first',
  },
  'recovery-not-pending': {
    title: 'Conflict',
    status: 409,
    meaning: 'The recovery on this network is not scheduled, so there is nothing to cancel there.',
    when:
      'POST /v1/account/recovery/{recoveryId}/networks/{networkId}/cancel/prepare when the recovery on ' +
      'that network is not yet scheduled, or already executed, cancelled, not recoverable or failed.',
    action:
      'Read the recovery (GET /v1/account/recovery/{recoveryId}); retry only once that network shows `scheduled`.',
    example: 'The recovery on ETHEREUM is executed: nothing to cancel',
  },
  'redirect-uri-not-registered': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The redirectUri is not one registered for the exchange authorization.',
    when:
      'POST /v1/asset/cex-accounts/authorize (the deprecated OAuth connection) with a redirectUri not in ' +
      'CEX_REDIRECT_URIS.',
    action: 'Send one of the URIs the detail lists and retry.',
    example: 'redirectUri must be one of: wallet://cex/callback',
  },
  'registration-already-started': {
    title: 'Registration already started',
    status: 409,
    meaning:
      'The registration (or sign-in) of this verification was started from another device or with another pass token.',
    when:
      'POST /v1/account/register, POST /v1/auth/sign-in or POST /v1/auth/identity-checks for a ' +
      'verification whose process another device or pass token started; the same device with the same pass ' +
      'token gets the first answer.',
    action: 'Continue on the device that started it, or verify the identity again to start a new one.',
    example: 'this registration was started from another device or pass token',
  },
  'registration-completed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The registration is completed; its steps cannot be done again.',
    when:
      'POST /v1/account/register/{regId}/uploads, a step (…/ekyc, …/backup) sent again that is not a ' +
      'repeat of the one that answered, and POST /v1/account/register with the pass token of a completed ' +
      'registration.',
    action:
      'Go on: get tokens with POST /v1/auth/token (grantType "registration"), or sign in when tokens were ' +
      'issued already.',
    example: 'This registration is already completed',
  },
  'registration-expired': {
    title: 'Gone',
    status: [410, 409],
    meaning: 'The registration expired before it was completed.',
    when:
      'Requests with X-Pass-Token naming the registration (GET /v1/account/register/{regId}, its steps, ' +
      "POST /v1/auth/token) answer 410; POST /v1/account/register with that verification's pass token " +
      "answers 409 (titled 'Conflict').",
    action: 'Have the person verify again and start a new registration (POST /v1/account/register).',
    example: 'This registration expired; start a new one',
  },
  'registration-failed': {
    title: 'Registration failed',
    status: 409,
    meaning: 'The registration failed (e.g. the last eKYC attempt was not verified) and cannot go on.',
    when:
      'Requests with X-Pass-Token naming the registration (GET /v1/account/register/{regId}, its steps, ' +
      "POST /v1/auth/token); POST /v1/account/register with that verification's pass token answers it too " +
      "(titled 'Conflict').",
    action: 'Have the person verify again and start a new registration (POST /v1/account/register).',
    example: 'This registration failed; start a new one',
  },
  'registration-not-completed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The registration has steps left, so what needs a completed registration cannot be done yet.',
    when:
      'POST /v1/auth/token with grantType "registration", and POST /v1/account/register/{regId}/pin, ' +
      'before the backup step has completed the registration.',
    action: 'Finish the steps left (GET /v1/account/register/{regId} names the current one), then retry.',
    example: 'Registration is at step ekyc; finish it first',
  },
  'registration-tokens-issued': {
    title: 'Conflict',
    status: 409,
    meaning: 'Tokens were issued for this registration, so its pass token can no longer set the first PIN.',
    when: 'POST /v1/account/register/{regId}/pin once tokens were issued for the registration (POST /v1/auth/token).',
    action: 'Set the PIN with POST /api/v1/pin and an identity check proved with the ID card.',
    example:
      'Tokens were issued for this registration: set the PIN with an identity check (POST /api/v1/pin with ' +
      'identityCheckId)',
  },
  'return-uri-not-registered': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The return_uri is not one of the addresses registered for the end of a bank consent.',
    when: 'POST /api/v1/bank/consent with a `return_uri` not in BANK_CONSENT_RETURN_URIS.',
    action: 'Send one of the addresses the detail lists, or no return_uri, and retry.',
    example: 'return_uri must be one of the registered return addresses (wallet://bank/consent)',
  },
  'same-owner': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The new owner of a recovery is the current owner, so there is nothing to recover.',
    when: 'POST /v1/account/recovery with a `newOwnerAddress` that already owns one of the deployed accounts.',
    action: 'Nothing to recover with that key; name a new key (one whose backup the person holds) to recover to.',
    example: 'The new owner is the current owner: nothing to recover',
  },
  'same-token': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The quote asks to exchange a token for itself.',
    when: 'POST /v1/exchange/quote with the same token as `source` and `target`.',
    action: 'Choose two different tokens and retry.',
    example: 'source and target must differ',
  },
  'screening-unavailable': {
    title: 'Screening unavailable',
    status: 503,
    meaning:
      'The address could not be screened against sanctions lists now (no current list, or the screening ' +
      'provider did not answer), and no unscreened address is let through.',
    when:
      'The operations that screen an address (transfer prepare and execute, POST ' +
      '/api/v1/transfer/address-book, a first deploy prepare, POST /v1/wallet/keys/rotate/prepare, POST ' +
      '/v1/account/recovery); Retry-After: 30.',
    action: 'Wait Retry-After and retry; it is an outage on the service side, nothing in the request causes it.',
    example:
      'The recipient cannot be screened against sanctions lists right now, so nothing is sent; try again shortly.',
  },
  'securities-firm-unsupported': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The securities firm named is not the broker this service reaches.',
    when: "POST /api/v1/securities/verify with a `firm_code` other than the configured broker's (243 with KIS).",
    action: 'Nothing can verify an account at that firm here; only the firm the detail names is reached.',
    example: 'Securities firm 240 is not reached by this service; 243 (한국투자증권) is.',
  },
  'securities-method-unsupported': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The verification method asked for is no longer offered.',
    when: 'POST /api/v1/securities/verify with `method` "pin" or "auth_code" (deprecated).',
    action: 'Send method "app_key" with the app key and secret the broker issued for the account.',
    example:
      'The pin method is no longer offered: no broker publishes an API that checks it for a third party. ' +
      'Send method "app_key" with the app key and secret the broker issued for the account.',
  },
  'service-unavailable': {
    title: 'Service unavailable',
    status: 503,
    meaning:
      'A dependency (the database, the workflow service, a chain node or a provider) cannot serve now, or ' +
      'the network asked for is not configured.',
    when:
      'Any operation while the database is restarting or unreachable (or rolled the request back for a lock ' +
      'another writer held), the workflow service is down, or a ' +
      'chain node or provider does not answer (through retries); transfers, the address book and DID keys ' +
      'on a network not configured. It carries Retry-After: 5.',
    action:
      'Retry after Retry-After, with the same Idempotency-Key where the operation takes one; a network not ' +
      'configured stays unavailable until an operator configures it.',
    example: 'The database is restarting or unreachable; retry shortly',
  },
  'sign-in-failed': {
    title: 'Too many attempts',
    status: 422,
    meaning:
      'The last allowed ID card of a sign-in or identity check was refused, so that sign-in or check has failed.',
    when:
      'POST /v1/auth/sign-in/{signInId}/id-card and POST ' +
      '/v1/auth/identity-checks/{identityCheckId}/id-card on the last attempt (each earlier refusal showed ' +
      '`attemptsLeft`).',
    action:
      'Have the person verify with the identity provider again and start a new sign-in or identity check; ' +
      'the failed one cannot go on.',
    example:
      'the card does not read as the person verified at registration; that was the last attempt: this ' +
      'sign-in failed, verify your identity again to start a new one',
  },
};
