import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000000Initial as PgInitial } from './postgresql/Migration20261122000000Initial';
import { Migration20261122000000Initial as SqliteInitial } from './sqlite/Migration20261122000000Initial';

export type Dialect = 'sqlite' | 'postgresql';

/** Migrations are listed explicitly so they run the same under tsx, jest and compiled JavaScript. */
const MIGRATIONS: Record<Dialect, MigrationObject[]> = {
  postgresql: [{ name: 'Migration20261122000000Initial', class: PgInitial }],
  sqlite: [{ name: 'Migration20261122000000Initial', class: SqliteInitial }],
};

export function migrationsFor(dialect: Dialect): MigrationObject[] {
  return MIGRATIONS[dialect];
}
