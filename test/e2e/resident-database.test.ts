import { postgres, type TestDatabase } from '../helpers/databases';
import { TcpProxy } from '../helpers/tcp-proxy';
import { pgResidentDatabase, type ResidentDatabase } from '../../db/resident';
import { Statement } from '../../db/statement';

const SLEEP = new Statement<{ slept: string }>('test-sleep', 'select pg_sleep(?)::text as slept');
const ONE = new Statement<{ one: number }>('test-one', 'select 1 as one');

/**
 * The worker's pool at rest (db/resident.ts) when the database goes away: a connection cut in the middle of a
 * statement (a database restart, a reset socket) fails that statement, which its activity retries, and the next
 * statement opens a new connection. The worker process itself stays up: node-postgres raises a failure of a
 * connection in use as an 'error' event, which without a listener would be an uncaught exception.
 */
const pg = process.env.TEST_DATABASE_URL;
(pg ? describe : describe.skip)('the resident database when its connections are cut (PostgreSQL)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: ResidentDatabase;
  const failures: Error[] = [];
  beforeAll(async () => {
    database = await postgres(pg!).create();
    const url = new URL(database.url);
    proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${await proxy.start()}`;
    db = pgResidentDatabase(url.toString(), { onError: (error) => failures.push(error) });
  });
  afterAll(async () => {
    await db?.close();
    await proxy?.stop();
    await database?.drop();
  });

  it('fails the statement running on a cut connection, stays up, and runs the next one on a new connection', async () => {
    expect(await db.rows(ONE, [])).toEqual([{ one: 1 }]);
    const running = db.rows(SLEEP, [5]);
    await new Promise((r) => setTimeout(r, 300));
    proxy.restart(0);
    await expect(running).rejects.toThrow();
    expect(await db.rows(ONE, [])).toEqual([{ one: 1 }]);
    expect(failures.length).toBeGreaterThan(0);
  });

  it('rolls back nothing it cannot reach and gives the next transaction a working connection', async () => {
    const running = db.transaction(async (tx) => (await tx.rows(SLEEP, [5]))[0]);
    await new Promise((r) => setTimeout(r, 300));
    proxy.restart(0);
    await expect(running).rejects.toThrow();
    expect(await db.transaction(async (tx) => (await tx.rows(ONE, []))[0])).toEqual({ one: 1 });
  });

  it('gets over a connection cut while idle in the pool', async () => {
    expect(await db.rows(ONE, [])).toEqual([{ one: 1 }]);
    proxy.restart(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(await db.rows(ONE, [])).toEqual([{ one: 1 }]);
  });
});
