import { createOrm } from '../../db/orm';
import { testDatabases } from '../helpers/databases';

describe.each(testDatabases())('migrations on $name', (kind) => {
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
      for (const table of ['registrations', 'users', 'uploads', 'wallet_backups', 'idempotency_records', 'refresh_tokens', 'kyc_basic_info', 'smart_accounts', 'deploy_jobs', 'key_rotation_tasks', 'key_rotation_networks', 'did_key_operations', 'transfers', 'transfer_keys', 'solana_wallets', ...(kind.name === 'postgresql' ? ['rate_limits'] : [])]) {
        await expect(orm.em.getConnection().execute(`select count(*) from ${table}`)).resolves.toBeDefined();
      }
      await orm.close();
    } finally {
      await database.drop();
    }
  });
});
