import type { ProblemEntry } from './entry';

/** Problem types, part 2 of the catalogue (alphabetical; index.ts joins the parts). */
export const PART_2: Record<string, ProblemEntry> = {
  'idempotency-request-in-progress': {
    title: 'Request in progress',
    status: 409,
    meaning: 'An earlier request with the same Idempotency-Key and payload is still running, so this one was not run.',
    when:
      'Any operation that takes an Idempotency-Key (e.g. POST /v1/account/register, POST ' +
      '/api/v1/charge/execute) answers it, with Retry-After: 1, while the first request with that key is still ' +
      'being processed, or when requests with the key keep racing each other.',
    action:
      'Wait Retry-After and send the same request with the same key again: once the first has finished, its ' +
      'answer is replayed.',
    example: 'A request with this Idempotency-Key is still being processed',
  },
  'identity-check-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The identity check presented is too old to approve anything.',
    when:
      'A request that presents an identityCheckId as its step-up (e.g. POST /api/v1/pin/reset, POST ' +
      '/v1/account/recovery) answers it when the check was verified more than STEP_UP_IDENTITY_SECONDS ago, or ' +
      'started more than twice that long ago.',
    action:
      'Have the person verify their identity again and start a new check (POST /v1/auth/identity-checks), then ' +
      'send the request with the new identityCheckId.',
    example: 'This identity check is too old: verify your identity again',
  },
  'identity-check-needs-id-card': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The request needs an identity check proved with the ID card, and the one presented was not.',
    when:
      'Requests whose step-up takes an identity check only together with the ID card (POST /api/v1/pin, POST ' +
      '/api/v1/pin/reset, POST /v1/account/recovery, POST /v1/account/email, the first POST ' +
      '/v1/wallet/networks/{networkId}/deploy/prepare) answer it when the identityCheckId was verified without ' +
      'the card.',
    action:
      'Start a new identity check for this request and prove it with the ID card (POST ' +
      '/v1/auth/identity-checks/{identityCheckId}/id-card) before sending the request again.',
    example: 'This action needs an identity check proved with your ID card: start one for this request',
  },
  'identity-check-not-for-this-request': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The identity check presented was started to approve a different request.',
    when:
      'A request that presents an identityCheckId as its step-up answers it when the `request` the check was ' +
      'started with (action and bound values) is not this very request, e.g. another new PIN or another owner ' +
      'address.',
    action:
      'Send the request exactly as named in the check, or start a new check (POST /v1/auth/identity-checks) ' +
      'whose `request` names this one.',
    example: 'This identity check approves another request: {"action":"kyc_renew"}',
  },
  'identity-check-not-in-progress': {
    title: 'Conflict',
    status: 409,
    meaning: 'The identity check no longer takes an ID card: it is verified, used, failed or expired.',
    when: 'POST /v1/auth/identity-checks/{identityCheckId}/id-card answers it for a check no longer in progress.',
    action:
      'Read the check (GET /v1/auth/identity-checks/{identityCheckId}): a verified one can be used as it is; ' +
      'for a used, failed or expired one, start a new check.',
    example: 'This identity check is verified',
  },
  'identity-check-not-verified': {
    title: 'Conflict',
    status: 409,
    meaning: 'The identity check presented has not been verified, so it approves nothing yet (or ever).',
    when:
      'A request that presents an identityCheckId as its step-up answers it when the check is still in progress ' +
      '(its ID card not yet proved), has failed, or expired before it was verified.',
    action:
      'For a check in progress, prove it with the ID card (POST ' +
      '/v1/auth/identity-checks/{identityCheckId}/id-card) and send the request again; otherwise start a new ' +
      'check.',
    example: 'This identity check is in_progress: prove it with your ID card first',
  },
  'identity-check-stale': {
    title: 'Identity verification too old',
    status: 422,
    meaning: 'The identity verification behind the pass token came back too long ago to start an identity check.',
    when:
      'POST /v1/auth/identity-checks answers it when the identity result arrived more than ' +
      'STEP_UP_IDENTITY_SECONDS before the check was started.',
    action: 'Have the person verify their identity again and start the check at once with the new pass token.',
    example: 'this identity verification is more than 300 s old: verify your identity again',
  },
  'identity-check-used': {
    title: 'Conflict',
    status: 409,
    meaning: 'The identity check presented has already approved a request; a check approves one request once.',
    when:
      'A request that presents an identityCheckId as its step-up answers it when the check was spent on an ' +
      'earlier request, unless this is a retry of that request with the same Idempotency-Key.',
    action:
      'Have the person verify their identity again and start a new check for this request (POST ' +
      '/v1/auth/identity-checks).',
    example: 'This identity check approved a request already: verify your identity again for this one',
  },
  'identity-mismatch': {
    title: "Not the account holder's identity",
    status: 422,
    meaning: 'The person who verified their identity is not the holder of the signed-in account.',
    when:
      'POST /v1/auth/identity-checks answers it when the pass token is of a verification of another person (one ' +
      'with another account, or with none).',
    action:
      'Nothing the app can change fixes it: the account holder must do the identity verification themselves, ' +
      'then start the check with that pass token.',
    example: 'the person verified is not the holder of this account',
  },
  'insufficient-balance': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The account, wallet or won balance does not hold enough to make the transfer or payout, counting transfers still in flight.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it, after the PIN is checked, when the amount is more than ' +
      "is available; on Solana also when the fee (and a new token account's rent) cannot be paid or the wallet " +
      'would be left below the rent-exempt minimum. POST /api/v1/payouts answers it when the won balance (`balance`) ' +
      'holds less than the amount: a payout leaves the balance when accepted, so two at once never spend the same won.',
    action:
      'Show the available amount from the detail and let the user send less, or add funds first; retrying the ' +
      'same request does not help until the balance changes.',
    example: 'Available 0.05 ETH; asked 0.1 ETH',
  },
  'insufficient-liquidity': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'No route through the exchange pools can trade the amount asked.',
    when:
      'POST /v1/exchange/quote answers it when every route between the two tokens fails for that amount: an ' +
      'exact output more than the pools hold, or an input that would run a pool out of liquidity or give nothing.',
    action: 'Ask for a smaller (or, for a tiny input, larger) amount.',
    example: 'The pools cannot trade that amount of USDT',
  },
  'internal-error': {
    title: 'Internal server error',
    status: 500,
    meaning: 'The service failed in a way it does not expect; the cause is logged, not shown.',
    when:
      'Any operation answers it when an error occurs that maps to no known problem (not a request error, a ' +
      'workflow failure or an unreachable dependency).',
    action:
      'Retry later; if it persists, contact support with the `instance` (the request id) of the answer. Nothing ' +
      'in the request is known to be wrong.',
    example:
      'Something went wrong on our side. Please contact a representative. / 일시적인 오류가 발생했습니다. 담당자에게 문의해 주세요.',
  },
  'invalid-address': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'An address in the request is malformed for its network, or is not one that can receive this.',
    when:
      'Operations that take an address (e.g. POST /api/v1/transfer/crypto/prepare and /execute, POST ' +
      '/api/v1/transfer/address-book, POST /v1/account/recovery, POST /v1/wallet/keys/rotate/prepare) answer it ' +
      'for an EVM address that is not 0x and 40 hex digits or fails its EIP-55 checksum, or a Solana address ' +
      "that is not base58; transfers also for the sender's own address, and on Solana a program or token " +
      'account.',
    action: 'Ask the user to check and correct the address (copy it again), then send the request again.',
    example: 'The address fails its EIP-55 checksum (a typo?)',
  },
  'invalid-amount': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'An amount in the request is malformed, not positive, too precise, or otherwise not acceptable.',
    when:
      'Operations that take an amount (POST /api/v1/transfer/crypto/prepare and /execute, POST ' +
      '/api/v1/charge/execute, POST /v1/exchange/quote, the caps of POST ' +
      '/v1/wallet/networks/{networkId}/transfer-key/prepare) answer it for such an amount; Solana transfers ' +
      'also for less SOL than a new address needs.',
    action:
      'Fix the amount as the detail says (a plain decimal, above zero, no more decimals than the token has) and ' +
      'send the request again.',
    example: 'USDT has 6 decimal places; "10.1234567" has more',
  },
  'invalid-api-key': {
    title: 'Invalid credential',
    status: 401,
    meaning: "The identity provider's callback did not carry the configured API key.",
    when:
      'POST /v1/auth/pass/callback answers it when X-Api-Key is missing or wrong; it counts against the ' +
      'failed-credentials limit of the caller address.',
    action: 'Only the identity provider calls this: configure it with the right key. Retrying as is will not help.',
    example: 'The X-Api-Key header is missing or wrong',
  },
  'invalid-cursor': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The `cursor` query parameter is not one this list returned.',
    when:
      'Any list that pages (transactions, address book, devices, passkeys, credentials, exchange accounts, webhook ' +
      "endpoints, compliance cases) answers it when `cursor` does not decode as one of the list's own next cursors " +
      '(`nextCursor` / `next_cursor`): made up, altered, or taken from another list.',
    action: 'Start again without `cursor` and page on with the cursors (or the `Link: rel="next"`) the list returns.',
    example: 'cursor is not one this API returned for this list; start again without it',
  },
  'invalid-ivms101': {
    title: 'Bad request',
    status: 400,
    meaning: 'A Travel Rule inquiry from another provider does not carry a usable IVMS101 message.',
    when:
      'POST /trp/v3/inquiries answers it when the IVMS101 cannot be read, or its beneficiary names no account ' +
      'or one that is neither an EVM nor a Solana address.',
    action: 'For the sending provider: fix the IVMS101 message and send the inquiry again.',
    example: 'The IVMS101 beneficiary names no account, or one that is neither an EVM nor a Solana address',
  },
  'invalid-identity-return': {
    title: 'Invalid identity verification return',
    status: 400,
    meaning:
      "What came back to the service from NICE's window does not open as the result of the verification it names.",
    when:
      'GET /v1/auth/pass/nice/return (IDENTITY_PROVIDER=nice) answers it when no verification was opened with ' +
      'its `token_version_id`, the verification has expired, the `integrity_value` does not hold for `enc_data` ' +
      "under that verification's keys, or the result names another request or site; nothing is delivered.",
    action: 'Only NICE sends a browser here: the person starts a new verification from the app.',
    example: 'The result does not open under this verification (integrity_value or enc_data)',
  },
  'invalid-operator-session': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The operator session cookie is invalid or expired, or its operator is no longer configured.',
    when:
      'Operator routes reached with a session cookie instead of a token (in practice POST /codec/decode, as the ' +
      'cookie is sent to /codec paths only) answer it.',
    action: 'Sign in again at /codec/login (POST /codec/session) with a current operator token.',
    example: 'The operator session is invalid or expired: sign in again at /codec/login',
  },
  'invalid-operator-token': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The operator token presented is not one of the configured operator tokens.',
    when:
      'Every operator route (e.g. GET /v1/compliance/cases, the webhook endpoints, POST /codec/decode) answers ' +
      'it for a wrong `Authorization: Bearer op_…`, and POST /codec/session for a wrong token in the body; it ' +
      'counts against the failed-credentials limit of the caller address.',
    action: 'Use a token from OPERATOR_TOKENS; retrying with the same one will not help.',
    example: 'The operator token is not valid',
  },
  'invalid-pass-token': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The identity provider does not report the pass token as active and unexpired.',
    when:
      'POST /v1/account/register, POST /v1/auth/sign-in and POST /v1/auth/identity-checks answer it when the ' +
      "provider's introspection of `passToken` says it is inactive, names no verification, or has expired.",
    action: 'Have the person do the identity verification again and use the new pass token.',
    example: 'The pass token is invalid or expired',
  },
  'invalid-pass-code': {
    title: 'Invalid pass code',
    status: 400,
    meaning: "The code and verifier presented for a verification's pass token are not its own.",
    when:
      'POST /v1/auth/pass/requests/{passRequestId}/token (IDENTITY_PROVIDER=nice) answers it for a code that is ' +
      "not the one the verification's return gave (a code given before a reload of the return is replaced), a " +
      '`codeVerifier` whose SHA-256 is not the `codeChallenge` sent when opening it, or a verification that has ' +
      'expired. The same code and verifier again answer the pass token already issued.',
    action: 'Start a new verification (POST /v1/auth/pass/requests) with a new verifier; retrying will not help.',
    example: 'The code or its verifier is not the one of this verification, or the code was used already',
  },
  'invalid-passkey-assertion': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'A passkey assertion failed verification (challenge, origin, relying party, user verification or signature).',
    when:
      'Requests that carry a passkey assertion answer it: a step-up `passkeyAssertion`, the passkey slot of a ' +
      'prepared operation at its execute (e.g. POST /api/v1/transfer/crypto/execute, POST ' +
      '/v1/wallet/networks/{networkId}/deploy), and POST /v1/auth/sign-in/{signInId}/passkey.',
    action:
      'Have the user approve with the passkey again; for a step-up or a sign-in, ask for new options first (the ' +
      'failed attempt spent the challenge).',
    example: 'The passkey approval could not be verified',
  },
  'invalid-passkey-registration': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The new passkey's registration response failed verification.",
    when:
      'POST /v1/auth/passkeys answers it when the WebAuthn registration response does not verify against its ' +
      'challenge, origin and relying party, or lacks user verification.',
    action: 'Ask for new registration options (the challenge is spent) and have the user create the passkey again.',
    example: 'The passkey registration could not be verified',
  },
  'invalid-pin': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The PIN inside the encrypted PIN field is not 6 digits.',
    when:
      'Operations that take an encrypted PIN (setting, changing or resetting it, e.g. POST /api/v1/pin, and ' +
      'every request a PIN approves, e.g. POST /api/v1/transfer/crypto/execute) answer it when the decrypted ' +
      '`pin` is not exactly 6 digits.',
    action: 'Ask the user for a 6-digit PIN, encrypt it again and send the request again.',
    example: 'pin: the PIN is 6 digits',
  },
  'invalid-pin-encryption': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'An encrypted PIN field could not be decrypted, or was encrypted too long ago.',
    when:
      'Operations that take an encrypted PIN (e.g. POST /api/v1/pin, PUT /api/v1/pin, POST ' +
      '/api/v1/transfer/crypto/execute) answer it when the field is not a JWE (ECDH-ES+A256KW, A256GCM) to the ' +
      'key at /api/v1/pin/public-key, or its `iat` is more than 300 s old (or over 60 s ahead).',
    action:
      'Encrypt the PIN again to the current key from /api/v1/pin/public-key, with a fresh `iat`, and send the ' +
      'request again.',
    example: 'pin is stale: encrypt it again (iat within 300 s)',
  },
  'invalid-public-key': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The public key is not of the form its key type requires.',
    when:
      'POST /v1/did/keys/assertion/prepare answers it when `publicKey` is not 0x hex of whole bytes, an Ed25519 ' +
      'key is not 32 bytes, or a secp256k1 key is not a valid 33- or 65-byte public key.',
    action: 'Send the public key in the form of its `keyType` and prepare again.',
    example: 'an Ed25519 public key is 32 bytes',
  },
  'invalid-refresh-token': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The refresh token is unknown, expired, revoked, of another device, or was just rotated by another call.',
    when:
      'POST /v1/auth/token with grantType "refresh_token" answers it; presenting a token that was already ' +
      'rotated also revokes its whole chain.',
    action:
      'Do not retry with the same token: discard the stored tokens and have the person sign in again (POST ' +
      '/v1/auth/sign-in).',
    example: 'The refresh token is invalid, expired or revoked',
  },
  'invalid-signature': {
    title: 'Unprocessable request',
    status: [401, 422],
    meaning:
      'A signature does not check out: a signed slot not made by the expected key over the prepared digest, or ' +
      'a bank webhook whose HMAC does not match.',
    when:
      'The executes of prepared on-chain operations (e.g. POST /v1/wallet/networks/{networkId}/deploy, POST ' +
      '/v1/wallet/keys/rotate, POST /v1/did/keys/assertion) answer it with 422 for a malformed signature or one ' +
      'by another key; POST /api/v1/bank/webhooks/withdrawals answers it with 401 "Invalid credential" for a ' +
      'missing or wrong X-Bank-Signature.',
    action:
      'Sign the prepared payload with the key the slot names and execute again (prepare again if needed); a ' +
      'bank must sign the raw body with the shared secret.',
    example: 'The signature is not by the expected key',
  },
  'invalid-token': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The access token does not verify, or it belongs to a user who is no longer active.',
    when:
      'Every Bearer operation answers it for a token with a bad signature, issuer, audience or type, or one ' +
      'whose user is suspended, closed or gone; POST /v1/auth/token also when the user is no longer active. An ' +
      'expired token answers token-expired instead.',
    action:
      'Do not retry with the same token: refresh it (POST /v1/auth/token) or, if that fails too, have the ' +
      'person sign in again.',
    example: 'The access token is invalid or expired',
  },
  'invalid-transfer-key-change': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The transfer-key change asked for does not fit its action.',
    when:
      'POST /v1/wallet/networks/{networkId}/transfer-key/prepare answers it for `validForSeconds` with an ' +
      'action other than renew or rotate, or above TRANSFER_SIGNER_VALIDITY_SECONDS, caps with revoke, or ' +
      'set-caps without caps.',
    action: 'Fix the body as the detail says and prepare again.',
    example: 'set-caps needs caps, e.g. {"ETH":"1"}',
  },
  'invalid-trp-message': {
    title: 'Bad request',
    status: 400,
    meaning: 'A Travel Rule (TRP) confirmation or resolution from another provider is not well formed.',
    when:
      'POST /trp/v3/confirmations/{recordId}/{token} answers it unless exactly one of txid or canceled is sent; ' +
      'POST /trp/v3/callbacks/{transferId}/{token} unless exactly one of approved, rejected or version is sent.',
    action: 'For the other provider: send a message of one kind, as TRP defines it.',
    example: 'A TRP confirmation carries either txid or canceled, and not both',
  },
  'invalid-undo-code': {
    title: 'Invalid credential',
    status: 401,
    meaning: 'The change id and code do not undo any email change.',
    when:
      'POST /v1/account/email/undo answers it for an unknown change id or a code that is not the one mailed for ' +
      'it; it counts against the failed-credentials limit of the caller address.',
    action: 'Have the person use the change id and code exactly as mailed to the replaced address.',
    example: 'This change id and code do not undo an email change',
  },
  'last-device': {
    title: 'Conflict',
    status: 409,
    meaning: 'Signing out this device would leave the account with no way to sign in again.',
    when:
      'POST /v1/auth/sign-out and DELETE /v1/account/devices/{deviceId} for the calling device answer it when ' +
      'it is the only signed-in device and the account has no passkey and no ID card on file.',
    action: 'Have the person add a passkey (POST /v1/auth/passkeys) or renew KYC (POST /v1/account/kyc/renew) first.',
    example:
      'This is the only signed-in device and the account has no passkey or ID card on file to sign in again ' +
      'with: add a passkey or renew your KYC first',
  },
  'limit-daily': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The transfer would take the user's crypto transfers of the Korean day past their daily limit in won.",
    when:
      'POST /api/v1/transfer/crypto/execute answers it, after the PIN is checked, when what was sent today ' +
      "(transfers not failed) plus this transfer's won value now is over the daily limit.",
    action:
      'Show what is left from the detail and let the user send less, or wait until the time it names (00:00 KST).',
    example:
      'Transfers are limited to 10,000,000 KRW a day; 9,200,000 KRW used today, 800,000 KRW left until ' +
      '2026-11-26T15:00:00.000Z; this one is worth 1,500,000 KRW now.',
  },
  'limit-exceeded': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The charge is larger than the largest single charge allowed (CHARGE_MAX_AMOUNT_KRW).',
    when: 'POST /api/v1/charge/execute answers it when `amount` is over the limit.',
    action: 'Charge at most the amount the detail names (split a larger charge).',
    example: 'A single charge is limited to 2,000,000 KRW',
  },
  'limit-per-transfer': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The transfer is worth more in won than the user's per-transfer limit.",
    when:
      'POST /api/v1/transfer/crypto/prepare and POST /api/v1/transfer/crypto/execute answer it, before the PIN ' +
      'is checked, when the value at the current price is over the limit.',
    action: 'Let the user send at most the amount the detail names.',
    example:
      'A single transfer is limited to 5,000,000 KRW; this one is worth 6,120,000 KRW now. Send at most ' +
      '5,000,000 KRW.',
  },
  'malformed-json': {
    title: 'Malformed JSON',
    status: 400,
    meaning: 'The request body is not valid JSON.',
    when: 'Any operation with a JSON body (POST, PUT, PATCH, DELETE) answers it when the body cannot be parsed.',
    action: 'Fix the client so it sends valid UTF-8 JSON, then send the request again.',
    example: 'The request body is not valid JSON',
  },
  'malformed-multipart': {
    title: 'Malformed multipart body',
    status: 400,
    meaning: 'The multipart/form-data body could not be parsed.',
    when:
      'Operations that take an image as multipart (POST /v1/account/register/{regId}/uploads and /ekyc, POST ' +
      '/v1/auth/sign-in/{signInId}/id-card, POST /v1/auth/identity-checks/{identityCheckId}/id-card, POST ' +
      '/v1/account/kyc/renew) answer it for a broken form (bad boundary, truncated parts).',
    action: 'Fix how the form is built (one file part, the documented fields) and send it again.',
    example: 'The multipart/form-data body could not be parsed',
  },
  'method-not-allowed': {
    title: 'Method not allowed',
    status: 405,
    meaning: 'The path exists, but not with this HTTP method.',
    when:
      'Any path answers it for a method none of its routes has (e.g. GET /api/v1/charge/execute); the Allow ' +
      'header lists the methods it does have.',
    action: 'Use one of the methods in Allow.',
    example: 'GET is not supported here; allowed: POST',
  },
  'name-mismatch': {
    title: 'Not the verified name',
    status: 422,
    meaning: 'The name submitted is not the name the identity provider verified at registration.',
    when: 'POST /api/v1/kyc/basic-info answers it when `full_name` is not the verified name.',
    action: 'Ask the person for their legal name as verified (it cannot differ) and submit again.',
    example: 'full_name must be the name verified with the identity provider at registration',
  },
  'nationality-mismatch': {
    title: 'Not the verified nationality',
    status: 422,
    meaning: 'The nationality submitted is not the one the identity provider verified at registration.',
    when:
      'POST /api/v1/kyc/basic-info answers it when the provider gave an ISO 3166-1 nationality at registration ' +
      'and `nationality` is another.',
    action: 'Submit the nationality the detail names.',
    example: 'nationality must be the one verified with the identity provider at registration (KR)',
  },
  'network-not-in-rotation': {
    title: 'Network not in this rotation',
    status: 404,
    meaning: 'The key rotation task does not include the network named.',
    when:
      'POST /v1/wallet/keys/rotate/{taskId}/networks/{networkId}/retry answers it when `networkId` is not one ' +
      "of the task's networks.",
    action: 'Retry only a network listed in the task (GET /v1/wallet/keys/rotate/{taskId}).',
    example: 'POLYGON is not part of this rotation',
  },
  'network-not-retryable': {
    title: 'Network cannot be retried',
    status: 409,
    meaning: "The network's part of a key rotation cannot be retried now.",
    when:
      'POST /v1/wallet/keys/rotate/{taskId}/networks/{networkId}/retry answers it when that network did not ' +
      'fail retryably (it is processing, completed, or failed for good), is being retried already, or was tried ' +
      '10 times.',
    action:
      'Poll the task (GET /v1/wallet/keys/rotate/{taskId}); retry only a network shown `failed` with ' +
      '`retryable: true`.',
    example: 'ETHEREUM is failed and cannot be retried',
  },
  'no-passkey': {
    title: 'Conflict',
    status: 409,
    meaning: 'The account has no passkey, so no passkey challenge can be issued.',
    when:
      'POST /v1/auth/passkeys/approvals/options and POST /v1/auth/sign-in/{signInId}/passkey/options answer it ' +
      'for an account without a passkey.',
    action:
      'Use another proof: the PIN (or an identity check) for a step-up, the ID card for a sign-in (POST ' +
      '/v1/auth/sign-in/{signInId}/id-card).',
    example: 'You have no passkey: approve with your PIN instead',
  },
  'no-route': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The network's exchange offers no route between the two tokens, directly or through one other token.",
    when:
      'POST /v1/exchange/quote answers it when both tokens are traded on the network but no pool of one or two ' +
      "hops joins them (EVM: none among the factory's pools at the configured fee tiers and intermediaries; SOLANA: " +
      'Jupiter finds no route).',
    action: 'Choose another pair of tokens; retrying the same pair will not help.',
    example: 'No route from WBTC to USDC on ETHEREUM (direct or through one token)',
  },
  'no-smart-accounts': {
    title: 'Conflict',
    status: 409,
    meaning: 'The network has no smart accounts in this service: its wallet is custodial (a Solana network).',
    when:
      'Smart-account operations under /v1/wallet/networks/{networkId} (deploy and its prepare, the transfer key ' +
      'and its changes, the account upgrade, the recovery settings) answer it when the network is a Solana one.',
    action:
      'Do not offer the operation on that network; open its wallet with POST ' +
      '/v1/wallet/networks/{networkId}/wallet instead.',
    example: 'SOLANA has no smart accounts here; open your wallet with POST /v1/wallet/networks/SOLANA/wallet',
  },
  'not-found': {
    title: 'Not found',
    status: 404,
    meaning: "The resource named does not exist, is not the caller's, or the path has no route at all.",
    when:
      'Operations that name a resource by id (e.g. GET /api/v1/charge/{chargeId}, GET ' +
      '/v1/auth/identity-checks/{identityCheckId}) answer it when it is not found for the caller; any path no ' +
      'route serves answers it too.',
    action: 'Check the id or path; do not retry unchanged.',
    example: 'Key rotation task rot_0f5b7c2e-8a41-4d6e-9b3a-2c7d1e9f4a60 was not found',
  },
  'not-ready': {
    title: 'Service unavailable',
    status: 503,
    meaning: 'The service cannot reach its database or Temporal, so it is not ready for traffic.',
    when:
      'GET /readyz answers it, with Retry-After: 5 and `checks` naming what failed, when the database or ' +
      'Temporal does not answer within 2 s.',
    action: 'Wait Retry-After and probe again; for an orchestrator, keep the instance out of rotation meanwhile.',
    example: 'Not ready: temporal unreachable',
  },
};
