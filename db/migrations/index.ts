import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationObject } from '@mikro-orm/core';

export type Dialect = 'sqlite' | 'postgresql';

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
