import { randomBytes } from 'node:crypto';
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
 * Defaults of SESSION_CACHE_HEARTBEAT_SECONDS and SESSION_CACHE_MAX_AGE_SECONDS. A heartbeat every 5 s, answered
 * within 5 s, finds a silently dropped connection within 10 s for one tiny statement per process every 5 s (and its
 * traffic keeps NAT and load-balancer idle timers, minutes long, from expiring at all). 30 s bounds what no heartbeat
 * sees (a write with the triggers disabled) while still sparing the database most session reads of an active user.
 */
export const DEFAULT_HEARTBEAT_SECONDS = 5;
export const DEFAULT_MAX_AGE_SECONDS = 30;
/** TCP keepalive below the heartbeat: the kernel probes the peer after this long idle and ends a dead connection. */
const KEEPALIVE_DELAY_MS = 10_000;

export interface SessionCacheOptions {
  /** Where to LISTEN (DATABASE_LISTEN_URL: a direct address when DATABASE_URL is a transaction-mode pooler). */
  listenUrl?: string;
  heartbeatSeconds?: number;
  maxAgeSeconds?: number;
  logger?: Logger;
}

/**
 * The per-request session check's rows (the user and the token's device, see activeSession), and a few other rows of
 * the user read on hot paths (`through`: their accounts), kept per api process while nothing about that user changed.
 * Changes are told by the database itself: triggers on `users`, `devices` (and the tables of the other rows)
 * call pg_notify(session_changed, user id) in the writing transaction, whichever process writes (an api, the
 * worker, an operator's SQL), and each api process LISTENs and forgets that user's rows. So a revocation or suspension
 * takes effect in every process as soon as it commits and the notification arrives (a request that finds a cached row
 * first lets pending I/O run, so a notification already received is applied before the row is used).
 *
 * Nothing is served from memory unless the LISTEN connection is known to be up: while it is down (a database restart)
 * every request reads the database, and the cache starts empty once it is back. A connection can also go silent
 * (a NAT or load balancer forgets an idle flow; a transaction-mode pooler loses notifications), so it must prove
 * itself: every heartbeat period a notification sent on it has to come back on it within the same period, else
 * it counts as lost; TCP keepalive probes it below that. Whatever neither sees (a write with the triggers disabled) is
 * bounded by age: no row older than the maximum age is served. A row read while a change of its user was being told
 * is not kept (a count of changes told). SQLite (the embedded mode) has no notifications and its worker is another
 * process: it reads every time, in process and without a network round trip.
 */
export class SessionCache {
  /** Told of every lookup: served from memory, read from the database, or read because the cache is not live. */
  onLookup: (result: 'hit' | 'miss' | 'off') => void = () => undefined;
  private readonly rows = new Map<string, { row: Record<string, unknown>; storedAt: number }>();
  private readonly keysByUser = new Map<string, Set<string>>();
  /** Bumped by every change told (and when going dark): a read that overlapped one is not kept. */
  private changes = 0;
  private listening = false;
  /** The connection being made or in use; events of any earlier one are ignored. */
  private client: Client | null = null;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private nextBeat: NodeJS.Timeout | null = null;
  /** A channel of this process's own, so its heartbeats reach no other process. */
  private readonly heartbeatChannel = `session_heartbeat_${randomBytes(8).toString('hex')}`;
  private beats = 0;
  private echo: { payload: string; arrived: () => void } | null = null;
  /** Fences sent on the LISTEN connection (whenTold), by payload: each resolves when it comes back. */
  private readonly fences = new Map<string, () => void>();
  private readonly heartbeatMs: number;
  private readonly maxAgeMs: number;
  private readonly logger?: Logger;

  private constructor(
    private readonly listenUrl: string | null,
    options: SessionCacheOptions,
  ) {
    this.heartbeatMs = (options.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS) * 1000;
    this.maxAgeMs = (options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS) * 1000;
    this.logger = options.logger;
  }

  /** A cache listening on the database's notifications (PostgreSQL), or one that keeps nothing (SQLite). */
  static async start(databaseUrl: string, options: SessionCacheOptions = {}): Promise<SessionCache> {
    const postgres = dialectOf(databaseUrl) === 'postgresql';
    const cache = new SessionCache(postgres ? (options.listenUrl ?? databaseUrl) : null, options);
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
    if (!this.listening) return undefined;
    const key = keyOf(userId, deviceId);
    const kept = this.rows.get(key);
    if (kept && performance.now() - kept.storedAt > this.maxAgeMs) {
      this.drop(key);
      return undefined;
    }
    return kept?.row;
  }

  /** Taken before a read: `set` keeps the row only if no change was told since (of this user or any other). */
  generation(): number {
    return this.changes;
  }

