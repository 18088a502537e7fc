import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000Initial as PgInitial } from './postgresql/Migration20261122000000Initial';
import { Migration20261122000000Initial as SqliteInitial } from './sqlite/Migration20261122000000Initial';
import { Migration20261122060000SmartAccounts as PgSmartAccounts } from './postgresql/Migration20261122060000SmartAccounts';
import { Migration20261122060000SmartAccounts as SqliteSmartAccounts } from './sqlite/Migration20261122060000SmartAccounts';

export type Dialect = 'sqlite' | 'postgresql';

/** Migrations are listed explicitly so they run the same under tsx, jest and compiled JavaScript. */
const MIGRATIONS: Record<Dialect, MigrationObject[]> = {
  postgresql: [
    { name: 'Migration20261122000000Initial', class: PgInitial },
    { name: 'Migration20261122060000SmartAccounts', class: PgSmartAccounts },
  ],
  sqlite: [
    { name: 'Migration20261122000000Initial', class: SqliteInitial },
    { name: 'Migration20261122060000SmartAccounts', class: SqliteSmartAccounts },
  ],
};

export function migrationsFor(dialect: Dialect): MigrationObject[] {
  return MIGRATIONS[dialect];
}
