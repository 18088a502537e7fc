import { MikroORM } from '@mikro-orm/core';
import type { AbstractSqlConnection } from '@mikro-orm/knex';
import { createOrm, dialectOf, ormOptions } from '../../db/orm';
import { AddressBookEntryEntity, CexAccountEntity, SignedOperationEntity, TransferEntity } from '../../db/entities';
import { migrationNamesFor, migrationsFor } from '../../db/migrations';
import { testDatabases } from '../helpers/databases';

describe.each(testDatabases())('migrations on $name', (kind) => {
  it('lists every migration file of the dialect once, and a process refuses a schema behind them until migrated', async () => {
    const dialect = kind.name === 'sqlite' ? 'sqlite' : 'postgresql';
    // The api and the worker compare the folder's names (no migration loaded) with the applied ones.
    expect(migrationNamesFor(dialect)).toEqual((await migrationsFor(dialect)).map((m) => m.name).sort());
    const database = await kind.create();
    try {
      await expect(createOrm(database.url, { requireCurrentSchema: true })).rejects.toThrow(
        `database schema is behind the code (${migrationNamesFor(dialect).length} pending migrations)`,
      );
      const names = (await migrationsFor(dialect)).map((m) => m.name);
      const migrating = await createOrm(database.url, { migrator: true });
      await migrating.getMigrator().up({ to: names.at(-2) });
      await migrating.close();
      await expect(createOrm(database.url, { requireCurrentSchema: true })).rejects.toThrow('(1 pending migrations)');
      const current = await createOrm(database.url, { migrate: true });
      await current.close();
      const started = await createOrm(database.url, { requireCurrentSchema: true });
      expect(started.config.get('extensions')).toEqual([]); // the migrator is not loaded
      await started.close();
    } finally {
      await database.drop();
    }
  });

  it('create every table the entities need, and running them again changes nothing', async () => {
    const database = await kind.create();
    try {
      const orm = await createOrm(database.url, { migrate: true });
      expect(await orm.getMigrator().getPendingMigrations()).toEqual([]);
      expect(await orm.getMigrator().up()).toEqual([]);
      if (kind.name === 'postgresql') {
        // PostgreSQL's introspection is exact: the migrated schema must equal what the entities describe.
        expect((await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');
      }
      for (const table of [
        'registrations',
        'users',
        'uploads',
        'wallet_backups',
        'idempotency_records',
        'refresh_tokens',
        'kyc_basic_info',
        'smart_accounts',
        'signed_operations',
        'key_rotation_tasks',
        'key_rotation_networks',
        'transfers',
        'transfer_keys',
        'solana_wallets',
        ...(kind.name === 'postgresql' ? ['rate_limits'] : []),
      ]) {
        await expect(orm.em.getConnection().execute(`select count(*) from ${table}`)).resolves.toBeDefined();
      }
      await orm.close();
    } finally {
      await database.drop();
    }
  });

  it('moves every deploy job and DID key operation into signed_operations under the same id', async () => {
    const database = await kind.create();
    try {
      const names = (await migrationsFor(dialectOf(database.url))).map((m) => m.name);
      const before = names[names.indexOf('Migration20261123000000SignedOperations') - 1];
      const orm = await MikroORM.init(await ormOptions(database.url, { migrator: true }));
      try {
        await orm.getMigrator().up({ to: before });
        const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
        const time = (ms: number) => (kind.name === 'sqlite' ? ms : new Date(ms));
        const account = '0x1eED8fD94663Ab7a6b167b50677a4faf25D661d5';
        const owner = '0x00000000000000000000000000000000000000A1';
        const operation = (sig: string) =>
          JSON.stringify({ sender: account, nonce: '1', callData: '0xb61d27f6', signature: sig });
        const common = {
          user_id: 'usr_1',
          network_id: 'ETHEREUM',
          user_op_hash: `0x${'ab'.repeat(32)}`,
          expires_at: time(1795403215073),
          created_at: time(1795402615074),
          updated_at: time(1795402622911),
        };
        await knex('smart_accounts').insert({
          user_id: 'usr_1',
          network_id: 'ETHEREUM',
          address: account,
          owner_address: owner,
          status: 'deployed',
          created_at: time(1795402615074),
        });
        await knex('deploy_jobs').insert({
          ...common,
          job_id: 'dep_1',
          account_address: account,
          owner_address: owner,
          user_operation: operation('0x01'),
          status: 'completed',
          tx_hash: `0x${'cd'.repeat(32)}`,
        });
        await knex('deploy_jobs').insert({
          ...common,
          job_id: 'dep_2',
          account_address: account,
          owner_address: owner,
          user_operation: operation('0x'),
          status: 'prepared',
        });
        await knex('did_key_operations').insert({
          ...common,
          op_id: 'didop_1',
          did: `did:ethr:0x7a69:${account}`,
          key_type: 'EcdsaSecp256k1VerificationKey2019',
          public_key: `0x02${'11'.repeat(32)}`,
          user_operation: operation('0x02'),
          status: 'submitted',
          tx_hash: null,
        });
        await orm.getMigrator().up();

        const rows = await orm.em.fork().find(SignedOperationEntity, {}, { orderBy: { operationId: 'asc' } });
        expect(rows.map((r) => [r.operationId, r.kind, r.status, r.txHash ?? null])).toEqual([
          ['dep_1', 'deploy', 'completed', `0x${'cd'.repeat(32)}`],
          ['dep_2', 'deploy', 'prepared', null],
          ['didop_1', 'did_key', 'submitted', null],
        ]);
        const did = rows[2]!;
        expect(did).toMatchObject({
          accountAddress: account,
          ownerAddress: owner,
          userId: 'usr_1',
          networkId: 'ETHEREUM',
          userOpHash: `0x${'ab'.repeat(32)}`,
          details: {
            did: `did:ethr:0x7a69:${account}`,
            keyType: 'EcdsaSecp256k1VerificationKey2019',
            publicKey: `0x02${'11'.repeat(32)}`,
          },
          userOperation: { sender: account, nonce: '1', callData: '0xb61d27f6', signature: '0x02' },
        });
        expect([did.expiresAt.getTime(), did.createdAt.getTime(), did.updatedAt.getTime()]).toEqual([
          1795403215073, 1795402615074, 1795402622911,
        ]);
        expect(rows[0]!.details).toEqual({});
        const tables = {
          deployJobs: await knex.schema.hasTable('deploy_jobs'),
          didKeyOperations: await knex.schema.hasTable('did_key_operations'),
          signedOperations: await knex.schema.hasTable('signed_operations'),
        };
        expect(tables).toEqual({ deployJobs: false, didKeyOperations: false, signedOperations: true });
      } finally {
        await orm.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('carries the recipients of earlier confirmed transfers into the address book, trusted, and keeps every transfer', async () => {
    const database = await kind.create();
    try {
      const names = (await migrationsFor(dialectOf(database.url))).map((m) => m.name);
      const before = names[names.indexOf('Migration20261123060000TransferPolicy') - 1];
      const orm = await MikroORM.init(await ormOptions(database.url, { migrator: true }));
      try {
        await orm.getMigrator().up({ to: before });
        const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
        const time = (ms: number) => (kind.name === 'sqlite' ? ms : new Date(ms));
        const transfer = (id: string, to: string, status: string, at: number) => ({
          transfer_id: id,
          user_id: 'usr_1',
          network_id: 'ETHEREUM',
          token: 'USDT',
          decimals: 6,
          from_address: '0x1eED8fD94663Ab7a6b167b50677a4faf25D661d5',
          to_address: to,
          amount: '1000000',
          status,
          created_at: time(at),
          updated_at: time(at),
        });
        const a = '0x000000000000000000000000000000000000dEaD';
        const b = '0x00000000000000000000000000000000000000b2';
        await knex('transfers').insert([
          transfer('tr_1', a, 'confirmed', 1795402615000),
          transfer('tr_2', a, 'confirmed', 1795402616000),
          transfer('tr_3', b, 'failed', 1795402617000),
          transfer('tr_4', b, 'processing', 1795402618000),
        ]);
        await orm.getMigrator().up();

        const entries = await orm.em.fork().find(AddressBookEntryEntity, {});
        expect(entries.map((e) => [e.userId, e.networkId, e.address, e.approvedBy, e.usableFrom.getTime()])).toEqual([
          ['usr_1', 'ETHEREUM', a, 'history', 1795402615000],
        ]);
        const transfers = await orm.em.fork().find(TransferEntity, {}, { orderBy: { transferId: 'asc' } });
        expect(transfers.map((t) => [t.transferId, t.status, t.blockNumber ?? null])).toEqual([
          ['tr_1', 'confirmed', null],
          ['tr_2', 'confirmed', null],
          ['tr_3', 'failed', null],
          ['tr_4', 'processing', null],
        ]);
      } finally {
        await orm.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('drops the exchange keys kept until now, leaving each account its balances', async () => {
    const database = await kind.create();
    try {
      const names = (await migrationsFor(dialectOf(database.url))).map((m) => m.name);
      const before = names[names.indexOf('Migration20261201090000CexKeysDropped') - 1];
      const orm = await MikroORM.init(await ormOptions(database.url, { migrator: true }));
      try {
        await orm.getMigrator().up({ to: before });
        const knex = (orm.em.getConnection() as AbstractSqlConnection).getKnex();
        await knex('cex_accounts').insert({
          cex_account_id: 'cex_1',
          user_id: 'usr_1',
          provider: 'upbit',
          label: 'upbit',
          external_account_id: 'key:abc',
          auth_method: 'api_key',
          tokens_sealed: 'sealed-key-pair',
          can_read: true,
          can_withdraw: false,
          balances: JSON.stringify([{ currency: 'BTC', balance: '0.5' }]),
          last_sync_at: kind.name === 'sqlite' ? 1795402615000 : new Date(1795402615000),
          registered_at: kind.name === 'sqlite' ? 1795402615000 : new Date(1795402615000),
        });
        await orm.getMigrator().up();
        const rows = await knex('cex_accounts').select('*');
        expect(rows.map((r: Record<string, unknown>) => [r.cex_account_id, 'tokens_sealed' in r])).toEqual([
          ['cex_1', false],
        ]);
        expect(JSON.stringify(rows)).not.toContain('sealed-key-pair');
        expect((await orm.em.fork().findOneOrFail(CexAccountEntity, { cexAccountId: 'cex_1' })).balances).toEqual([
          { currency: 'BTC', balance: '0.5' },
        ]);
      } finally {
        await orm.close();
      }
    } finally {
      await database.drop();
    }
  });
});
