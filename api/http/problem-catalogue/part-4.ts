import type { ProblemEntry } from './entry';

/** Problem types, part 4 of the catalogue (alphabetical; index.ts joins the parts). */
export const PART_4: Record<string, ProblemEntry> = {
  'sign-in-not-completed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The sign-in has not been proved (or it failed or expired), so it cannot be exchanged for tokens yet.',
    when:
      'POST /v1/auth/token with grantType "sign_in" answers it when the sign-in it names is not completed: no ' +
      'passkey or ID-card proof has been recorded for it, or it failed or expired.',
    action:
      'Prove the sign-in first (POST /v1/auth/sign-in/{signInId}/passkey or /id-card), then ask for tokens again; a ' +
      'failed or expired sign-in needs a new identity verification and a new sign-in.',
    example: 'This sign-in is in_progress: prove it with a passkey or your ID card first',
  },
  'sign-in-not-in-progress': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The sign-in no longer takes a proof: it was completed, failed or expired, or another proof of it is being ' +
      'checked.',
    when:
      'POST /v1/auth/sign-in/{signInId}/passkey/options, /passkey and /id-card answer it (title "Conflict") for a ' +
      'sign-in that is not in_progress; the sign-in workflow answers the same type titled "Sign-in not in progress" ' +
      'when a proof (or POST /v1/auth/sign-in) arrives while another is being checked or after the sign-in ended.',
    action:
      'Read the sign-in (GET /v1/auth/sign-in/{signInId}): exchange a completed one for tokens (POST ' +
      '/v1/auth/token), start over with a new identity verification after a failed or expired one, or wait for the ' +
      'proof being checked.',
    example: 'This sign-in is completed',
  },
  'sign-in-used': {
    title: 'Conflict',
    status: 409,
    meaning: 'Tokens were already issued for this sign-in: a sign-in is exchanged for tokens once only.',
    when:
      'POST /v1/auth/token with grantType "sign_in" answers it when tokens were issued for that sign-in before (a ' +
      'second exchange, or the loser of two at once).',
    action:
      'Use the tokens of the first exchange; if they were lost, verify the identity again and start a new sign-in ' +
      '(POST /v1/auth/sign-in).',
    example: 'Tokens were issued for this sign-in already: verify your identity again to sign in again',
  },
  'slot-already-used': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The prepared operation of this signed slot was already executed, or handed over with another signature: a ' +
      'slot is used once.',
    when:
      'The execute routes of prepared operations answer it (POST /v1/wallet/networks/{networkId}/deploy, ' +
      '/transfer-key and /upgrade, POST /v1/did/keys/assertion, POST ' +
      '/v1/account/recovery/{recoveryId}/networks/{networkId}/cancel and POST /v1/wallet/keys/rotate) when the ' +
      'operation has finished or was submitted with a different signature; the very same signed slot sent again is ' +
      'accepted instead.',
    action:
      "Do not sign it again: poll the operation's status to see how it went, and prepare a new operation to make " +
      'the change again.',
    example: 'This deployment was already executed',
  },
  'slot-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The prepared operation expired before it was executed, so its signed slot can no longer be used.',
    when:
      'The execute routes of prepared operations answer it (POST /v1/wallet/networks/{networkId}/deploy, ' +
      '/transfer-key and /upgrade, POST /v1/did/keys/assertion, POST ' +
      '/v1/account/recovery/{recoveryId}/networks/{networkId}/cancel and POST /v1/wallet/keys/rotate) when the ' +
      'operation is still only prepared and its expiry has passed.',
    action: 'Prepare the operation again, have the owner key sign the new slot, and execute that one.',
    example: 'The prepared deployment expired; prepare again',
  },
  'slot-mismatch': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The signed slots sent do not fit the prepared operation: the wrong number or kind of slots, a passkey slot ' +
      'of another operation, or parameters other than those prepared.',
    when:
      'The execute routes that take signed slots (POST /v1/wallet/networks/{networkId}/deploy, /transfer-key and ' +
      '/upgrade, POST /v1/did/keys/assertion, POST /v1/account/recovery/{recoveryId}/networks/{networkId}/cancel ' +
      'and POST /v1/wallet/keys/rotate, and POST /api/v1/transfer/crypto/execute) answer it for anything but one ' +
      'on-chain slot and at most one passkey slot (exactly the passkey slot for a transfer), an authMethod other ' +
      'than passkey, a passkey slot from a user with no passkey or of another operation, an on-chain slot without ' +
      'authResponse.signature, or an algorithm or keyUri other than prepared.',
    action:
      'Send the slots exactly as the prepare answer listed them, each signed as asked; prepare again if the ' +
      'passkeys of the account changed since.',
    example: 'The slot parameter does not match the prepared slot',
  },
  'smart-account-network': {
    title: 'Conflict',
    status: 409,
    meaning: 'The network holds smart accounts, which are deployed rather than opened as a wallet.',
    when:
      'POST /v1/wallet/networks/{networkId}/wallet answers it for a network that is not a Solana network (an EVM ' +
      'network).',
    action:
      'Deploy the account on that network instead (POST /v1/wallet/networks/{networkId}/deploy/prepare, then ' +
      '/deploy); open wallets only on Solana networks.',
    example: 'Accounts on ETHEREUM are smart accounts: deploy one with /v1/wallet/networks/ETHEREUM/deploy',
  },
  'source-ambiguous': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      "The charge's source names a bank where the user has more than one connected account, so it does not say " +
      'which one to charge.',
    when:
      "POST /api/v1/charge/execute answers it when `source` (a bank name or code) matches several of the user's " +
      'connected accounts; `bankAccountIds` lists them.',
    action:
      'Ask the user which account to charge and send its bank_account_id as `source` (GET /api/v1/bank/accounts ' +
      'lists them).',
    example: 'You have 2 accounts at 004: name one by its bank_account_id (GET /api/v1/bank/accounts)',
  },
  'source-not-connected': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The charge's source is not one of the user's connected bank accounts.",
    when:
      'POST /api/v1/charge/execute answers it when `source` matches no connected account of the user by ' +
      'bank_account_id, bank name or bank code.',
    action:
      'Connect the account first (POST /api/v1/bank/send-won, then confirm its code), or name an account that is ' +
      'connected.',
    example: '004 is not one of your connected accounts; verify it with /api/v1/bank/send-won first',
  },
  'stale-quote': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The quote a swap names can no longer be acted on: it expired, or the pool moved past its signed minimum.',
    when:
      'POST /v1/exchange/swaps/prepare answers it for a quoteId past its expiresAt (QUOTE_TTL_SECONDS). A swap ' +
      'whose simulation at the newest block, before it is sent, finds it would revert (the pool moved and would ' +
      'give less than the signed minimum, or take more than the signed maximum) ends failed with an error that ' +
      'starts with `stale-quote:` (GET /v1/exchange/swaps/{swapId}, event swap.failed): nothing was sent, no gas spent. ' +
      'SOLANA: POST /v1/exchange/swaps answers it for an expired quoteId; a swap whose Jupiter order no longer gives ' +
      "the quote's minimum ends failed with `stale-quote:` too, nothing signed.",
    action: 'Ask for a new quote (POST /v1/exchange/quote), show it, and prepare the swap again.',
    example: 'The quote expired at 2026-12-02T06:01:00.000Z: ask for a new one',
  },
  'step-out-of-order': {
    title: 'Step out of order',
    status: 409,
    meaning:
      'The registration is not at the step this request performs, is no longer in progress, or is busy with another ' +
      'step.',
    when:
      'POST /v1/account/register/{regId}/ekyc and /backup answer it from the registration workflow; an eKYC sent ' +
      'after that step passed, other than a repeat of the request that passed it, gets the same type titled ' +
      '"Conflict".',
    action: 'Read the registration (GET /v1/account/register/{regId}) and continue at its `step`, one step at a time.',
    example: 'registration is at step ekyc, not backup',
  },
  'step-up-action-unknown': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The approval asked for names an action that no route accepts this kind of proof for.',
    when:
      'POST /v1/auth/passkeys/approvals/options (a passkey) and POST /v1/auth/identity-checks (an identity check) ' +
      'answer it when `request.action` is no action a route takes that proof for; the detail lists those that do.',
    action:
      "Name the action of the request to approve, as its route's step-up names it; a request that takes neither " +
      'proof must be approved otherwise (the PIN, for instance).',
    example:
      'No request with action "transfer" takes a passkey; actions that do: passkey_enrol, passkey_remove, ' +
      'email_change, account_close, device_revoke, device_release, backup_replace, owner_set',
  },
  'step-up-ambiguous': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The request carries more than one proof (of pin, passkeyAssertion and identityCheckId) where exactly one is ' +
      'taken.',
    when:
      'Every route with a step-up (adding or removing a passkey, closing the account, signing out another device, ' +
      'the PIN routes, ...) answers it, and does nothing, for a body with several proofs; `stepUp.request` and ' +
      '`stepUp.accepts` say what it takes.',
    action: 'Send exactly one proof, of a kind the route accepts, bound to `stepUp.request`.',
    example:
      'Send one proof, not several. Your access token alone cannot close the account: confirm it with your PIN ' +
      '("pin": a JWE whose "request" is {"action":"account_close"}, with a random "jti"), or one of your passkeys ' +
      '("passkeyAssertion", its challenge from POST /v1/auth/passkeys/approvals/options with ' +
      '{"request":{"action":"account_close"}})',
  },
  'step-up-required': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The request needs a proof beyond the access token (a PIN, a passkey or an identity check) and carries none ' +
      'of a kind its route accepts.',
    when:
      'Every route with a step-up answers it, and does nothing (POST /v1/auth/passkeys, POST /v1/account/close, ' +
      'DELETE /v1/account/devices/{deviceId}, POST /api/v1/pin/reset, ...) when the body has no proof, or one of a ' +
      'kind the route does not take; `stepUp.request` is what the proof must name and `stepUp.accepts` the proofs ' +
      'taken.',
    action:
      'Ask the user for one of the accepted proofs, bound to `stepUp.request`, and send the request again with it.',
    example:
      'Your access token alone cannot close the account: confirm it with your PIN ("pin": a JWE whose "request" is ' +
      '{"action":"account_close"}, with a random "jti"), or one of your passkeys ("passkeyAssertion", its challenge ' +
      'from POST /v1/auth/passkeys/approvals/options with {"request":{"action":"account_close"}})',
  },
  'swap-execution-ambiguous': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'A swap execution names neither or both of the ways a swap is executed.',
    when:
      'POST /v1/exchange/swaps answers it for a body with both `signing` (EVM: the signed slots of the prepare) and ' +
      '`quoteId` (SOLANA, with `pin`), or with neither.',
    action: "Send the EVM swap's signed slots alone, or the SOLANA quote's quoteId with the PIN approving it.",
    example:
      'Send `signing` (EVM: the signed slots of POST /v1/exchange/swaps/prepare) or `quoteId` with `pin` (SOLANA), one of them',
  },
  'swap-daily-limit-exceeded': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The swap would take the person's swaps of the Korean day past their daily limit in won.",
    when:
      "POST /v1/exchange/swaps/prepare answers it when what today's swaps spent (not failed, each valued when " +
      "prepared) plus what this one may spend, at the hour's price, is over SWAP_DAILY_LIMIT_KRW; POST " +
      '/v1/exchange/swaps checks again as it takes a swap on (a prepared swap counts from then), so two prepared ' +
      'within the limit cannot both run past it. A quote past it says so first: executable false, ' +
      'notExecutableReason limit_exceeded.',
    action: 'Show what is left from the detail: swap less, or wait until the time it names (00:00 KST).',
    example:
      'Swaps are limited to 20,000,000 KRW a day; 18,000,000 KRW used today, 2,000,000 KRW left until ' +
      '2026-12-02T15:00:00.000Z; this one spends 4,200,000 KRW now',
  },
  'task-closed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The key rotation task has closed, so none of its networks can be retried any more.',
    when:
      "POST /v1/wallet/keys/rotate/{taskId}/networks/{networkId}/retry answers it when the task's workflow has " +
      'ended: its retry window (KEY_ROTATION_RETRY_WINDOW_SECONDS) passed, or every network completed.',
    action:
      'Read the task (GET /v1/wallet/keys/rotate/{taskId}); to rotate a network that stayed failed, prepare a new ' +
      'rotation.',
    example: 'This rotation has closed; nothing of it can be retried now',
  },
  'test-clock-disabled': {
    title: 'Conflict',
    status: 409,
    meaning: 'The test clock is off in this deployment, so it cannot be moved.',
    when:
      'POST /v1/test-clock/advance (an operator route) answers it when TEST_CLOCK_ENABLED is off, as it always is ' +
      'in production.',
    action:
      'Nothing helps on this deployment: move the clock only where TEST_CLOCK_ENABLED is on (a sandbox or a test ' +
      'deployment).',
    example: 'The test clock is off (TEST_CLOCK_ENABLED); it never runs in production',
  },
  'token-expired': {
    title: 'Authentication required',
    status: 401,
    meaning: 'The access token is one the service signed, but it has expired.',
    when:
      'Every route that takes a Bearer access token answers it (with WWW-Authenticate: Bearer) for a token past its ' +
      'expiry; unlike invalid-token, it is not counted as a failed credential.',
    action:
      'Get a new access token with the refresh token (POST /v1/auth/token, grantType "refresh_token") and send the ' +
      'request again.',
    example: 'The access token expired: get a new one with the refresh token (POST /v1/auth/token)',
  },
  'too-many-passkeys': {
    title: 'Conflict',
    status: 409,
    meaning: 'The account already has the most passkeys allowed (10).',
    when: 'POST /v1/auth/passkeys/registration/options answers it when the user has 10 passkeys registered.',
    action:
      'Ask the user to remove a passkey they no longer use (POST /v1/auth/passkeys/{passkeyId}/remove), then ' +
      'register the new one.',
    example: 'A user can register at most 10 passkeys',
  },
  'transfer-would-fail': {
    title: 'The transfer would fail',
    status: 422,
    meaning: 'The transfer was refused before anything was signed or sent, because it cannot succeed as asked.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it when the transfer workflow refuses within the wait: the ' +
      'chain would fail it, the account refuses the operation or authorizes none of our transfer keys, the account ' +
      'is no longer active, or the Travel Rule data cannot be sent. It also stands for a refusal with no problem ' +
      'type of its own.',
    action:
      'Nothing was sent: show the detail, fix what it names (amount, token, recipient, transfer key) and make a new ' +
      'transfer with a new Idempotency-Key.',
    example: 'The transfer would fail on chain',
  },
  'transfers-not-enabled': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The account authorizes no transfer key the service holds (or only an expired one), so the service cannot send ' +
      'from it.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it on an EVM network when the account authorizes no transfer ' +
      'key, one the service does not hold for the user, or one whose expiry has passed or comes within a minute ' +
      '(before anything is recorded); POST ' +
      '/v1/wallet/networks/{networkId}/transfer-key/prepare answers it for action "set-caps" when no transfer key ' +
      'is authorized.',
    action:
      'Renew the transfer key (POST /v1/wallet/networks/{networkId}/transfer-key/prepare with action "renew", sign ' +
      'and execute it), then try again.',
    example:
      'This account authorizes no transfer key on ETHEREUM: renew it (POST ' +
      '/v1/wallet/networks/ETHEREUM/transfer-key/prepare)',
  },
  'travel-address-invalid': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The travel_address sent is not a valid Travel Address.',
    when:
      'POST /api/v1/transfer/crypto/prepare and /execute answer it for a transfer under the Travel Rule (worth ' +
      'TRAVEL_RULE_THRESHOLD_KRW or more) when travel_address does not decode: not "ta" followed by base58 text, a ' +
      'checksum that does not match, or a URL that is not https, lacks t=i or carries credentials.',
    action:
      'Ask the user to copy the Travel Address again from the receiving VASP (it starts with "ta") and send it again.',
    example: 'travel_address is not a Travel Address: the Travel Address checksum does not match (mistyped?)',
  },
  'travel-address-unknown-vasp': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The Travel Address points to a VASP the service does not exchange Travel Rule data with, so the transfer ' +
      'cannot be made.',
    when:
      'POST /api/v1/transfer/crypto/prepare and /execute answer it for a transfer under the Travel Rule (worth ' +
      'TRAVEL_RULE_THRESHOLD_KRW or more) when travel_address names a host that is not one of ' +
      'TRAVEL_RULE_COUNTERPARTS; `host` names it.',
    action:
      'Nothing the app can change makes this transfer possible: tell the user that VASP cannot receive it from this ' +
      'service (GET /api/v1/transfer/vasps lists the VASPs that can).',
    example:
      'This transfer is worth 1,500,000 KRW: from 1,000,000 KRW the Travel Rule applies, and the Travel Address ' +
      'names vasp.example.net, which is not a VASP we exchange Travel Rule data with: nothing can be sent there ' +
      'from this service',
  },
  'travel-rule-address-mismatch': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The receiving VASP's approval names another address than the transfer's.",
    when:
      'POST /trp/v3/callbacks/{transferId}/{token} (the TRP listener, called by the beneficiary VASP) answers it ' +
      "when an approval's address is not the transfer's recipient; the decision is not recorded.",
    action:
      "The VASP should approve with the transfer's address or reject the inquiry; the transfer waits for a decision " +
      'until TRAVEL_RULE_TIMEOUT_SECONDS.',
    example: 'The approval names 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed, not the address of this transfer',
  },
  'travel-rule-asset-unidentified': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The token has no Travel Rule asset identifier, so it cannot be announced to the receiving VASP.',
    when:
      'POST /api/v1/transfer/crypto/prepare and /execute answer it for a transfer under the Travel Rule (worth ' +
      'TRAVEL_RULE_THRESHOLD_KRW or more) sent by travel_address when the token is neither a SLIP-0044 coin nor has ' +
      "a DTI in the network's settings; `vasp` names the VASP.",
    action: 'The transfer cannot be made in this token to that VASP: the user may choose another token.',
    example:
      'This transfer is worth 1,500,000 KRW: from 1,000,000 KRW the Travel Rule applies, and USDT on SOLANA has no ' +
      "Travel Rule identifier (a SLIP-0044 coin, or a DTI in the network's settings), so it cannot be announced to " +
      'Example Exchange: nothing is sent',
  },
  'travel-rule-confirmed': {
    title: 'Conflict',
    status: 409,
    meaning: 'A different confirmation was already recorded for this Travel Rule approval.',
    when:
      'POST /trp/v3/confirmations/{recordId}/{token} (the TRP listener, called by the originating VASP) answers it ' +
      'when the approval was confirmed before with another txid or canceled; the same confirmation again answers ' +
      '204.',
    action: 'Nothing to send again: the first confirmation stands and cannot be changed over TRP.',
    example: 'This transfer was confirmed otherwise already',
  },
  'travel-rule-counterpart-ambiguous': {
    title: 'Unprocessable request',
    status: 422,
    meaning:
      'The transfer names both a Travel Address and a beneficiary VASP, where one VASP receives the Travel Rule data.',
    when:
      'POST /api/v1/transfer/crypto/prepare and /execute answer it for a transfer under the Travel Rule (worth ' +
      'TRAVEL_RULE_THRESHOLD_KRW or more) that carries both travel_address and beneficiary_vasp.',
    action: 'Send only one: travel_address for a VASP on TRP, or beneficiary_vasp for an exchange on CODE.',
    example:
      'Send travel_address (a VASP on TRP) or beneficiary_vasp (an exchange on CODE), not both: one VASP receives ' +
      'the Travel Rule data',
  },
  'travel-rule-decided': {
    title: 'Conflict',
    status: 409,
    meaning: 'The transfer is no longer waiting for a Travel Rule decision.',
    when:
      "POST /trp/v3/callbacks/{transferId}/{token} answers it when the transfer's workflow has already ended " +
      '(decided, timed out, failed or completed), so the decision cannot reach it.',
    action: 'Nothing to send again: the transfer was settled without this decision.',
    example: 'This transfer is no longer waiting for a Travel Rule decision',
  },
  'travel-rule-rejected': {
    title: 'Refused by the receiving provider',
    status: 422,
    meaning:
      'The beneficiary VASP rejected the Travel Rule inquiry (or refused to take it), so the transfer failed with ' +
      'nothing sent.',
    when:
      "POST /api/v1/transfer/crypto/execute answers it when that decision comes within the answer's wait " +
      "(TRANSFER_WAIT_SECONDS); a later one shows only in the transfer's status (failed, with `error`).",
    action:
      'Tell the user nothing was sent; the beneficiary details should be checked with the recipient and their VASP ' +
      'before a new transfer.',
    example: 'The receiving provider rejected the transfer: beneficiary name does not match; nothing was sent',
  },
  'travel-rule-timeout': {
    title: 'The receiving provider did not answer',
    status: 422,
    meaning:
      'The beneficiary VASP did not decide on the Travel Rule inquiry within TRAVEL_RULE_TIMEOUT_SECONDS, so the ' +
      'transfer failed with nothing sent.',
    when:
      "POST /api/v1/transfer/crypto/execute answers it only when that timeout ends within the answer's wait " +
      '(TRANSFER_WAIT_SECONDS); with the defaults (3600 s and 30 s) execute answers 202 and the transfer shows ' +
      'failed later.',
    action: 'Tell the user nothing was sent; they may try again later as a new transfer, or ask the receiving VASP.',
    example: 'The receiving provider did not answer the Travel Rule inquiry within 20 seconds; nothing was sent',
  },
  unauthorized: {
    title: 'Authentication required',
    status: 401,
    meaning: 'The request carries no usable credential of the kind its route needs.',
    when:
      'Bearer routes answer it (with WWW-Authenticate: Bearer) when the Authorization header is missing or not ' +
      '"Bearer <access token>", operator routes without an operator token or session, and the TRP routes ' +
      '(/trp/v3/...) for a caller not over mutual TLS with a certificate pinned for a VASP of ' +
      'TRAVEL_RULE_COUNTERPARTS.',
    action:
      'Send the credential the route takes (Authorization: Bearer with an access token, after signing in if the app ' +
      'has none); a VASP must call the TRP listener with its pinned certificate.',
    example: 'An Authorization: Bearer <access token> header is required',
  },
  'unknown-asset': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'No market prices are available for the asset asked for.',
    when:
      'GET /api/v1/market-price answers it when no price source quotes the asset (or the source refuses it), or the ' +
      'asset had no trade in the window asked for.',
    action:
      'Ask for an asset the market data quotes (BTC, ETH, SOL, POL, USDT, USDC by default), or for a longer window.',
    example: 'No market prices for DOGE',
  },
  'unknown-network': {
    title: 'Unknown network',
    status: 404,
    meaning: 'The network id is not one the service is configured for.',
    when:
      'Routes that take a network id answer it for an unknown one: those under /v1/wallet/networks/{networkId} ' +
      '(wallet, deploy, transfer key, recovery, upgrade), key rotation, and POST /v1/exchange/quote.',
    action: 'Use one of the network ids the detail lists as supported.',
    example: 'Network POLYGON is not supported; supported: ETHEREUM, SOLANA',
  },
  'unknown-passkey': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The passkey assertion is not from one of the passkeys registered to the account.',
    when:
      "Requests approved by a passkey answer it (a step-up's passkeyAssertion, a sign-in's passkey proof, an " +
      "execute's passkey slot) when the assertion's credential is none of the user's passkeys, e.g. one removed " +
      'since.',
    action:
      'Ask the user to approve with a passkey registered to this account, over a new challenge, or use another ' +
      'proof the route takes.',
    example: 'The assertion is not from one of your passkeys',
  },
  'unknown-token': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The token is not one the network offers for this operation.',
    when:
      'POST /api/v1/transfer/crypto/prepare and /execute answer it for a token not transferable on the network, ' +
      'POST /v1/wallet/networks/{networkId}/transfer-key/prepare for a cap in a token the network lacks, and POST ' +
      '/v1/exchange/quote for a token not traded there.',
    action: 'Use one of the tokens the detail lists.',
    example: 'DOGE is not transferable on ETHEREUM; tokens: ETH, USDT, USDC',
  },
  'unsupported-currency': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'Charges are not taken in the currency given.',
    when: 'POST /api/v1/charge/execute answers it when `currency` is not one the service charges in (KRW only).',
    action: 'Send the charge in KRW.',
    example: 'Charges in USD are not supported; supported: KRW',
  },
  'unsupported-media-type': {
    title: 'Unsupported media type',
    status: 415,
    meaning: "The request's body, or its uploaded file, is not of a media type the route accepts.",
    when:
      'Routes with a body answer it for a non-empty body that is not JSON (nor multipart/form-data where the route ' +
      'takes it), multipart-only routes for a body that is not multipart, and uploads whose file is not an image ' +
      'type the route allows.',
    action:
      'Send the body as the route documents it: Content-Type application/json, or multipart/form-data with an image ' +
      'of an allowed type.',
    example: 'Send application/json',
  },
  'upgrade-unavailable': {
    title: 'Conflict',
    status: 409,
    meaning:
      'The account on this network cannot be upgraded to a recoverable account: the network has none configured.',
    when:
      'POST /v1/wallet/networks/{networkId}/upgrade/prepare answers it when the network has no recoverable ' +
      'implementation configured.',
    action: 'Nothing the app can change: do not offer the upgrade on that network.',
    example: 'ETHEREUM has no recoverable implementation configured',
  },
  'upload-not-found': {
    title: 'Unknown uploadRef',
    status: 422,
    meaning: 'The uploadRef sent is not an upload of this registration.',
    when:
      'POST /v1/account/register/{regId}/ekyc (its JSON form) answers it when uploadRef names no image uploaded for ' +
      'this registration with POST /v1/account/register/{regId}/uploads.',
    action:
      'Upload the ID-card image again (POST /v1/account/register/{regId}/uploads) and send the uploadRef it ' +
      'answers, or send the image in the multipart form of eKYC.',
    example: 'no upload upl_4b1f0c9e-2d7a-4e3b-9a61-0c5d8e7f2a13 for this registration',
  },
  'user-operation-refused': {
    title: 'The operation would fail',
    status: 422,
    meaning:
      "The network's bundler simulated the account operation being prepared and refused it (its call would revert, " +
      'or the account or paymaster refuses it); nothing was signed or sent.',
    when:
      'The prepare routes of account operations (deploy, transfer key, account upgrade, recovery cancel, DID key, ' +
      "key rotation) answer it when the bundler rejects the operation's gas estimate.",
    action:
      'Do not retry unchanged: the detail gives the reason (a revert text or an ERC-4337 code); change what it names.',
    example: "user operation rejected: AA21 didn't pay prefund",
  },
  'validation-error': {
    title: 'Request validation failed',
    status: 400,
    meaning:
      'The request does not match the documented schema: a path or query parameter, header or body field is ' +
      'missing, of the wrong type or not allowed.',
    when:
      'Every route answers it before running anything when its request does not validate, each error listed in ' +
      '`errors` (in, pointer, detail); also for a missing or malformed Idempotency-Key or X-Pass-Token, a TRP ' +
      'api-version not spoken, or a multipart upload without its file.',
    action: 'Fix what `errors` names and send the request again; sent unchanged it fails the same way.',
    example: 'The body does not match the documented schema',
  },
  'verification-expired': {
    title: 'Gone',
    status: 410,
    meaning: 'The verification code expired before it was confirmed.',
    when:
      "POST /api/v1/bank/send-won/confirm (the 1 KRW deposit's code) and POST /v1/account/email/confirm (the mailed " +
      'code) answer it when the verification is past its expiry.',
    action:
      'Start a new verification (POST /api/v1/bank/send-won, or POST /v1/account/email) and confirm its new code.',
    example: 'The code expired; send 1 KRW again',
  },
  'verification-locked': {
    title: 'Conflict',
    status: 409,
    meaning: 'Too many wrong codes were tried at this verification, so it is locked.',
    when:
      'POST /api/v1/bank/send-won/confirm and POST /v1/account/email/confirm answer it for a verification that ' +
      'failed after too many wrong codes, or when an attempt would go past the most allowed.',
    action: 'Start a new verification (a new 1 KRW deposit, or a new mailed code), as the detail says.',
    example: 'Too many wrong codes; ask for a new code',
  },
  'wallet-not-opened': {
    title: 'Conflict',
    status: 409,
    meaning: 'The user has no wallet on this Solana network yet.',
    when:
      'POST /api/v1/transfer/crypto/execute answers it for a transfer on a Solana network where the user has not ' +
      'opened a wallet.',
    action: 'Open the wallet (POST /v1/wallet/networks/{networkId}/wallet), then make the transfer again.',
    example: 'Open your SOLANA wallet first: POST /v1/wallet/networks/SOLANA/wallet',
  },
  'weak-pin': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The new PIN is too easy to guess (a repeated or sequential number).',
    when:
      'The routes that set a PIN answer it: POST /v1/account/register/{regId}/pin, POST /api/v1/pin, PUT ' +
      '/api/v1/pin (new_pin) and POST /api/v1/pin/reset, when the PIN decrypted is one of the weak ones.',
    action: 'Ask the user for another PIN and send it again, encrypted anew.',
    example: 'Choose a PIN that is not a repeated or sequential number',
  },
  'webhook-url-refused': {
    title: 'Unprocessable request',
    status: 422,
    meaning: 'The URL cannot receive webhooks: it is not an accepted URL, or it does not resolve to a public address.',
    when:
      'POST /v1/webhooks/endpoints and PATCH /v1/webhooks/endpoints/{endpointId} (operator routes) answer it for a ' +
      'url that is not a URL, not https (or http where allowed), carries credentials, does not resolve, or resolves ' +
      'to a non-public address.',
    action: 'Register a public https URL whose host resolves to public addresses.',
    example: 'This URL cannot receive webhooks: hooks.internal.example resolves to a non-public address (10.0.0.12)',
  },
  'workflow-closed': {
    title: 'Conflict',
    status: 409,
    meaning: 'The process this request would start has already run and finished under the same id.',
    when:
      'Answered when starting a workflow finds one of that id already closed and the route does not take it as a ' +
      'repeat, e.g. POST /v1/account/register when the registration of that identity verification has ended.',
    action:
      'Do not resend: read the status of what was started; to do it again, start over (for a registration, verify ' +
      'the identity again).',
    example: 'This process has already finished',
  },
  'wrong-code': {
    title: 'Wrong code',
    status: 422,
    meaning: 'The verification code sent does not match.',
    when:
      "POST /api/v1/bank/send-won/confirm (the code in the 1 KRW deposit's remark) and POST " +
      '/v1/account/email/confirm (the mailed code) answer it; the detail says how many attempts are left, or that ' +
      'the verification is now locked.',
    action:
      'Ask the user to check the code and enter it again while attempts are left; once it is locked, start a new ' +
      'verification.',
    example: 'The code does not match; 2 attempts left',
  },
  'wrong-pin': {
    title: 'Unprocessable request',
    status: 422,
    meaning: "The PIN sent is not the user's PIN.",
    when:
      'Requests approved by the PIN answer it (step-up routes that take `pin`, PUT /api/v1/pin with current_pin, ' +
      'POST /api/v1/transfer/crypto/execute) when the PIN is wrong and attempts are left; the wrong PIN that uses ' +
      'the last attempt locks it instead.',
    action:
      'Ask the user to enter the PIN again and send it as a new JWE; the detail says how many attempts are left ' +
      'before it locks.',
    example: 'The PIN is wrong; 2 attempts left before it locks',
  },
};
