import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { DriverException, LockWaitTimeoutException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/knex';
import { createOrm, type Orm } from '../../db/orm';
import { driverException } from '../../db/sqlite-driver';

/**
 * The embedded file is shared by two processes, the api and the worker. A transaction that reads and then writes must
 * not be refused because the other process committed in between (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits
 * out): the npm-start walk-through once answered a transfer-key change 503 for it.
 */
describe('SQLite transactions beside another process', () => {
  let dir: string;
  let orm: Orm;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-tx-'));
    orm = await createOrm(`sqlite:${join(dir, 'wallet.db')}`);
    await orm.em.getConnection().execute('create table t (who text)');
  });
  afterAll(async () => {
    await orm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Another process on the embedded file, running `code` with `db` open on it (better-sqlite3, as the api and the worker). */
  const otherProcess = (code: string) => {
    const child = spawn(
      process.execPath,
      ['-e', `const db = new (require('better-sqlite3'))(${JSON.stringify(join(dir, 'wallet.db'))});\n${code}`],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, output })),
    );
    const saying = (word: string) =>
      new Promise<void>((resolve) => {
        const look = () => (output.includes(word) ? resolve() : setTimeout(look, 10));
        look();
      });
    return { exited, saying };
  };
  /** The other process: one write (its own transaction), waiting for the lock as the api and the worker do. */
  const otherProcessWrites = () =>
    otherProcess(`db.pragma('busy_timeout = 5000');
      console.log('writing');
      db.prepare("insert into t values ('other')").run();
      console.log('written');`);

  it('lets a transaction that read write after the other process tried to write, which waits for it to commit', async () => {
    const other = { current: undefined as ReturnType<typeof otherProcessWrites> | undefined };
    await orm.em.fork().transactional(async (tx) => {
      const em = tx as unknown as EntityManager;
      const [{ n }] = await em.execute<Array<{ n: number }>>('select count(*) as n from t');
      expect(n).toBe(0);
      other.current = otherProcessWrites();
      await other.current.saying('writing');
      // Long enough for the other process's write to have committed, had this transaction not held the lock.
      await Promise.race([other.current.saying('written'), new Promise((resolve) => setTimeout(resolve, 500))]);
      await em.execute("insert into t values ('ours')", [], 'run');
    });
    const { code, output } = await other.current!.exited;
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'writing\nwritten' });
    // Ours committed first; the other process's write waited for it.
    expect(await orm.em.getConnection().execute('select who from t order by rowid')).toEqual([
      { who: 'ours' },
      { who: 'other' },
    ]);
  });

  it('refuses a transaction the other process keeps waiting past the busy timeout as a busy database, before it runs, and the next one goes through', async () => {
    const holder = otherProcess(`db.exec('begin immediate');
      console.log('holding');
      setTimeout(() => { db.exec('commit'); console.log('released'); }, 1500);`);
    await holder.saying('holding');
    const connection = orm.em.getConnection();
    await connection.execute('pragma busy_timeout = 200');
    let ran = false;
    try {
      await expect(
        orm.em.fork().transactional(async () => {
          ran = true;
        }),
      ).rejects.toBeInstanceOf(LockWaitTimeoutException);
      expect(ran).toBe(false);
      expect(await holder.exited).toEqual({ code: 0, output: 'holding\nreleased\n' });
      // The connection is whole: the next transaction writes.
      await orm.em.fork().transactional(async (tx) => {
        await (tx as unknown as EntityManager).execute("insert into t values ('after')", [], 'run');
      });
      expect(await connection.execute("select count(*) as n from t where who = 'after'")).toEqual([{ n: 1 }]);
    } finally {
      await connection.execute('pragma busy_timeout = 5000');
    }
  });

  it("converts the driver's errors made in another realm, which are not instanceof Error here", () => {
    // better-sqlite3's addon makes its errors with the SqliteError of the first realm that loaded it: in CI a second
    // test file of the same jest worker got them unconverted (a raw SqliteError where LockWaitTimeoutException was due).
    const foreign = runInNewContext(
      "Object.assign(new Error('BEGIN IMMEDIATE; - database is locked'), { code: 'SQLITE_BUSY' })",
    ) as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(driverException(foreign)).toBeInstanceOf(LockWaitTimeoutException);
    expect(driverException(runInNewContext("new Error('disk I/O error')"))).toBeInstanceOf(DriverException);
    expect(driverException('not an error')).toBe('not an error');
  });
});
