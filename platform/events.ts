import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';

/**
 * The events an app can follow (the events API, and webhooks): one data schema per type. An event describes a state
 * change that has been committed; it never carries personal data (names, phone numbers, addresses of mail, account
 * numbers), only ids, statuses and amounts. Amounts are decimal strings in the unit their field names.
 */
const Id = (description: string) => Type.String({ description });
const TxHash = Type.String({
  description:
    'The transaction hash on chain; empty until there is one (transfer.submitted on an EVM network: the bundle transaction comes with transfer.confirmed)',
});

const transfer = {
  transferId: Type.String(),
  networkId: Type.String(),
  token: Type.String(),
  amount: Type.String({ description: 'In base units of the token (see decimals)' }),
  decimals: Type.Integer(),
};

const signedOperation = {
  opId: Id('The operation (GET /v1/wallet/deployments/{jobId}, /v1/did/keys/operations/{opId}, ...)'),
  networkId: Type.String(),
  accountAddress: Type.String(),
};

const stall = {
  reason: Type.Literal('fees-rose', { description: "The network's base fee went above the operation's fee cap" }),
  maxFeePerGas: Type.String({ description: "The operation's fee cap, wei per gas" }),
  baseFeePerGas: Type.String({ description: "The network's base fee when the stall was seen, wei per gas" }),
};

/** An owner-signed operation stalled: the bundler holds it, the chain asks more than its fee cap. */
const stalledEvent = (what: string) => ({
  resource: 'signed_operation',
  summary: `${what} stalled: the network asks more than its fee cap; it may still land, or prepare it again and sign (the new one takes its place)`,
  data: Type.Object({ ...signedOperation, ...stall }),
});
/** An owner-signed operation gave way to the same operation signed again on its nonce. */
const replacedEvent = (what: string) => ({
  resource: 'signed_operation',
  summary: `${what} was replaced by the same operation signed again at higher fees (replacedBy)`,
  data: Type.Object({ ...signedOperation, replacedBy: Id('The operation that took its place') }),
});

/** A payout event's data: the payout, and what the event adds (a reason, the bank's code). */
const payoutData = <T extends TProperties>(more: T) =>
  Type.Object({
    payoutId: Type.String(),
    amount: Type.String({ description: 'KRW (won)' }),
    currency: Type.Literal('KRW'),
    bankAccountId: Type.String({ description: 'The verified account paid to' }),
    purpose: Type.Union([Type.Literal('request'), Type.Literal('closure')], {
      description: 'request: the person asked for it; closure: the balance an account closure pays back',
    }),
    ...more,
  });

