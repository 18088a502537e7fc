import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { HotStatement, RowLock } from './sql';
import { transferById } from './transfer-changes';

/**
 * Nonce lanes per account (2D nonce keys 1..NONCE_LANES): a user's in-flight EVM transfers at once before one takes a
 * fresh key. A lane's slot is written once, then each later transfer on it updates it (5,000 gas, not 22,100).
 */
export const NONCE_LANES = 16;

/** The user's account on a network, locked while a transfer's balance is checked and its intent recorded. */
export const ACCOUNT_LOCK = new RowLock('smart-account-lock', 'SmartAccount', 'smart_accounts', [
  'user_id',
  'network_id',
]);

/**
 * The account's lowest free nonce lane, as a subquery of one statement (both dialects), or null when every lane is busy
 * or none is asked for (`lanes` 0). Its parameters: `freeLaneParams`.
 */
export const FREE_NONCE_LANE =
  '(with recursive lanes(lane) as (select 1 where ? > 0 union all select lane + 1 from lanes where lane < ?) ' +
  'select min(lane) from lanes where lane not in (' +
  'select nonce_lane from transfers where network_id = ? and from_address = ? and nonce_lane is not null))';

export const freeLaneParams = (lanes: number, networkId: string, fromAddress: string): unknown[] => [
  lanes,
  lanes,
  networkId,
  fromAddress,
];

/**
 * The lowest free lane taken by a transfer that has none yet: its row answers the lane (null when every lane is busy);
 * no row when the transfer holds one already.
 */
const LANE_CLAIM = new HotStatement<{ nonce_lane: number | string | null }>(
  'transfer-lane-claim',
  `update transfers set nonce_lane = ${FREE_NONCE_LANE} where transfer_id = ? and nonce_lane is null returning nonce_lane`,
);

/**
 * A nonce lane of the sending account for this transfer (see Transfer.nonceLane): its own while in flight, so its
 * nonce, read from the chain when signing, is not another in-flight transfer's. The API records most transfers with
 * their lane already (with the intent, under the account's lock); the worker claims one for a transfer recorded
 * without (held for review or the Travel Rule, which may wait for days, or recorded before lanes were taken there),
 * under the same lock, so a claim and the API's record never pick the same lane. The unique index settles any other
 * race: the refused claim looks again. A transfer recorded while every lane was busy claims here too. Null when every
 * lane is still busy: the transfer then takes a fresh key.
 */
export async function claimNonceLane(
  em: EntityManager,
  transfer: { transferId: string; userId: string; networkId: string; fromAddress: string; nonceLane?: number | null },
): Promise<bigint | null> {
  if (transfer.nonceLane !== null && transfer.nonceLane !== undefined) return BigInt(transfer.nonceLane);
  for (let attempt = 0; attempt < NONCE_LANES; attempt += 1) {
    let claimed: Array<{ nonce_lane: number | string | null }>;
    try {
      claimed = await em.fork().transactional(async (tx) => {
        await ACCOUNT_LOCK.lock(tx, transfer.userId, transfer.networkId);
        return LANE_CLAIM.rows(tx, [
          ...freeLaneParams(NONCE_LANES, transfer.networkId, transfer.fromAddress),
          transfer.transferId,
        ]);
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      continue; // another transfer of this account took that lane first: look again
    }
    // No row: an earlier attempt of this very transfer claimed one meanwhile (or the API recorded it with one).
    if (!claimed.length) {
      const again = await transferById(em.fork(), transfer.transferId);
      return again.nonceLane === null || again.nonceLane === undefined ? null : BigInt(again.nonceLane);
    }
    const lane = claimed[0]!.nonce_lane;
    return lane === null ? null : BigInt(lane); // null: every lane is busy
  }
  return null;
}
