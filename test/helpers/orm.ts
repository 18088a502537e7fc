import { createOrm, type Orm } from '../../db/orm';
import type { TestDatabase, TestDatabaseKind } from './databases';

/**
 * A migrated ORM on a fresh database of `kind` for the surrounding `describe`: made before its tests, closed and its
 * database dropped after them. Answers getters of the ORM and the database's URL (both there once that `beforeAll` ran).
 */
export function useMigratedOrm(kind: TestDatabaseKind): { orm: () => Orm; url: () => string } {
  let database: TestDatabase | undefined;
  let orm: Orm | undefined;
  beforeAll(async () => {
    database = await kind.create();
    orm = await createOrm(database.url, { migrate: true });
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });
  return { orm: () => orm!, url: () => database!.url };
}
