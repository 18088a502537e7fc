import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { DeadlockException, DriverException, LockWaitTimeoutException } from '@mikro-orm/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BetterSqliteExceptionConverter } from '@mikro-orm/better-sqlite';
import { errorHandler } from '../../api/http/error-handler';
import { UserOperationRejected } from '../../integrations/evm/bundler-client';
import { ProviderUnavailable } from '../../integrations/provider-http';

/** The driver MikroORM runs SQLite with (the project has no type declarations for it). */
interface SqliteDatabase {
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): { get(): unknown; run(): unknown };
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (path: string) => SqliteDatabase;

/** Errors become problems in one place: a database that went away is a 503 the client may retry, a bug a 500. */
describe('error handler', () => {
  const answer = async (error: Error): Promise<number> => {
    const app = new Koa();
    app.use(errorHandler());
    app.use(() => {
      throw error;
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      return (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/x`)).status;
    } finally {
      server.close();
    }
  };

  it('answers 503 for a connection the database closed, including a transaction knex found already complete', async () => {
    expect(
      await answer(
        new DriverException(new Error('Transaction query already complete, run with DEBUG=knex:tx for more info')),
      ),
    ).toBe(503);
    expect(
      await answer(
        Object.assign(new Error('insert failed'), { cause: new Error('Connection terminated unexpectedly') }),
      ),
    ).toBe(503);
    expect(
      await answer(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })),
    ).toBe(503);
    expect(await answer(new TypeError('x is undefined'))).toBe(500);
  });

  it('answers 503 for a transaction the database rolled back for a lock (SQLite busy, a PostgreSQL deadlock), which a retry gets past', async () => {
    // SQLite's own: a read transaction that would write after another connection committed (WAL) is refused at once,
    // whatever the busy timeout (SQLITE_BUSY_SNAPSHOT), as MikroORM's converter hands it on.
    const dir = mkdtempSync(join(tmpdir(), 'busy-'));
    const [reader, writer] = [new Database(join(dir, 'db')), new Database(join(dir, 'db'))];
    reader.pragma('journal_mode = WAL');
    reader.exec('create table t (x)');
    reader.exec('begin');
    reader.prepare('select count(*) from t').get();
    writer.prepare('insert into t values (1)').run();
    let busy: unknown;
    try {
      reader.prepare('insert into t values (2)').run();
    } catch (error) {
      busy = error;
    } finally {
      reader.close();
      writer.close();
      rmSync(dir, { recursive: true, force: true });
    }
    expect((busy as { code?: string }).code).toBe('SQLITE_BUSY_SNAPSHOT');
    const converted = new BetterSqliteExceptionConverter().convertException(busy as Error);
    expect(converted).toBeInstanceOf(LockWaitTimeoutException);
    expect(await answer(converted)).toBe(503);
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(await answer(new DeadlockException(deadlock))).toBe(503);
    expect(await answer(new DriverException(new Error('null value in column "amount"')))).toBe(500);
  });

  it("answers 422 for an operation the bundler's simulation refuses, and 503 for a bundler that is down", async () => {
    expect(
      await answer(
        new UserOperationRejected('UserOperation reverted during simulation with reason: registry: bad', -32521),
      ),
    ).toBe(422);
    expect(await answer(new ProviderUnavailable('bundler http://127.0.0.1:1/rpc did not answer'))).toBe(503);
  });
});
