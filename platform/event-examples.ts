import { EVENT_TYPES, type EventData, type EventType } from './events';

/**
 * One example of each event type, as the events API and a webhook delivery show it (the OpenAPI document's
 * `webhooks`). The type checker asks one for every type in platform/events.ts, with that type's `data`; a unit test
 * validates each against its schema. Ids and values are of the sandbox's kind, not anyone's.
 */
interface EventExample<T extends EventType> {
  /** The resource the event is about (`resource.id`; its type is the event type's). */
  resourceId: string;
  /** The user it concerns; null before one exists (a registration). */
  userId: string | null;
  /** The resource's own count of events. */
  sequence: number;
  data: EventData<T>;
}

const USER = 'usr_c9b1f443-05ec-46d3-92ef-8e7165131b3c';
const REG = 'reg_a99064d1e028bdfd89f6e248';
const ACCOUNT = '0xB641e8Bfb660ddd1279ef4307937ADdA149b796A';
const TX = '0x4b12c51175dc7e91246531d503dc8f12168440397ab04fc3a74e55e6cc486dee';
const USER_OP = '0x9d3f0c1be4a2f5d6c7b8a9e0f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5e';
const STALL = { reason: 'fees-rose', maxFeePerGas: '2000000000', baseFeePerGas: '3150000000' } as const;
const TRANSFER = {
  transferId: 'tr_634d8ffd-ef94-591a-7aec-c74d52c2f2b6',
  networkId: 'ETHEREUM',
  token: 'USDT',
  amount: '12500000',
  decimals: 6,
};
const PAYOUT = {
  payoutId: 'po_6c1f4a2e-93d0-4b7a-8a51-2f0e9c7d4b13',
  amount: '20000',
  currency: 'KRW',
  bankAccountId: 'ba_e5963957-c3ae-4635-9e6e-74a354751dd9',
  purpose: 'request',
} as const;
const CHARGE = { chargeId: 'chg_b3f77b48-8f71-97fe-206a-12c8361d21e5', amount: '50000', currency: 'KRW' } as const;

/** The four events of an owner-signed operation kind, on the operation with this id. */
const signedOperation = (opId: string, replacedBy: string) => {
  const op = { opId, networkId: 'ETHEREUM', accountAddress: ACCOUNT };
  const at = { resourceId: opId, userId: USER };
  return {
    completed: { ...at, sequence: 3, data: { ...op, txHash: TX } },
    failed: { ...at, sequence: 3, data: { ...op, error: 'the account refused it: AA23 reverted' } },
    stalled: { ...at, sequence: 2, data: { ...op, ...STALL } },
    replaced: { ...at, sequence: 3, data: { ...op, replacedBy } },
  };
};
const deploy = signedOperation('dep_691ab2dd-0109-45b4-ad7a-9a0a8a504316', 'dep_0e7b5c1a-93d2-4f6e-8a1b-2c3d4e5f6a7b');
const didKey = signedOperation(
  'didop_d778604f-6dd6-4d68-9314-a96fbc9cbb43',
  'didop_5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d',
);
const transferKey = signedOperation(
  'tkop_6f572248-497c-4d71-8953-becb2ccea3d7',
  'tkop_1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
);
const upgrade = signedOperation('upg_4e7d4a8c-2a4d-49ac-9861-9643bf703466', 'upg_7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e0f');
const recoveryCancel = signedOperation(
  'rcx_e59d1727-20a2-46bc-9d69-0dd08d1cba7d',
  'rcx_2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a',
);
const swap = signedOperation('swap_8d2f6a1e-3b4c-4d5e-9f6a-7b8c9d0e1f2a', 'swap_1f2e3d4c-5b6a-4978-8d7c-6b5a4f3e2d1c');
const RECOVERY = 'rcv_13c66d35-739a-4f9d-9aee-7495ed8fafe6';
const ROTATION = 'rot_755dcd3b-2371-4ee6-b6c3-b030668b7180';
const VC = 'vc_339b46c4-4ca2-4ac9-89e9-18781f75ad82';
const PASSKEY = 'pk_4fba12ba-aadd-4cb2-b5f9-23a8a2a83a50';
const SESSION = 'ses_2f6a1c9e-4b3d-4e8f-a7c5-9d0b1e2f3a4c';
const DEVICE = 'b67fb315-56d5-4dc8-b44d-2921813f8d4f';
const EMAIL_CHANGE = 'emc_45606fad-c0d5-4293-b0bf-2ddbb908508f';
const CASE = 'case_55617dee-e8a4-4c65-a16c-75e5f8349f5e';

