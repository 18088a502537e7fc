import { Client } from 'pg';
import type { Logger } from '../../platform/logger';
import { dialectOf } from '../../db/orm';

/** The PostgreSQL channel the users and devices tables' triggers notify with a user's id (migration 20261126070000). */
export const SESSION_CHANNEL = 'session_changed';
/** Sessions kept per process: about 1 KiB each, so at most a few MiB; the oldest give way first. */
const MAX_ENTRIES = 4_096;
/** How long after losing its LISTEN connection the cache tries again (it serves nothing from memory meanwhile). */
const RECONNECT_MS = 1_000;

/**
 * The per-request session check's rows (the user and the token's device, see activeSession), and a few other rows of
 * the user read on hot paths (`through`: their accounts), kept per api process while nothing about that user changed.
 * Changes are told by the database itself: triggers on `users`, `devices` (and the tables of the other rows)
 * call pg_notify(session_changed, user id) in the writing transaction, whichever process writes (an api, the
 * worker, an operator's SQL), and each api process LISTENs and forgets that user's rows. So a revocation or suspension
 * takes effect in every process as soon as it commits and the notification arrives (a request that finds a cached row
 * first lets pending I/O run, so a notification already received is applied before the row is used).
 *
 * Nothing is served from memory unless the LISTEN connection is up: while it is down (a database restart) every
 * request reads the database, and the cache starts empty once it is back. A row read while a change of its user was
 * being told is not kept (a count of changes told). SQLite (the embedded mode) has no notifications and its worker is
 * another process: it reads every time, in process and without a network round trip.
 */
export class SessionCache {
  /** Told of every lookup: served from memory, read from the database, or read because the cache is not live. */
  onLookup: (result: 'hit' | 'miss' | 'off') => void = () => undefined;
  private readonly rows = new Map<string, Record<string, unknown>>();
  private readonly keysByUser = new Map<string, Set<string>>();
  /** Bumped by every change told (and when going dark): a read that overlapped one is not kept. */
  private changes = 0;
  private listening = false;
  private client: Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;

  private constructor(
    private readonly databaseUrl: string | null,
    private readonly logger?: Logger,
  ) {}

  /** A cache listening on the database's notifications (PostgreSQL), or one that keeps nothing (SQLite). */
  static async start(databaseUrl: string, logger?: Logger): Promise<SessionCache> {
    const cache = new SessionCache(dialectOf(databaseUrl) === 'postgresql' ? databaseUrl : null, logger);
    await cache.connect();
    return cache;
  }

  /** Whether rows are served from memory now (the LISTEN connection is up). */
  get live(): boolean {
    return this.listening;
  }

  /** The cached rows of a user's device session, or undefined (not cached, or the cache is not live); counted. */
  get(userId: string, deviceId: string): Record<string, unknown> | undefined {
    const row = this.peek(userId, deviceId);
    this.onLookup(row ? 'hit' : this.listening ? 'miss' : 'off');
    return row;
  }

  /** As get, not counted (a second look at the same lookup). */
  peek(userId: string, deviceId: string): Record<string, unknown> | undefined {
    return this.listening ? this.rows.get(keyOf(userId, deviceId)) : undefined;
  }

  /** Taken before a read: `set` keeps the row only if no change was told since (of this user or any other). */
  generation(): number {
    return this.changes;
  }

  set(userId: string, deviceId: string, row: Record<string, unknown>, generation: number): void {
    if (!this.listening || this.changes !== generation) return;
    const key = keyOf(userId, deviceId);
    if (!this.rows.has(key) && this.rows.size >= MAX_ENTRIES) this.evictOldest();
    this.rows.set(key, row);
    let keys = this.keysByUser.get(userId);
    if (!keys) this.keysByUser.set(userId, (keys = new Set()));
    keys.add(key);
  }

  /**
   * Another per-user row kept the same way (the user's account on a network, say), read through: from memory while
   * nothing about the user was told changed, else by `read` (its answer, undefined included, kept for next time). Not
   * counted in the session lookups. `key` must not look like a device id (prefix it: `holder:<network>`).
   */
  async through<T>(userId: string, key: string, read: () => Promise<T>): Promise<T> {
    if (this.peek(userId, key)) {
      await new Promise((resolve) => setImmediate(resolve)); // a notification already received is applied first
      const kept = this.peek(userId, key);
      if (kept) return kept.value as T;
    }
    const generation = this.generation();
    const value = await read();
    this.set(userId, key, { value }, generation);
    return value;
  }

  /** Forgets every cached session of the user (told by a notification). */
  forget(userId: string): void {
    this.changes += 1;
    for (const key of this.keysByUser.get(userId) ?? []) this.rows.delete(key);
    this.keysByUser.delete(userId);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.goDark();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private async connect(): Promise<void> {
    if (!this.databaseUrl || this.stopped) return;
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.channel === SESSION_CHANNEL && message.payload) this.forget(message.payload);
    });
    // A dropped connection (a database restart) must not crash the process: serve nothing from memory, try again.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${SESSION_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    this.client = client;
    // Rows of the time before LISTEN took effect may be stale: start empty.
    this.clear();
    this.listening = true;
  }

  private lost(client: Client, error?: Error): void {
    if (this.client && this.client !== client) return;
    if (this.listening)
      this.logger?.warn({ err: error }, 'session cache: LISTEN connection lost; reading every request');
    this.goDark();
    this.client = null;
    client.end().catch(() => undefined);
    if (!this.stopped && !this.retry)
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.connect();
      }, RECONNECT_MS);
  }

  private goDark(): void {
    this.listening = false;
    this.clear();
  }

  private clear(): void {
    this.changes += 1;
    this.rows.clear();
    this.keysByUser.clear();
  }

  private evictOldest(): void {
    const oldest = this.rows.keys().next().value as string | undefined;
    if (oldest === undefined) return;
    this.rows.delete(oldest);
    const userId = oldest.slice(0, oldest.indexOf('\u0000'));
    this.keysByUser.get(userId)?.delete(oldest);
  }
}

const keyOf = (userId: string, deviceId: string) => `${userId}\u0000${deviceId}`;
