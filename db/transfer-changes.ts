import { randomUUID } from 'node:crypto';
import { NotFoundError, type EntityManager } from '@mikro-orm/core';
import { TransferEntity, type Transfer } from './entities';
import { appendEvent } from './events';
import { HotStatement, isPostgres } from './sql';
import { clock } from '../platform/clock';

const TRANSFER = new HotStatement('transfer-by-id', 'select * from transfers where transfer_id = ?');

/**
 * A transfer by its id, as `em.findOneOrFail` answers it (NotFoundError when there is none), read with a prepared
 * statement: the worker reads the row at each step of every transfer (its preparation, its submission).
 */
export async function transferById(em: EntityManager, transferId: string): Promise<Transfer> {
  const transfer = await TRANSFER.entity(em, TransferEntity, [transferId]);
  if (!transfer) throw NotFoundError.findOneFailed('Transfer', { transferId });
  return transfer;
}

const TRANSFER_OF_USER = new HotStatement(
  'transfer-of-user',
  'select * from transfers where transfer_id = ? and user_id = ?',
);

/** A user's transfer by its id, or null (another user's is null too): the api reads it on every execute and status read. */
export const transferOfUser = (em: EntityManager, transferId: string, userId: string): Promise<Transfer | null> =>
  TRANSFER_OF_USER.entity(em, TransferEntity, [transferId, userId]);

/** The transfer events a status change writes (each with the transfer's subject: id, network, token, amount, decimals). */
export type TransferChangeEvent =
  'transfer.submitted' | 'transfer.confirmed' | 'transfer.finalized' | 'transfer.failed' | 'transfer.needs_review';

/** The columns a status change may set, besides the status. */
const COLUMNS = {
  txHash: 'tx_hash',
  fee: 'fee',
  error: 'error',
  blockNumber: 'block_number',
  blockHash: 'block_hash',
  nonceLane: 'nonce_lane',
} as const;

export interface TransferChange {
  transferId: string;
  /** The statuses it may change from: a transfer in none of them is left as it is, and no event is written. */
  from: readonly Transfer['status'][];
  set: { status: Transfer['status'] } & Partial<Pick<Transfer, keyof typeof COLUMNS>>;
  event: {
    type: TransferChangeEvent;
    /** transfer.failed: why. */
    error?: string;
    /** transfer.submitted on an EVM network: the user operation's hash. */
    userOpHash?: string | null;
  };
}

/**
 * A transfer's status change and its event, committed together: on PostgreSQL one prepared statement (an UPDATE and the
 * event's stream number and row as data-modifying CTEs, the event built from the updated row); on SQLite the same steps
 * in a transaction. A transfer no longer in a `from` status is left alone and gets no event, so a retry (or a second
 * worker) writes nothing twice. Answers whether it changed. Where each status change was five round trips (BEGIN,
 * UPDATE, the row read for the event, the stream, the event, COMMIT: six with the COMMIT), it is one (issue 52).
 *
 * The event's data is what the events API documents for the type: the transfer's subject, then `error` for
 * transfer.failed, else `txHash` (the row's, empty until known) and `userOpHash` when given.
 */
export async function changeTransfer(em: EntityManager, change: TransferChange): Promise<boolean> {
  const { transferId, from, set, event } = change;
  const columns = (Object.keys(COLUMNS) as Array<keyof typeof COLUMNS>).filter((key) => key in set);
  const values = columns.map((key) => set[key] ?? null);
  if (!isPostgres(em)) {
    return em.transactional(async (tx) => {
      const changed = await tx.nativeUpdate(TransferEntity, { transferId, status: { $in: [...from] } }, set);
      if (changed !== 1) return false;
      const t = await tx.findOneOrFail(TransferEntity, { transferId }, { disableIdentityMap: true });
      await appendEvent(tx, { type: event.type, resourceId: transferId, userId: t.userId, data: eventData(t, event) });
      return true;
    });
  }
  const failed = event.type === 'transfer.failed';
  const statement = (statements[`transfer-change:${failed ? 'failed' : 'other'}:${columns.join(',')}`] ??=
    new HotStatement(
      `transfer-change:${failed ? 'failed' : 'other'}:${columns.join(',')}`,
      'with changed as (' +
        `update transfers set status = ?${columns.map((key) => `, ${COLUMNS[key]} = ?`).join('')} ` +
        'where transfer_id = ? and status = any(?::text[]) ' +
        'returning user_id, network_id, token, amount, decimals, tx_hash), ' +
        'stream as (insert into event_streams (resource_id, last_sequence) select ?, 1 from changed ' +
        'on conflict (resource_id) do update set last_sequence = event_streams.last_sequence + 1 returning last_sequence) ' +
        'insert into events (event_id, type, resource_type, resource_id, sequence, user_id, data, created_at) ' +
        "select ?, ?, 'transfer', ?, stream.last_sequence, changed.user_id, " +
        "jsonb_build_object('transferId', ?::text, 'networkId', changed.network_id, 'token', changed.token, " +
        "'amount', changed.amount, 'decimals', changed.decimals, " +
        (failed ? "'error', ?::text" : "'txHash', coalesce(changed.tx_hash, '')") +
        ') || ?::jsonb, ?::timestamptz from stream, changed returning 1',
    ));
  const rows = await statement.rows(em, [
    set.status,
    ...values,
    transferId,
    `{${from.join(',')}}`,
    transferId,
    `evt_${randomUUID()}`,
    event.type,
    transferId,
    transferId,
    ...(failed ? [event.error ?? 'failed'] : []),
    JSON.stringify(!failed && event.userOpHash ? { userOpHash: event.userOpHash } : {}),
    clock.date(),
  ]);
  return rows.length === 1;
}

const statements: Record<string, HotStatement> = {};

/** The event's data from the changed row (SQLite's path; PostgreSQL's statement builds the same in SQL). */
const eventData = (t: Transfer, event: TransferChange['event']) => {
  const subject = {
    transferId: t.transferId,
    networkId: t.networkId,
    token: t.token,
    amount: t.amount,
    decimals: t.decimals,
  };
  return event.type === 'transfer.failed'
    ? { ...subject, error: event.error ?? 'failed' }
    : { ...subject, txHash: t.txHash ?? '', ...(event.userOpHash ? { userOpHash: event.userOpHash } : {}) };
};