export const EVENT_EXAMPLES: { [T in EventType]: EventExample<T> } = {
  'registration.step_changed': { resourceId: REG, userId: null, sequence: 1, data: { regId: REG, step: 'ekyc' } },
  'registration.completed': { resourceId: REG, userId: USER, sequence: 4, data: { regId: REG, userId: USER } },
  'registration.failed': { resourceId: REG, userId: null, sequence: 2, data: { regId: REG, step: 'ekyc' } },
  'registration.expired': { resourceId: REG, userId: null, sequence: 3, data: { regId: REG, step: 'backup' } },
  'deploy.completed': deploy.completed,
  'deploy.failed': deploy.failed,
  'deploy.stalled': deploy.stalled,
  'deploy.replaced': deploy.replaced,
  'did_key.completed': didKey.completed,
  'did_key.failed': didKey.failed,
  'did_key.stalled': didKey.stalled,
  'did_key.replaced': didKey.replaced,
  'transfer_key.completed': transferKey.completed,
  'transfer_key.failed': transferKey.failed,
  'transfer_key.stalled': transferKey.stalled,
  'transfer_key.replaced': transferKey.replaced,
  'account_upgrade.completed': upgrade.completed,
  'account_upgrade.failed': upgrade.failed,
  'account_upgrade.stalled': upgrade.stalled,
  'account_upgrade.replaced': upgrade.replaced,
  'recovery_cancel.completed': recoveryCancel.completed,
  'recovery_cancel.failed': recoveryCancel.failed,
  'recovery_cancel.stalled': recoveryCancel.stalled,
  'recovery_cancel.replaced': recoveryCancel.replaced,
  'swap.completed': {
    ...swap.completed,
    data: {
      ...swap.completed.data,
      source: 'ETH',
      target: 'USDT',
      amountIn: '500000000000000000',
      amountOut: '1495910964',
    },
  },
  'swap.failed': {
    ...swap.failed,
    data: {
      ...swap.failed.data,
      error: 'stale-quote: the pool moved: the swap would give less than the signed minimum',
    },
  },
  'swap.stalled': swap.stalled,
  'swap.replaced': swap.replaced,
  'recovery.scheduled': {
    resourceId: RECOVERY,
    userId: USER,
    sequence: 1,
    data: { recoveryId: RECOVERY, networkId: 'ETHEREUM', executeAfter: '2026-11-28T00:21:45.000Z', txHash: TX },
  },
  'recovery.executed': {
    resourceId: RECOVERY,
    userId: USER,
    sequence: 2,
    data: { recoveryId: RECOVERY, networkId: 'ETHEREUM', txHash: TX },
  },
  'recovery.cancelled': {
    resourceId: RECOVERY,
    userId: USER,
    sequence: 2,
    data: { recoveryId: RECOVERY, networkId: 'ETHEREUM' },
  },
  'key_rotation.network_completed': {
    resourceId: ROTATION,
    userId: USER,
    sequence: 1,
    data: { taskId: ROTATION, networkId: 'ETHEREUM', txHash: TX },
  },
  'key_rotation.network_stalled': {
    resourceId: ROTATION,
    userId: USER,
    sequence: 1,
    data: { taskId: ROTATION, networkId: 'POLYGON', ...STALL },
  },
  'key_rotation.network_failed': {
    resourceId: ROTATION,
    userId: USER,
    sequence: 2,
    data: { taskId: ROTATION, networkId: 'POLYGON', error: 'the account refused it: AA23 reverted', retryable: true },
  },
  'key_rotation.completed': { resourceId: ROTATION, userId: USER, sequence: 3, data: { taskId: ROTATION } },
  'key_rotation.partial_failure': { resourceId: ROTATION, userId: USER, sequence: 3, data: { taskId: ROTATION } },
  'charge.processing': { resourceId: CHARGE.chargeId, userId: USER, sequence: 1, data: CHARGE },
  'charge.completed': { resourceId: CHARGE.chargeId, userId: USER, sequence: 2, data: CHARGE },
  'charge.failed': {
    resourceId: CHARGE.chargeId,
    userId: USER,
    sequence: 2,
    data: { ...CHARGE, reason: 'The withdrawal account does not hold enough won' },
  },
  'charge.needs_review': {
    resourceId: CHARGE.chargeId,
    userId: USER,
    sequence: 2,
    data: { ...CHARGE, reason: 'The bank answered a status the service does not know' },
  },
  'payout.processing': { resourceId: PAYOUT.payoutId, userId: USER, sequence: 1, data: PAYOUT },
  'payout.completed': { resourceId: PAYOUT.payoutId, userId: USER, sequence: 2, data: PAYOUT },
  'payout.failed': {
    resourceId: PAYOUT.payoutId,
    userId: USER,
    sequence: 2,
    data: { ...PAYOUT, reason: 'institution_daily_limit', code: 'A0101' },
  },
  'payout.needs_review': {
    resourceId: PAYOUT.payoutId,
    userId: USER,
    sequence: 2,
    data: {
      ...PAYOUT,
      reason: 'payout_not_received: the centre has no record of F123456789U4BC34239Z since it was sent: not sent again',
    },
  },
  'bank_verification.verified': {
    resourceId: 'bv_d01538aa-8b5c-39f4-1715-885079b8a621',
    userId: USER,
    sequence: 1,
    data: {
      verificationId: 'bv_d01538aa-8b5c-39f4-1715-885079b8a621',
      bankAccountId: 'ba_e5963957-c3ae-4635-9e6e-74a354751dd9',
    },
  },
  'bank_verification.locked': {
    resourceId: 'bv_d01538aa-8b5c-39f4-1715-885079b8a621',
    userId: USER,
    sequence: 1,
    data: { verificationId: 'bv_d01538aa-8b5c-39f4-1715-885079b8a621' },
  },
  'bank_consent.granted': {
    resourceId: 'bcs_4cfcebdb-32fe-4218-bbdb-d2e6ac324551',
    userId: USER,
    sequence: 1,
    data: { consentId: 'bcs_4cfcebdb-32fe-4218-bbdb-d2e6ac324551', accounts: 1 },
  },
  'transfer.submitted': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 1,
    data: { ...TRANSFER, txHash: '', userOpHash: USER_OP },
  },
  'transfer.repriced': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 2,
    data: {
      ...TRANSFER,
      userOpHash: '0x1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f00f',
      replacedUserOpHash: USER_OP,
      ...STALL,
    },
  },
  'transfer.confirmed': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 2,
    data: { ...TRANSFER, txHash: TX },
  },
  'transfer.finalized': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 3,
    data: { ...TRANSFER, txHash: TX },
  },
  'transfer.failed': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 2,
    data: { ...TRANSFER, error: 'the account refused it: ERC20: transfer amount exceeds balance' },
  },
  'transfer.needs_review': {
    resourceId: TRANSFER.transferId,
    userId: USER,
    sequence: 2,
    data: { ...TRANSFER, txHash: TX },
  },
  'credential.issued': {
    resourceId: VC,
    userId: USER,
    sequence: 1,
    data: {
      vcId: VC,
      credentialType: 'KycCredential',
      holder: 'did:ethr:0x7a69:0x93f80dd5647d4a19cc671DBc6B70e45615967a6B',
    },
  },
  'credential.revoked': {
    resourceId: VC,
    userId: USER,
    sequence: 2,
    data: {
      vcId: VC,
      credentialType: 'KycCredential',
      reason: 'operator: fraud report',
      statusListCredential: 'http://127.0.0.1:3000/v1/credentials/status/1',
      statusListIndex: '116193',
    },
  },
  'account.closed': { resourceId: USER, userId: USER, sequence: 1, data: { userId: USER } },
  'email.locked': {
    resourceId: 'ev_2a15b650-b111-495c-b8e5-705f5910a126',
    userId: USER,
    sequence: 1,
    data: { verificationId: 'ev_2a15b650-b111-495c-b8e5-705f5910a126' },
  },
  'passkey.added': { resourceId: PASSKEY, userId: USER, sequence: 1, data: { passkeyId: PASSKEY } },
  'passkey.removed': { resourceId: PASSKEY, userId: USER, sequence: 2, data: { passkeyId: PASSKEY } },
  'device.added': {
    resourceId: SESSION,
    userId: USER,
    sequence: 1,
    data: { deviceId: DEVICE, signInMethod: 'id_card', holdUntil: '2026-11-27T00:21:45.498Z' },
  },
  'device.revoked': {
    resourceId: SESSION,
    userId: USER,
    sequence: 2,
    data: { deviceId: DEVICE, by: 'another_device' },
  },
  'backup.read': {
    resourceId: 'bkr_7d2e9c4a-1b3f-4a5e-8c6d-0f9e8d7c6b5a',
    userId: USER,
    sequence: 1,
    data: { deviceId: DEVICE, version: 2 },
  },
  'backup.stored': { resourceId: USER, userId: USER, sequence: 5, data: { version: 2 } },
  'email.verified': { resourceId: USER, userId: USER, sequence: 2, data: { userId: USER } },
  'email.changed': {
    resourceId: EMAIL_CHANGE,
    userId: USER,
    sequence: 1,
    data: { changeId: EMAIL_CHANGE, undoUntil: '2026-12-03T00:21:45.498Z' },
  },
  'email.change_undone': { resourceId: EMAIL_CHANGE, userId: USER, sequence: 2, data: { changeId: EMAIL_CHANGE } },
  'pin.set': { resourceId: USER, userId: USER, sequence: 3, data: { userId: USER } },
  'pin.changed': { resourceId: USER, userId: USER, sequence: 6, data: { userId: USER } },
  'pin.reset': { resourceId: USER, userId: USER, sequence: 8, data: { userId: USER } },
  'pin.locked': {
    resourceId: USER,
    userId: USER,
    sequence: 7,
    data: { userId: USER, lockedUntil: '2026-11-26T00:51:45.498Z', resetRequired: false },
  },
  'compliance.case_opened': {
    resourceId: CASE,
    userId: USER,
    sequence: 1,
    data: { caseId: CASE, kind: 'sanctions_hit', transferId: TRANSFER.transferId, programme: 'CYBER2' },
  },
  'compliance.case_decided': {
    resourceId: CASE,
    userId: USER,
    sequence: 2,
    data: { caseId: CASE, decision: 'rejected', transferId: TRANSFER.transferId },
  },
};

/** The event id of an example: stable per type, so the document is the same on every build. */
const exampleEventId = (type: EventType): string => {
  let hash = 0x811c9dc5;
  for (const char of type) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  const hex = hash.toString(16).padStart(8, '0');
  return `evt_${hex}-5e1d-4c2b-9a3f-${hex}${hex.slice(0, 4)}`;
};

/** An event of this type as the events API answers it and a webhook delivers it. */
export function eventExample(type: EventType): Record<string, unknown> {
  const example = EVENT_EXAMPLES[type];
  return {
    id: exampleEventId(type),
    type,
    createdAt: '2026-11-26T00:21:45.498Z',
    resource: { type: EVENT_TYPES[type].resource, id: example.resourceId },
    sequence: example.sequence,
    userId: example.userId,
    data: example.data,
  };
}
