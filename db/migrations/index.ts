import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';
import { Statement } from '../statement';
import type { Rows } from '../resident';

export type Dialect = 'sqlite' | 'postgresql';

export function dialectOf(databaseUrl: string): Dialect {
  if (databaseUrl.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgresql';
  throw new Error(`DATABASE_URL must start with sqlite: or postgresql:// (got ${databaseUrl.split(':')[0]}:)`);
}

/**
 * A dialect's migrations, loaded when asked for (they and the migrator are about 6.5 MiB a process at rest that only
 * migrating needs: issue 52). Each is listed in db/migrations/<dialect>/index.ts.
 */
export async function migrationsFor(dialect: Dialect): Promise<MigrationObject[]> {
  return dialect === 'sqlite' ? (await import('./sqlite')).MIGRATIONS : (await import('./postgresql')).MIGRATIONS;
}

/**
 * The names of a dialect's migrations, from its folder's file names, without loading them: what the api and the worker
 * compare with the applied ones at start. The migrations test checks they are the list's names.
 */
export function migrationNamesFor(dialect: Dialect): string[] {
  const names = readdirSync(join(__dirname, dialect))
    .map((file) => /^(Migration\d{14}\w*)\.(ts|js)$/.exec(file)?.[1])
    .filter((name): name is string => Boolean(name));
  return [...new Set(names)].sort();
}

const APPLIED_MIGRATIONS = new Statement<{ name: string }>('applied-migrations', 'select name from mikro_orm_migrations');

/** The migrations of the code's dialect that MikroORM's table (mikro_orm_migrations) does not list as applied. */
export async function pendingMigrations(db: Rows, dialect: Dialect): Promise<string[]> {
  const applied = await db.rows(APPLIED_MIGRATIONS, []).catch((error: unknown) => {
    // No table yet: nothing applied. Anything else (the database unreachable) is said as it is.
    if (/mikro_orm_migrations/.test(String(error)) && /does not exist|no such table/.test(String(error))) return [];
    throw error;
  });
  const names = new Set(applied.map((row) => row.name.replace(/\.(ts|js)$/, '')));
  return migrationNamesFor(dialect).filter((name) => !names.has(name));
}

/** Refuses to start a process against a schema that is behind the code. */
export async function assertCurrentSchema(db: Rows, dialect: Dialect): Promise<void> {
  const pending = await pendingMigrations(db, dialect);
  if (pending.length)
    throw new Error(
      `database schema is behind the code (${pending.length} pending migrations): run \`npm run db:migrate\``,
    );
}