  set(userId: string, deviceId: string, row: Record<string, unknown>, generation: number): void {
    if (!this.listening || this.changes !== generation) return;
    const key = keyOf(userId, deviceId);
    if (!this.rows.has(key) && this.rows.size >= MAX_ENTRIES) this.evictOldest();
    this.rows.set(key, { row, storedAt: performance.now() });
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

  /**
   * Taken before a change of the user commits; the function it answers resolves once the change is told on this
   * process's LISTEN connection (or after `ms`; at once when nothing is cached). An api process that signs a device
   * out answers only then: every process listens on the same server, which sent the change to all of them at commit,
   * so the others hear it within their connection's delivery (milliseconds; longer on a loaded machine, where a
   * request racing the revocation to another process may still be served from its cache).
   */
  whenTold(_userId: string, ms = 2_000): () => Promise<void> {
    if (!this.listening) return async () => undefined;
    // A fence sent after the change committed: the server delivers notifications to a listener in commit order, so once
    // the fence is back, every change committed before it (this one too) has been heard here. Waiting for a
    // notification of the user would not do: an earlier change of theirs could be the one heard (CI found a passkey
    // enrolment answered before its own change was told).
    return () => this.fence(ms);
  }

  /** Sends a notification on the LISTEN connection and waits (at most `ms`) until it comes back on it. */
  private async fence(ms: number): Promise<void> {
    const client = this.client;
    if (!client || !this.listening) return;
    const payload = `fence-${randomBytes(8).toString('hex')}`;
    const back = new Promise<void>((resolve) => this.fences.set(payload, resolve));
    try {
      await within(
        ms,
        Promise.all([client.query('select pg_notify($1, $2)', [this.heartbeatChannel, payload]), back]).then(
          () => undefined,
        ),
        'session cache: fence',
      );
    } catch {
      // Not back in time (a lost connection goes dark and reads every request): answered anyway, as before.
    } finally {
      this.fences.delete(payload);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.nextBeat) clearTimeout(this.nextBeat);
    this.goDark();
    const client = this.client;
    this.client = null;
    // A silently dead connection would never answer a goodbye.
    if (client) await within(this.heartbeatMs, client.end(), 'session cache: end').catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (!this.listenUrl || this.stopped) return;
    const client = new Client({
      connectionString: this.listenUrl,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      connectionTimeoutMillis: this.heartbeatMs,
    });
    this.client = client;
    client.on('notification', ({ channel, payload }) => {
      if (channel === SESSION_CHANNEL && payload) this.forget(payload);
      else if (channel === this.heartbeatChannel && payload) {
        if (this.echo && payload === this.echo.payload) this.echo.arrived();
        this.fences.get(payload)?.();
      }
    });
    // A dropped connection (a database restart) must not crash the process: serve nothing from memory, try again.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await within(
        this.heartbeatMs,
        client.connect().then(() => client.query(`LISTEN ${SESSION_CHANNEL}; LISTEN ${this.heartbeatChannel}`)),
        'session cache: LISTEN',
      );
      await this.heartbeat(client);
    } catch (error) {
      this.lost(client, error as Error);
      return;
    }
    if (client !== this.client) return; // lost or stopped meanwhile
    // Rows of the time before LISTEN took effect may be stale: start empty.
    this.clear();
    this.listening = true;
    this.scheduleHeartbeat(client);
  }

  private scheduleHeartbeat(client: Client): void {
    this.nextBeat = setTimeout(() => {
      this.nextBeat = null;
      this.heartbeat(client).then(
        () => {
          if (client === this.client) this.scheduleHeartbeat(client);
        },
        (error: Error) => this.lost(client, error),
      );
    }, this.heartbeatMs);
  }

  /**
   * A notification sent on the LISTEN connection must come back on it in time: bytes still flow both ways and the
   * server still delivers notifications to it. The query's own answer alone would not prove the latter.
   */
  private heartbeat(client: Client): Promise<void> {
    const payload = String((this.beats += 1));
    const echoed = new Promise<void>((arrived) => (this.echo = { payload, arrived }));
    const sent = client.query('select pg_notify($1, $2)', [this.heartbeatChannel, payload]);
    return within(
      this.heartbeatMs,
      Promise.all([sent, echoed]).then(() => undefined),
      'session cache: heartbeat',
    );
  }

  private lost(client: Client, error?: Error): void {
    if (client !== this.client) return;
    if (this.listening)
      this.logger?.warn({ err: error }, 'session cache: LISTEN connection lost; reading every request');
    this.goDark();
    this.client = null;
    this.echo = null;
    if (this.nextBeat) clearTimeout(this.nextBeat);
    this.nextBeat = null;
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
    if (oldest !== undefined) this.drop(oldest);
  }

  private drop(key: string): void {
    this.rows.delete(key);
    const userId = key.slice(0, key.indexOf('\u0000'));
    const keys = this.keysByUser.get(userId);
    keys?.delete(key);
    if (keys?.size === 0) this.keysByUser.delete(userId);
  }
}

/**
 * `work`, or a rejection once `ms` have passed. The rejection waits for I/O already received (setImmediate runs after
 * it), so an answer that arrived while the event loop was busy is not taken for silence.
 */
function within<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new Error(`${what}: no answer within ${ms} ms`))), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

const keyOf = (userId: string, deviceId: string) => `${userId}\u0000${deviceId}`;
