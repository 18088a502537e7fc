/** `npm run db:migrate`: brings DATABASE_URL's schema up to date (production runs it once per release). */
import { loadConfig, ConfigError } from '../platform/config';
import { createOrm } from './orm';

async function main(): Promise<void> {
  const { DATABASE_URL } = loadConfig(process.env, ['DATABASE_URL']);
  const orm = await createOrm(DATABASE_URL, { migrator: true });
  const applied = await orm.getMigrator().up();
  console.log(applied.length ? `applied ${applied.map((m) => m.name).join(', ')}` : 'schema is up to date');
  await orm.close();
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