export const EVENT_TYPES = {
  'registration.step_changed': {
    resource: 'registration',
    summary: 'A registration moved to its next step',
    data: Type.Object({
      regId: Type.String(),
      step: Type.String({ description: 'The step it is at now (GET /v1/account/register/{regId})' }),
    }),
  },
  'registration.completed': {
    resource: 'registration',
    summary: 'A registration completed: the user exists',
    data: Type.Object({ regId: Type.String(), userId: Type.String() }),
  },
  'registration.failed': {
    resource: 'registration',
    summary: 'A registration ended without a user (the identity could not be verified, or the person has an account)',
    data: Type.Object({ regId: Type.String(), step: Type.String({ description: 'The step it had reached' }) }),
  },
  'registration.expired': {
    resource: 'registration',
    summary: 'A registration was not finished in time (REGISTRATION_TTL_SECONDS): start again',
    data: Type.Object({ regId: Type.String(), step: Type.String({ description: 'The step it had reached' }) }),
  },
  'deploy.completed': {
    resource: 'signed_operation',
    summary: 'A smart account was deployed',
    data: Type.Object({ ...signedOperation, txHash: TxHash }),
  },
  'deploy.failed': {
    resource: 'signed_operation',
    summary: 'A deployment failed',
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'deploy.stalled': stalledEvent('A deployment'),
  'deploy.replaced': replacedEvent('A deployment'),
  'did_key.completed': {
    resource: 'signed_operation',
    summary: 'A DID key operation was written on chain',
    data: Type.Object({ ...signedOperation, txHash: TxHash }),
  },
  'did_key.failed': {
    resource: 'signed_operation',
    summary: 'A DID key operation failed',
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'did_key.stalled': stalledEvent('A DID key operation'),
  'did_key.replaced': replacedEvent('A DID key operation'),
  'transfer_key.completed': {
    resource: 'signed_operation',
    summary: 'A transfer key was authorized on chain',
    data: Type.Object({ ...signedOperation, txHash: TxHash }),
  },
  'transfer_key.failed': {
    resource: 'signed_operation',
    summary: 'A transfer key authorization failed',
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'transfer_key.stalled': stalledEvent('A transfer key authorization'),
  'transfer_key.replaced': replacedEvent('A transfer key authorization'),
  'account_upgrade.completed': {
    resource: 'signed_operation',
    summary:
      'The account was upgraded on one network to the recoverable implementation (owner recovery with a time lock)',
    data: Type.Object({ ...signedOperation, txHash: TxHash }),
  },
  'account_upgrade.failed': {
    resource: 'signed_operation',
    summary: 'An account upgrade failed',
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'account_upgrade.stalled': stalledEvent('An account upgrade'),
  'account_upgrade.replaced': replacedEvent('An account upgrade'),
  'recovery_cancel.completed': {
    resource: 'signed_operation',
    summary: 'The owner cancelled a pending recovery on one network (the recovery then ends cancelled there)',
    data: Type.Object({ ...signedOperation, txHash: TxHash }),
  },
  'recovery_cancel.failed': {
    resource: 'signed_operation',
    summary: "The owner's cancellation of a recovery failed on one network",
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'recovery_cancel.stalled': stalledEvent("A recovery's cancellation"),
  'recovery_cancel.replaced': replacedEvent("A recovery's cancellation"),
  'swap.completed': {
    resource: 'signed_operation',
    summary: "A swap ran on the network's DEX: what it really took and gave, read from the pools' events",
    data: Type.Object({
      ...signedOperation,
      txHash: TxHash,
      source: Type.String(),
      target: Type.String(),
      amountIn: Type.String({
        description: "What the swap took, in base units of source (empty when its pools' events were not found)",
      }),
      amountOut: Type.String({ description: 'What the swap gave, in base units of target (empty likewise)' }),
    }),
  },
  'swap.failed': {
    resource: 'signed_operation',
    summary:
      'A swap did not run: refused before it was sent (stale-quote: the pool moved past the signed minimum; no gas spent) or reverted',
    data: Type.Object({ ...signedOperation, error: Type.String() }),
  },
  'swap.stalled': stalledEvent('A swap'),
  'swap.replaced': replacedEvent('A swap'),
  'recovery.scheduled': {
    resource: 'recovery',
    summary:
      'A recovery of the owner key was scheduled on one network: the owner can cancel it until executeAfter (the person is mailed)',
    data: Type.Object({
      recoveryId: Type.String(),
      networkId: Type.String(),
      executeAfter: Type.String({ format: 'date-time' }),
      txHash: TxHash,
    }),
  },
  'recovery.executed': {
    resource: 'recovery',
    summary: 'A recovery executed on one network: the new owner key controls the account there',
    data: Type.Object({ recoveryId: Type.String(), networkId: Type.String(), txHash: TxHash }),
  },
  'recovery.cancelled': {
    resource: 'recovery',
    summary: 'A recovery was cancelled by the owner on one network (through the API or directly on chain)',
    data: Type.Object({ recoveryId: Type.String(), networkId: Type.String() }),
  },
  'key_rotation.network_completed': {
    resource: 'key_rotation',
    summary: 'The owner key was rotated on one network',
    data: Type.Object({ taskId: Type.String(), networkId: Type.String(), txHash: TxHash }),
  },
  'key_rotation.network_stalled': {
    resource: 'key_rotation',
    summary:
      "Rotating the owner key stalled on one network: the network asks more than the operation's fee cap; it may still land, or rotate that network again (the new rotation takes its place)",
    data: Type.Object({ taskId: Type.String(), networkId: Type.String(), ...stall }),
  },
  'key_rotation.network_failed': {
    resource: 'key_rotation',
    summary: 'Rotating the owner key failed on one network (retryable says whether it can be retried)',
    data: Type.Object({
      taskId: Type.String(),
      networkId: Type.String(),
      error: Type.String(),
      retryable: Type.Boolean(),
    }),
  },
  'key_rotation.completed': {
    resource: 'key_rotation',
    summary: 'A key rotation completed on every network',
    data: Type.Object({ taskId: Type.String() }),
  },
  'key_rotation.partial_failure': {
    resource: 'key_rotation',
    summary: 'A key rotation ended with at least one network failed',
    data: Type.Object({ taskId: Type.String() }),
  },
  'charge.processing': {
    resource: 'charge',
    summary: 'A charge was accepted: the withdrawal at the bank is under way',
    data: Type.Object({
      chargeId: Type.String(),
      amount: Type.String({ description: 'KRW (won)' }),
      currency: Type.Literal('KRW'),
    }),
  },
  'charge.completed': {
    resource: 'charge',
    summary: 'The bank settled the withdrawal and the balance was credited',
    data: Type.Object({
      chargeId: Type.String(),
      amount: Type.String({ description: 'KRW (won)' }),
      currency: Type.Literal('KRW'),
    }),
  },
  'charge.failed': {
    resource: 'charge',
    summary: 'The bank refused or cancelled the withdrawal; nothing was credited',
    data: Type.Object({
      chargeId: Type.String(),
      amount: Type.String({ description: 'KRW (won)' }),
      currency: Type.Literal('KRW'),
      reason: Type.String(),
    }),
  },
  'charge.needs_review': {
    resource: 'charge',
    summary: "The bank's answer could not be acted on; an operator reviews the charge",
    data: Type.Object({
      chargeId: Type.String(),
      amount: Type.String({ description: 'KRW (won)' }),
      currency: Type.Literal('KRW'),
      reason: Type.String(),
    }),
  },
  'payout.processing': {
    resource: 'payout',
    summary:
      "A payout was accepted: its amount left the balance and the bank is asked to deposit it into the person's account",
    data: payoutData({}),
  },
  'payout.completed': {
    resource: 'payout',
    summary: "The bank deposited the payout into the person's account",
    data: payoutData({}),
  },
  'payout.failed': {
    resource: 'payout',
    summary:
      'The bank refused the payout (or an operator reversed one it never received): the amount is back in the balance',
    data: payoutData({
      reason: Type.String(),
      code: Type.Union([Type.String(), Type.Null()], {
        description: "The bank's own code (rsp_code or bank_rsp_code)",
      }),
    }),
  },
  'payout.needs_review': {
    resource: 'payout',
    summary:
      'The bank answered something undocumented, or has no record of the send: an operator reviews the payout (never sent again on its own)',
    data: payoutData({ reason: Type.String() }),
  },
  'bank_verification.verified': {
    resource: 'bank_verification',
    summary: 'A 1 KRW verification was confirmed: the bank account is connected',
    data: Type.Object({ verificationId: Type.String(), bankAccountId: Type.String() }),
  },
  'bank_verification.locked': {
    resource: 'bank_verification',
    summary: 'A 1 KRW verification was locked after too many wrong codes',
    data: Type.Object({ verificationId: Type.String() }),
  },
  'bank_consent.granted': {
    resource: 'bank_consent',
    summary:
      'The person consented at the bank to withdrawals (open banking): connected accounts it covers can be charged from',
    data: Type.Object({
      consentId: Type.String(),
      accounts: Type.Integer({ description: 'how many accounts the consent covers' }),
    }),
  },
  'transfer.submitted': {
    resource: 'transfer',
    summary:
      "A transfer was sent to the chain (again after a reorg removed it from its block): on an EVM network its user operation was handed to the network's bundler, so its transaction is not known yet",
    data: Type.Object({
      ...transfer,
      txHash: TxHash,
      userOpHash: Type.Optional(
        Type.String({
          description:
            'EVM networks: the ERC-4337 user operation hash, what the bundler and the EntryPoint know it by (txHash, the bundle transaction that carries it, comes with transfer.confirmed)',
        }),
      ),
    }),
  },
  'transfer.repriced': {
    resource: 'transfer',
    summary:
      "An EVM transfer's user operation stalled below the network's base fee and the service signed it again on the same nonce at higher fees: it is known by a new userOpHash (the old one may still land instead; either moves the money once)",
    data: Type.Object({
      ...transfer,
      userOpHash: Type.String({ description: 'The new user operation hash' }),
      replacedUserOpHash: Type.String({ description: 'The hash of the operation it replaced' }),
      ...stall,
    }),
  },
  'transfer.confirmed': {
    resource: 'transfer',
    summary: 'A transfer was included in a block',
    data: Type.Object({ ...transfer, txHash: TxHash }),
  },
  'transfer.finalized': {
    resource: 'transfer',
    summary: 'A transfer is final (deep enough to stay)',
    data: Type.Object({ ...transfer, txHash: TxHash }),
  },
  'transfer.failed': {
    resource: 'transfer',
    summary: 'A transfer failed (proven by the chain, or never sent)',
    data: Type.Object({ ...transfer, error: Type.String() }),
  },
  'transfer.needs_review': {
    resource: 'transfer',
    summary:
      'A transfer that may have been broadcast could not be seen on chain through every first attempt: held (not failed), asked about patiently; confirmed or failed follows',
    data: Type.Object({ ...transfer, txHash: TxHash }),
  },
  'credential.issued': {
    resource: 'credential',
    summary: 'A verifiable credential was issued to the user',
    data: Type.Object({
      vcId: Type.String(),
      credentialType: Type.String(),
      holder: Type.Union([Type.String(), Type.Null()], {
        description: "credentialSubject.id: the user's did:ethr once their account is deployed, else null",
      }),
    }),
  },
  'credential.revoked': {
    resource: 'credential',
    summary: "A verifiable credential was revoked: its bit in the issuer's status list is set",
    data: Type.Object({
      vcId: Type.String(),
      credentialType: Type.String(),
      reason: Type.String({
        description:
          'superseded (a newer credential attests the same: new KYC details, or one naming the holder) | account-closed | operator: <reason>',
      }),
      statusListCredential: Type.String(),
      statusListIndex: Type.String(),
    }),
  },
  'account.closed': {
    resource: 'user',
    summary: 'The user closed their account: their tokens stop working and their credentials are revoked',
    data: Type.Object({ userId: Type.String() }),
  },
  'email.locked': {
    resource: 'email_verification',
    summary: 'An email verification was locked after too many wrong codes: ask for a new code',
    data: Type.Object({ verificationId: Type.String() }),
  },
  'passkey.added': {
    resource: 'passkey',
    summary: 'A passkey was added to the account (approved by the PIN or another passkey; the person is mailed)',
    data: Type.Object({ passkeyId: Type.String() }),
  },
  'passkey.removed': {
    resource: 'passkey',
    summary: 'A passkey was removed from the account (approved by the PIN or a passkey; the person is mailed)',
    data: Type.Object({ passkeyId: Type.String() }),
  },
  'device.added': {
    resource: 'device_session',
    summary:
      'A device signed in to the account (a new phone: after identity verification and a passkey or the ID card; the person is mailed). No label or other personal data',
    data: Type.Object({
      deviceId: Type.String({ description: "The app's X-Device-Id" }),
      signInMethod: Type.Union([Type.Literal('passkey'), Type.Literal('id_card')]),
      holdUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'Until then its risky actions are held (NEW_DEVICE_HOLD_SECONDS)',
      }),
    }),
  },
  'device.revoked': {
    resource: 'device_session',
    summary: 'A device was signed out or revoked: its tokens are refused from now on',
    data: Type.Object({
      deviceId: Type.String(),
      by: Type.Union([Type.Literal('itself'), Type.Literal('another_device')]),
    }),
  },
  'backup.read': {
    resource: 'backup_read',
    summary: 'The encrypted wallet backup was read by a signed-in device (the person is mailed)',
    data: Type.Object({ deviceId: Type.String(), version: Type.Integer() }),
  },
  'backup.stored': {
    resource: 'user',
    summary:
      'A new version of the encrypted wallet backup was stored (earlier versions are kept); a replacement is mailed to the person',
    data: Type.Object({ version: Type.Integer() }),
  },
  'email.verified': {
    resource: 'user',
    summary: 'The user confirmed an email address (GET /v1/account/profile shows it)',
    data: Type.Object({ userId: Type.String() }),
  },
  'email.changed': {
    resource: 'email_change',
    summary:
      'The verified email address was replaced by another: the replaced address is mailed at once with a code that undoes the change until undoUntil, and gets every security notice until then',
    data: Type.Object({ changeId: Type.String(), undoUntil: Type.String({ format: 'date-time' }) }),
  },
  'email.change_undone': {
    resource: 'email_change',
    summary: 'An email change was undone from the address it replaced: that address is the verified one again',
    data: Type.Object({ changeId: Type.String() }),
  },
  'pin.set': {
    resource: 'user',
    summary:
      'The first transaction PIN was set (at registration, or later with a fresh identity check); the person is mailed',
    data: Type.Object({ userId: Type.String() }),
  },
  'pin.changed': {
    resource: 'user',
    summary: 'The PIN was changed with the current one; the person is mailed',
    data: Type.Object({ userId: Type.String() }),
  },
  'pin.reset': {
    resource: 'user',
    summary: 'The PIN was reset with an identity check and the ID card (the lockout cleared); the person is mailed',
    data: Type.Object({ userId: Type.String() }),
  },
  'pin.locked': {
    resource: 'user',
    summary:
      'Too many wrong PINs locked the PIN: for PIN_LOCK_SECONDS (lockedUntil), or, at the PIN_MAX_LOCKS-th lock in a row, until a reset with an identity check and the ID card (resetRequired); the person is mailed',
    data: Type.Object({
      userId: Type.String(),
      lockedUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      resetRequired: Type.Boolean(),
    }),
  },
  'compliance.case_opened': {
    resource: 'compliance_case',
    summary:
      'A compliance case was opened for an operator to decide (a sanctions hit, or a monitoring rule); it names no list entry, only the kind and programme',
    data: Type.Object({
      caseId: Type.String(),
      kind: Type.String({ description: 'sanctions_hit, structuring, fan_out, new_recipient_large, new_device_large' }),
      transferId: Type.Union([Type.String(), Type.Null()]),
      programme: Type.Union([Type.String(), Type.Null()]),
    }),
  },
  'compliance.case_decided': {
    resource: 'compliance_case',
    summary:
      'An operator decided a compliance case (approved: a held transfer goes on; rejected: it fails, nothing sent)',
    data: Type.Object({
      caseId: Type.String(),
      decision: Type.Union([Type.Literal('approved'), Type.Literal('rejected')]),
      transferId: Type.Union([Type.String(), Type.Null()]),
    }),
  },
} satisfies Record<string, { resource: string; summary: string; data: TObject }>;

export type EventType = keyof typeof EVENT_TYPES;
export type EventData<T extends EventType> = Static<(typeof EVENT_TYPES)[T]['data']>;
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];
