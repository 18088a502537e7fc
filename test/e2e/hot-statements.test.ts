import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { createOrm, onStatement, type Orm } from '../../db/orm';
import { ChargeEntity, EventEntity, IdempotencyRecordEntity } from '../../db/entities';
import { appendEvent, insertWithEvent } from '../../db/events';
import { HotStatement, RowLock, USER_LOCK } from '../../db/sql';
import { ACCOUNT_LOCK, NONCE_LANES, claimNonceLane, freeLaneParams } from '../../db/nonce-lanes';
import { TRANSFER_RECORD } from '../../api/transfer/evm-ledger';
import { changeTransfer, transferById } from '../../db/transfer-changes';
import {
  DeadlockException,
  NotFoundError,
  TableNotFoundException,
  UniqueConstraintViolationException,
  wrap,
} from '@mikro-orm/core';
import { IdempotencyStore } from '../../api/http/idempotency';
import { DataEncryption } from '../../platform/data-encryption';
import { HttpError } from '../../api/http/problems';
import { testDatabases } from '../helpers/databases';
import { GasSponsorshipEntity, gasUsedKrw } from '../../db/entities';
import { storedSanctionsList } from '../../db/compliance';
import { replaceSanctionsList } from '../../db/sanctions-list';
import { ormResidentDatabase } from '../../db/sql';
import { sanctionsScreeningFrom } from '../../integrations/sanctions';
import { useMigratedOrm } from '../helpers/orm';
import { Holdings } from '../../api/common/holdings';
import { SessionCache } from '../../api/common/session-cache';
import { RetiredTransferKeyEntity, SmartAccountEntity, TransferEntity, TransferKeyEntity } from '../../db/entities';
import { CustodyKeys } from '../../api/common/custody';
import { unreachableEthereum } from '../helpers/networks';
import type { ChainProviders } from '../../integrations/evm/smart-account';
import type { SolanaChains } from '../../integrations/solana';

/**
 * The hot paths' SQL (db/sql.ts) writes what the ORM reads back, in both databases: the rows a charge start and an
 * Idempotency-Key write without the ORM must be the rows the rest of the service (the worker, the events API, replays)
 * reads through it.
 */
