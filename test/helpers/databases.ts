import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}
export interface TestDatabaseKind {
  name: string;
  create(): Promise<TestDatabase>;
}

const sqlite: TestDatabaseKind = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'wallet-test-'));
    return { url: `sqlite:${join(dir, 'wallet.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

/** A fresh PostgreSQL database per stack, created on the server named by TEST_DATABASE_URL. */
export const postgres = (adminUrl: string): TestDatabaseKind => ({
  name: 'postgresql',
  async create() {
    const name = `wallet_test_${randomBytes(6).toString('hex')}`;
    const admin = new PgClient({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      drop: async () => {
        const client = new PgClient({ connectionString: adminUrl });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  },
});

/** SQLite always; PostgreSQL too when TEST_DATABASE_URL is set (CI sets it). */
export function testDatabases(): TestDatabaseKind[] {
  const pg = process.env.TEST_DATABASE_URL;
  return pg ? [sqlite, postgres(pg)] : [sqlite];
}

/**
 * `it` on the last database only (PostgreSQL where there is one), for the slow fault drills whose check is the
 * workflow's (a worker killed, a provider failing or hanging), the same on both databases: the other adds minutes to
 * CI and nothing to what is proved (docs/testing.md).
 */
export const onLastDatabase =
  (database: { name: string }) =>
  (...args: Parameters<typeof it>): void => {
    if (database.name === testDatabases().at(-1)!.name) it(...args);
  };