describe.each(testDatabases())('hot statements on $name', (kind) => {
  const migrated = useMigratedOrm(kind);
  let orm: Orm;
  beforeAll(() => {
    orm = migrated.orm();
  });

  const chargeStart = (chargeId: string, createdAt: Date) =>
    insertWithEvent(
      orm.em,
      'test-charge-start',
      {
        sql:
          'insert into charges (charge_id, user_id, bank_account_id, bank_code, amount, currency, status, created_at, updated_at) ' +
          "values (?, ?, ?, ?, ?, ?, 'processing', ?, ?) on conflict (charge_id) do nothing",
        params: [chargeId, 'usr_1', 'bank_1', '004', 1_234_567_890_123n, 'KRW', createdAt, createdAt],
      },
      {
        type: 'charge.processing',
        resourceId: chargeId,
        userId: 'usr_1',
        data: { chargeId, amount: '1', currency: 'KRW' },
      },
    );

  it('inserts a row and its event once: a retry writes neither, and the next event of the resource numbers on', async () => {
    const chargeId = `chg_${randomBytes(6).toString('hex')}`;
    const createdAt = new Date('2026-11-26T01:02:03.456Z');
    expect(await chargeStart(chargeId, createdAt)).toBe(true);
    expect(await chargeStart(chargeId, new Date())).toBe(false);

    const em = orm.em.fork();
    const charge = await em.findOneOrFail(ChargeEntity, { chargeId });
    expect(charge).toMatchObject({ userId: 'usr_1', status: 'processing', currency: 'KRW', bankCode: '004' });
    expect(charge.amount).toBe(1_234_567_890_123n); // a bigint both ways
    expect(charge.createdAt.toISOString()).toBe(createdAt.toISOString());
    const events = await em.find(EventEntity, { resourceId: chargeId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => [e.type, e.sequence, e.resourceType, e.userId])).toEqual([
      ['charge.processing', 1, 'charge', 'usr_1'],
    ]);
    expect(events[0]!.data).toEqual({ chargeId, amount: '1', currency: 'KRW' });
    expect(events[0]!.createdAt).toBeInstanceOf(Date);

    await orm.em.fork().transactional((tx) =>
      appendEvent(tx, {
        type: 'charge.failed',
        resourceId: chargeId,
        userId: 'usr_1',
        data: { chargeId, amount: '1', currency: 'KRW', reason: 'test' },
      }),
    );
    const after = await orm.em.fork().find(EventEntity, { resourceId: chargeId }, { orderBy: { sequence: 'asc' } });
    expect(after.map((e) => e.sequence)).toEqual([1, 2]);
  });

  it('changes a transfer’s status with its event once, the event built from the row as the events API documents it', async () => {
    const transferId = `tr_${randomBytes(6).toString('hex')}`;
    const em = orm.em.fork();
    em.create(TransferEntity, {
      transferId,
      userId: 'usr_2',
      networkId: 'ETHEREUM',
      token: 'USDC',
      decimals: 6,
      fromAddress: '0x1111111111111111111111111111111111111111',
      toAddress: '0x2222222222222222222222222222222222222222',
      amount: '123456789012345678901234567890',
      status: 'processing',
    });
    await em.flush();
    const submitted = (userOpHash: string | null) =>
      changeTransfer(orm.em.fork(), {
        transferId,
        from: ['processing'],
        set: { status: 'submitted' },
        event: { type: 'transfer.submitted', userOpHash },
      });
    expect(await submitted('0xabc')).toBe(true);
    expect(await submitted('0xabc')).toBe(false); // a retry: no longer processing, no second event
    const block = { blockNumber: 21_000_123, blockHash: `0x${'b'.repeat(64)}` };
    const confirm = () =>
      changeTransfer(orm.em.fork(), {
        transferId,
        from: ['held_for_review', 'processing', 'submitted'],
        set: { status: 'confirmed', txHash: `0x${'c'.repeat(64)}`, fee: '42', error: null, ...block },
        event: { type: 'transfer.confirmed' },
      });
    expect(await confirm()).toBe(true);
    expect(await confirm()).toBe(false);
    // A change from a status it is not in writes nothing (here: the finality of a transfer never confirmed is refused).
    expect(
      await changeTransfer(orm.em.fork(), {
        transferId,
        from: ['failed'],
        set: { status: 'finalized', nonceLane: null },
        event: { type: 'transfer.finalized' },
      }),
    ).toBe(false);

    const read = orm.em.fork();
    const transfer = await read.findOneOrFail(TransferEntity, { transferId });
    expect(transfer).toMatchObject({ status: 'confirmed', txHash: `0x${'c'.repeat(64)}`, fee: '42', error: null });
    expect(transfer.blockNumber).toBe(block.blockNumber);
    expect(transfer.blockHash).toBe(block.blockHash);
    const events = await read.find(EventEntity, { resourceId: transferId }, { orderBy: { sequence: 'asc' } });
    const subject = {
      transferId,
      networkId: 'ETHEREUM',
      token: 'USDC',
      amount: '123456789012345678901234567890',
      decimals: 6,
    };
    expect(events.map((e) => [e.type, e.sequence, e.resourceType, e.userId, e.data])).toEqual([
      ['transfer.submitted', 1, 'transfer', 'usr_2', { ...subject, txHash: '', userOpHash: '0xabc' }],
      ['transfer.confirmed', 2, 'transfer', 'usr_2', { ...subject, txHash: `0x${'c'.repeat(64)}` }],
    ]);
    expect(events[0]!.eventId).toMatch(/^evt_/);
    expect(events[0]!.createdAt).toBeInstanceOf(Date);

    // A failure names its error in place of the transaction hash.
    const other = `tr_${randomBytes(6).toString('hex')}`;
    const em2 = orm.em.fork();
    em2.create(TransferEntity, {
      ...transfer,
      transferId: other,
      status: 'submitted',
      txHash: null,
      blockNumber: null,
      blockHash: null,
      nonceLane: 3,
    });
    await em2.flush();
    expect(
      await changeTransfer(orm.em.fork(), {
        transferId: other,
        from: ['processing', 'submitted'],
        set: { status: 'failed', txHash: null, fee: null, error: 'reverted', nonceLane: null },
        event: { type: 'transfer.failed', error: 'reverted' },
      }),
    ).toBe(true);
    const failed = await orm.em.fork().findOneOrFail(TransferEntity, { transferId: other });
    expect(failed).toMatchObject({ status: 'failed', error: 'reverted', nonceLane: null });
    const [failedEvent] = await orm.em.fork().find(EventEntity, { resourceId: other });
    expect(failedEvent!.data).toEqual({ ...subject, transferId: other, error: 'reverted' });
  });

  it('tells each statement to onStatement (db_statements_total): the ORM’s, BEGIN and COMMIT, and hot statements', async () => {
    const told: number[] = [];
    let count = 0;
    onStatement(orm, () => (count += 1));
    const read = new HotStatement('test-count', 'select last_sequence from event_streams where resource_id = ?');
    await read.rows(orm.em, ['none']);
    told.push(count);
    await orm.em.fork().transactional((tx) => read.rows(tx, ['none']));
    told.push(count);
    await orm.em.fork().find(EventEntity, { resourceId: 'none' });
    told.push(count);
    expect(told).toEqual([1, 4, 5]);
  });

  it('tells whether the service holds an address as one of the user’s transfer keys, current or retired', async () => {
    const key = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
    const [user, other] = [`usr_${randomBytes(4).toString('hex')}`, `usr_${randomBytes(4).toString('hex')}`];
    const em = orm.em.fork();
    em.create(TransferKeyEntity, { userId: user, address: key(1), keySealed: 'sealed' });
    em.create(TransferKeyEntity, { userId: other, address: key(3), keySealed: 'sealed' });
    const at = new Date();
    em.create(RetiredTransferKeyEntity, {
      userId: user,
      address: key(2),
      keySealed: 'sealed',
      createdAt: at,
      retiredAt: at,
    });
    await em.flush();
    const custody = new CustodyKeys({ orm, temporal: undefined as never, taskQueue: 'unused' });
    const held = await Promise.all([1, 2, 3, 4].map((n) => custody.holdsTransferKey(user, key(n))));
    expect(held).toEqual([true, true, false, false]); // current, retired, another user's, nobody's
    expect(await custody.holdsTransferKey(other, key(3))).toBe(true);
  });

  it('reads a transfer as the ORM’s own find answers it: columns, JSON, numbers and dates', async () => {
    const transferId = `tr_${randomBytes(6).toString('hex')}`;
    const em = orm.em.fork();
    em.create(TransferEntity, {
      transferId,
      userId: 'usr_3',
      networkId: 'ETHEREUM',
      token: 'ETH',
      decimals: 18,
      fromAddress: '0x1111111111111111111111111111111111111111',
      toAddress: '0x2222222222222222222222222222222222222222',
      amount: '123456789012345678901234567890',
      userOperation: { sender: '0x1111111111111111111111111111111111111111', nonce: '0x1' },
      userOpHash: `0x${'a'.repeat(64)}`,
      nonceLane: 3,
      blockNumber: 21_000_123,
      valueKrw: 1_234_567_890_123n,
      status: 'confirmed',
    });
    await em.flush();
    const read = await transferById(orm.em.fork(), transferId);
    const found = await orm.em.fork().findOneOrFail(TransferEntity, { transferId });
    expect(wrap(read).toObject()).toEqual(wrap(found).toObject());
    expect(read.valueKrw).toBe(1_234_567_890_123n);
    expect(read.userOperation).toEqual({ sender: '0x1111111111111111111111111111111111111111', nonce: '0x1' });
    expect(read.createdAt).toBeInstanceOf(Date);
    // Managed as a find's: a change to it is flushed.
    const fork = orm.em.fork();
    const managed = await transferById(fork, transferId);
    managed.status = 'finalized';
    await fork.flush();
    expect((await orm.em.fork().findOneOrFail(TransferEntity, { transferId })).status).toBe('finalized');
    await expect(transferById(orm.em.fork(), 'tr_none')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('counts a user’s day of sponsored gas: reserved at its most, settled at its cost, released at nothing', async () => {
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    const day = { from: new Date('2026-12-03T15:00:00Z'), to: new Date('2026-12-04T15:00:00Z') };
    const em = orm.em.fork();
    const sponsorship = (n: number, status: 'reserved' | 'settled' | 'released', createdAt: Date) =>
      em.create(GasSponsorshipEntity, {
        sponsorshipId: `transfer:tr_${n}_${userId}`,
        userId,
        networkId: 'ETHEREUM',
        userOpHash: `0x${String(n).repeat(64).slice(0, 64)}`,
        paymasterAndData: '0x',
        maxCostWei: '2000000000000000', // 0.002 ETH
        actualCostWei: status === 'settled' ? '500000000000000' : null, // 0.0005 ETH
        priceKrwCenti: 500_000_000n, // 5,000,000.00 won
        status,
        fromBlock: 1,
        validUntil: day.to,
        createdAt,
      });
    sponsorship(1, 'reserved', new Date('2026-12-03T15:00:00Z'));
    sponsorship(2, 'settled', new Date('2026-12-04T10:00:00Z'));
    sponsorship(3, 'released', new Date('2026-12-04T11:00:00Z'));
    sponsorship(4, 'reserved', new Date('2026-12-04T15:00:00Z')); // the next day
    await em.flush();
    // 10,000 won reserved + 2,500 settled + 0 released; the next day's not counted.
    expect(await gasUsedKrw(orm.em.fork(), userId, day)).toBe(12_500n);
    expect(await gasUsedKrw(orm.em.fork(), 'usr_nobody', day)).toBe(0n);
  });

  it('reads the sanctions list’s state and an address’s entry together, as the list refresh wrote them', async () => {
    const source = `test-${randomBytes(4).toString('hex')}`;
    const list = storedSanctionsList(orm, source);
    const [listedKey, otherKey] = ['0x' + 'ab'.repeat(20), '0x' + 'cd'.repeat(20)];
    expect(await list.read(listedKey)).toEqual({ state: null, assets: null });
    const before = Date.now();
    await replaceSanctionsList(
      ormResidentDatabase(orm),
      source,
      { listDate: '2026-11-30', addresses: new Map([[listedKey, new Set(['ETH', 'USDT'])]]), sha256: 'a'.repeat(64) },
      'https://example.test/sdn.xml',
    );
    const listed = await list.read(listedKey);
    expect(listed).toMatchObject({ state: { listDate: '2026-11-30', addressCount: 1 } });
    expect(listed.assets?.sort()).toEqual(['ETH', 'USDT']);
    expect(listed.state!.refreshedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(listed.state!.refreshedAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(await list.read(otherKey)).toEqual({ state: listed.state, assets: null });
    // Through the screening both processes build: a listed address is found, another passes.
    const screening = sanctionsScreeningFrom({ SANCTIONS_LIST_MAX_AGE_HOURS: 48, SCREENING_TIMEOUT_MS: 1000 }, list);
    expect(await screening.screen(listedKey.toUpperCase().replace('0X', '0x'))).toMatchObject({ listed: true });
    expect(await screening.screen(otherKey)).toEqual({ listed: false });
  });

  it('keeps answering after a migration adds a column to a table it reads (PostgreSQL’s kept plan refused)', async () => {
    const table = `hot_${randomBytes(4).toString('hex')}`;
    const em = orm.em.fork();
    await em.getConnection().execute(`create table ${table} (id varchar(16) primary key, a integer)`);
    await em.getConnection().execute(`insert into ${table} (id, a) values ('x', 1)`);
    const read = new HotStatement(`${table}-read`, `select * from ${table} where id = ?`);
    // The pool's connections each prepare it (a few reads at once reach more than one).
    await Promise.all([1, 2, 3].map(() => read.row(orm.em.fork(), ['x'])));
    await em.getConnection().execute(`alter table ${table} add column b integer`);
    for (let i = 0; i < 6; i += 1)
      expect(await read.row(orm.em.fork(), ['x'])).toMatchObject({ id: 'x', a: 1, b: null });
    await em.getConnection().execute(`drop table ${table}`);
  });

  it('runs inside the entity manager’s transaction: a rollback takes the statement back', async () => {
    const chargeId = `chg_${randomBytes(6).toString('hex')}`;
    const insert = new HotStatement(
      'test-insert-in-transaction',
      'insert into event_streams (resource_id, last_sequence) values (?, 7)',
    );
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await insert.rows(tx, [chargeId]);
        const seen = await new HotStatement(
          'test-read-in-transaction',
          'select last_sequence from event_streams where resource_id = ?',
        ).rows(tx, [chargeId]);
        expect(seen).toHaveLength(1); // its own transaction sees it
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    const left = await new HotStatement(
      'test-read-after',
      'select last_sequence from event_streams where resource_id = ?',
    ).rows(orm.em, [chargeId]);
    expect(left).toEqual([]);
  });

  it('locks a row until the transaction ends, as the ORM’s pessimistic lock does; a missing row is NotFoundError', async () => {
    await expect(orm.em.fork().transactional((tx) => USER_LOCK.lock(tx, 'usr_nobody'))).rejects.toThrow(NotFoundError);
    const accountLock = new RowLock('test-account-lock', 'SmartAccount', 'smart_accounts', ['user_id', 'network_id']);
    await expect(orm.em.fork().transactional((tx) => accountLock.lock(tx, 'usr_nobody', 'ETHEREUM'))).rejects.toThrow(
      "SmartAccount not found ({ user_id: 'usr_nobody', network_id: 'ETHEREUM' })",
    );
    // A row of a small table of its own kind stands for the user's.
    const asset = `L${randomBytes(4).toString('hex')}`;
    await new HotStatement(
      'test-price-insert',
      'insert into price_references (asset, centi, set_at) values (?, ?, ?)',
    ).rows(orm.em, [asset, 100n, new Date()]);
    const priceLock = new RowLock('test-price-lock', 'PriceReference', 'price_references', ['asset']);
    await expect(priceLock.lock(orm.em.fork(), asset)).rejects.toThrow(/outside a transaction/);
    if (kind.name !== 'postgresql') {
      // SQLite: one write transaction at a time holds the database; the lock is the read that finds the row.
      await orm.em.fork().transactional((tx) => priceLock.lock(tx, asset));
      return;
    }
    // PostgreSQL: a second transaction's lock waits for the first's commit.
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const first = orm.em.fork().transactional(async (tx) => {
      await priceLock.lock(tx, asset);
      locked();
      await held;
      order.push('first commits');
    });
    await new Promise<void>((resolve) => (locked = resolve));
    const second = orm.em.fork().transactional(async (tx) => {
      await priceLock.lock(tx, asset);
      order.push('second locked');
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(order).toEqual([]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first commits', 'second locked']);
  });

  it('records a transfer with its account’s lowest free nonce lane; one held takes its lane when the worker claims it', async () => {
    const userId = `usr_${randomBytes(4).toString('hex')}`;
    const from = `0x${randomBytes(20).toString('hex')}`;
    const em = orm.em.fork();
    em.create(SmartAccountEntity, {
      userId,
      networkId: 'POLYGON',
      address: from,
      ownerAddress: from,
      status: 'deployed',
    });
    await em.flush();
    const lanes = async (ids: string[]) => {
      const rows = await orm.em.fork().find(TransferEntity, { transferId: { $in: ids } });
      return ids.map((id) => rows.find((r) => r.transferId === id)!.nonceLane ?? null);
    };
    /** As the api records one (api/transfer/evm-ledger.ts), under the account's lock; `held`: for review. */
    const record = (transferId: string, held = false) =>
      orm.em.fork().transactional(async (tx) => {
        await ACCOUNT_LOCK.lock(tx, userId, 'POLYGON');
        const now = new Date();
        await TRANSFER_RECORD.rows(tx, [
          transferId,
          userId,
          'POLYGON',
          'POL',
          18,
          from,
          `0x${'2'.repeat(40)}`,
          '1',
          held ? 'held_for_review' : 'processing',
          1n,
          null,
          null,
          now,
          now,
          ...freeLaneParams(held ? 0 : NONCE_LANES, 'POLYGON', from),
        ]);
      });
    const id = (n: number) => `tr_${userId}_${n}`;
    await record(id(1));
    await record(id(2));
    await record(id(3), true);
    expect(await lanes([id(1), id(2), id(3)])).toEqual([1, 2, null]);
    // A lane freed (its transfer final or failed) is the next one taken.
    await orm.em.fork().nativeUpdate(TransferEntity, { transferId: id(1) }, { nonceLane: null });
    await record(id(4));
    expect(await lanes([id(4)])).toEqual([1]);
    // The worker: a transfer recorded with its lane answers it without a claim; the held one claims the next free.
    const row = async (n: number) => transferById(orm.em.fork(), id(n));
    expect(await claimNonceLane(orm.em, await row(4))).toBe(1n);
    expect(await claimNonceLane(orm.em, await row(3))).toBe(3n);
    expect(await lanes([id(3)])).toEqual([3]);
    // Every lane busy: recorded with none, and the worker's claim answers none (the transfer takes a key of its own).
    for (let n = 5; n < 5 + NONCE_LANES - 3; n += 1) await record(id(n));
    await record(id(100));
    expect(await lanes([id(100)])).toEqual([null]);
    expect(await claimNonceLane(orm.em, await row(100))).toBeNull();
    if (kind.name !== 'postgresql') return;
    // PostgreSQL: the worker's claim waits for the account's lock, so it never picks the lane of a record not yet
    // committed (the record's insert would then be refused by the unique index, failing the user's request).
    await orm.em.fork().nativeUpdate(TransferEntity, { transferId: id(2) }, { nonceLane: null });
    await record(id(101), true);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const api = orm.em.fork().transactional(async (tx) => {
      await ACCOUNT_LOCK.lock(tx, userId, 'POLYGON');
      locked();
      await held;
    });
    await new Promise<void>((resolve) => (locked = resolve));
    let claimed: bigint | null | undefined;
    const claim = claimNonceLane(orm.em, await row(101)).then((lane) => (claimed = lane));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(claimed).toBeUndefined();
    release();
    await Promise.all([api, claim]);
    expect(claimed).toBe(2n);
  });

  it('names its connections on PostgreSQL (pg_stat_activity, the server log’s %a), its statements included', async () => {
    if (kind.name !== 'postgresql') return; // SQLite has no connections to name
    const named = await createOrm(migrated.url(), { applicationName: 'wallet-test-named' });
    try {
      const name = new HotStatement<{ application_name: string }>(
        'test-application-name',
        'select application_name from pg_stat_activity where pid = pg_backend_pid()',
      );
      expect(await name.row(named.em.fork(), [])).toEqual({ application_name: 'wallet-test-named' });
      expect(
        await named.em.fork().getConnection().execute("select current_setting('application_name') as name"),
      ).toEqual([{ name: 'wallet-test-named' }]);
    } finally {
      await named.close();
    }
  });

  it('tells the api processes of a user row’s change, not of a write that changes nothing (the worker’s fence)', async () => {
    if (kind.name !== 'postgresql') return; // SQLite has no notifications
    const userId = `usr_${randomBytes(6).toString('hex')}`;
    await new HotStatement(
      'test-user-insert',
      'insert into users (id, reg_id, ci_hash, name_sealed, phone_sealed, masked_phone, status, wallet_type, device_id, registered_at) ' +
        "values (?, ?, ?, 'n', 'p', '010-****-0000', 'active', 'smart', 'dev', ?)",
    ).rows(orm.em, [userId, `reg_${userId}`, `ci_${userId}`, new Date()]);
    const listener = new PgClient({ connectionString: migrated.url() });
    await listener.connect();
    const told: string[] = [];
    listener.on('notification', (n) => {
      if (n.payload === userId) told.push(n.channel);
    });
    await listener.query('listen session_changed');
    const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
    try {
      // The fence before a transfer is signed: the row written as it was.
      await new HotStatement(
        'test-user-fence',
        "update users set status = 'active' where id = ? and status = 'active' returning id",
      ).rows(orm.em, [userId]);
      await settle();
      expect(told).toEqual([]);
      await new HotStatement('test-user-suspend', "update users set status = 'suspended' where id = ?").rows(orm.em, [
        userId,
      ]);
      await settle();
      expect(told).toEqual(['session_changed']);
      await new HotStatement('test-user-delete', 'delete from users where id = ?').rows(orm.em, [userId]);
      await settle();
      expect(told).toEqual(['session_changed', 'session_changed']);
    } finally {
      await listener.end();
    }
  });

  it('fails as the ORM’s own queries fail: a unique refusal, a deadlock (the api answers it 503), the driver’s code kept', async () => {
    const insert = new HotStatement(
      'test-price-insert',
      'insert into price_references (asset, centi, set_at) values (?, ?, ?)',
    );
    const asset = `T${randomBytes(4).toString('hex')}`;
    await insert.rows(orm.em, [asset, 100n, new Date()]);
    const refused = await insert.rows(orm.em, [asset, 200n, new Date()]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UniqueConstraintViolationException);
    expect((refused as { code?: string }).code).toMatch(kind.name === 'postgresql' ? /^23505$/ : /^SQLITE_CONSTRAINT/);
    const other = await new HotStatement('test-no-table', 'select * from no_such_table')
      .rows(orm.em, [])
      .catch((error: unknown) => error);
    expect(other).toBeInstanceOf(TableNotFoundException);
    if (kind.name !== 'postgresql') return;
    // Two transactions locking two rows in opposite orders: PostgreSQL breaks the deadlock by failing one of them.
    const second = `T${randomBytes(4).toString('hex')}`;
    await insert.rows(orm.em, [second, 100n, new Date()]);
    const lock = new RowLock('test-price-lock', 'PriceReference', 'price_references', ['asset']);
    let bothHold!: () => void;
    const holding = new Promise<void>((resolve) => {
      let held = 0;
      bothHold = () => (++held === 2 ? resolve() : undefined);
    });
    const crosswise = (a: string, b: string) =>
      orm.em
        .fork()
        .transactional(async (tx) => {
          await lock.lock(tx, a);
          bothHold();
          await holding;
          await lock.lock(tx, b);
        })
        .then(
          () => 'committed',
          (error: unknown) => error,
        );
    const outcomes = await Promise.all([crosswise(asset, second), crosswise(second, asset)]);
    expect(outcomes.filter((o) => o === 'committed')).toHaveLength(1);
    expect(outcomes.find((o) => o !== 'committed')).toBeInstanceOf(DeadlockException);
  });

  it('keeps two statements apart whose names are alike past PostgreSQL’s 63 bytes, on one connection', async () => {
    const alike = `test-long-name:${'x'.repeat(60)}`;
    await orm.em.fork().transactional(async (tx) => {
      // One transaction: one connection, where both are prepared.
      const first = await new HotStatement(`${alike}:first`, "select 'first' as which").rows(tx, []);
      const second = await new HotStatement(`${alike}:second`, "select 'second' as which").rows(tx, []);
      expect([first, second]).toEqual([[{ which: 'first' }], [{ which: 'second' }]]);
    });
  });

  it('keeps Idempotency-Key records the store reads back: proceed, in progress, replay, another payload', async () => {
    const store = new IdempotencyStore(orm, new DataEncryption(randomBytes(32).toString('base64')), 3600);
    const key = `key-${randomBytes(4).toString('hex')}`;
    const begun = await store.begin('user:usr_1', key, 'f1');
    expect(begun.kind).toBe('proceed');
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (e: HttpError) => [e.status, e.type],
      );
    expect(await refusal(store.begin('user:usr_1', key, 'f1'))).toEqual([409, expect.stringContaining('in-progress')]);
    await store.complete((begun as { recordId: number }).recordId, 202, { charge_id: 'chg_1' }, { location: '/x' });
    expect(await store.begin('user:usr_1', key, 'f1')).toEqual({
      kind: 'replay',
      status: 202,
      body: { charge_id: 'chg_1' },
      headers: { location: '/x' },
    });
    expect(await refusal(store.begin('user:usr_1', key, 'f2'))).toEqual([422, expect.stringContaining('reused')]);
    const record = await orm.em.fork().findOneOrFail(IdempotencyRecordEntity, { scope: 'user:usr_1', key });
    expect(record.state).toBe('completed');
    expect(record.expiresAt.getTime() - record.createdAt.getTime()).toBe(3600 * 1000);
    expect(record.responseBody).not.toContain('chg_1'); // sealed at rest
  });

  it('keeps a user’s account per process only until the database tells of a change (PostgreSQL’s triggers)', async () => {
    const cache = await SessionCache.start(migrated.url());
    const networks = unreachableEthereum();

    const holdings = new Holdings({
      orm,
      networks,
      providers: {} as ChainProviders, // no balance is read here
      solanaChains: {} as SolanaChains,
      cache,
    });
    const reads = jest.spyOn(HotStatement.prototype, 'rows');
    try {
      const userId = `usr_${randomBytes(6).toString('hex')}`;
      const address = `0x${randomBytes(20).toString('hex')}`;
      expect(await holdings.holderOf(userId, 'ETHEREUM')).toBeUndefined();
      expect(await holdings.holderOf(userId, 'ETHEREUM')).toBeUndefined();
      // SQLite keeps nothing (no notifications): every call reads. PostgreSQL reads once while nothing changes.
      expect(reads).toHaveBeenCalledTimes(kind.name === 'postgresql' ? 1 : 2);

      // The account is written by another connection (the worker, in the service): the api's next answer has it.
      const em = orm.em.fork();
      const account = em.create(SmartAccountEntity, {
        userId,
        networkId: 'ETHEREUM',
        address,
        ownerAddress: address,
        status: 'counterfactual',
      });
      await em.flush();
      const told = () => new Promise((resolve) => setTimeout(resolve, 200)); // the notification's trip
      await told();
      expect(await holdings.holderOf(userId, 'ETHEREUM')).toEqual({
        networkId: 'ETHEREUM',
        kind: 'smart-account',
        address,
        deployed: false,
      });
      account.status = 'deployed';
      await em.flush();
      await told();
      expect((await holdings.holderOf(userId, 'ETHEREUM'))?.deployed).toBe(true);

      // A connected bank account (the charge start's source) is told the same way.
      const bankReads = jest.fn(() =>
        new HotStatement('test-bank-accounts', 'select bank_name from bank_accounts where user_id = ?').rows(orm.em, [
          userId,
        ]),
      );
      expect(await cache.through(userId, 'bank-accounts', bankReads)).toEqual([]);
      expect(await cache.through(userId, 'bank-accounts', bankReads)).toEqual([]);
      expect(bankReads).toHaveBeenCalledTimes(kind.name === 'postgresql' ? 1 : 2);
      await new HotStatement(
        'test-connect-bank',
        'insert into bank_accounts (bank_account_id, user_id, bank_code, bank_name, account_no_sealed, account_no_hash, masked_account_no, currency, connected_at) ' +
          "values (?, ?, '004', 'KB', 'sealed', 'hash', '***', 'KRW', ?)",
      ).rows(orm.em, [`ba_${userId}`, userId, new Date()]);
      await told();
      expect(await cache.through(userId, 'bank-accounts', bankReads)).toEqual([{ bank_name: 'KB' }]);
    } finally {
      reads.mockRestore();
      await cache.stop();
    }
  });
});
