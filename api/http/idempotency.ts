import { createHash, randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import type { DataEncryption } from '../../platform/data-encryption';
import { IdempotencyRecordEntity } from '../../db/entities';
import { HttpError } from './problems';
import { clock } from '../../platform/clock';
import { HotStatement } from '../../db/sql';

/** The two statements of every keyed request, prepared (see db/sql.ts); the rest (retries, takeovers) uses the ORM. */
const BEGIN = new HotStatement<{ id: number | string }>(
  'idempotency-begin',
  'insert into idempotency_records (scope, key, fingerprint, state, created_at, expires_at) ' +
    "values (?, ?, ?, 'in_progress', ?, ?) on conflict (scope, key) do nothing returning id",
);
const COMPLETE = new HotStatement(
  'idempotency-complete',
  "update idempotency_records set state = 'completed', response_status = ?, response_headers = ?, response_body = ? " +
    'where id = ?',
);

export type IdempotencyBegin =
  | { kind: 'proceed'; recordId: number }
  | { kind: 'replay'; status: number; body: unknown; headers: Record<string, string> };

/** Canonical JSON (sorted keys) so the same payload always gives the same fingerprint. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

/**
 * A business id (charge, transfer) that follows the caller's Idempotency-Key, so a retry after a crash finds the same
 * object; a random one without a key. Formatted as `<prefix>_<uuid-shaped hex>`.
 */
export function idForRequest(prefix: string, userId: string, idempotencyKey: string | undefined): string {
  if (!idempotencyKey) return `${prefix}_${randomUUID()}`;
  const h = createHash('sha256').update(`${prefix}\n${userId}\n${idempotencyKey.toLowerCase()}`).digest('hex');
  return `${prefix}_${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export const requestFingerprint = (parts: unknown): string =>
  createHash('sha256').update(canonical(parts)).digest('hex');

/**
 * Idempotency-Key records (IETF httpapi draft), stored in the database and scoped to the caller:
 * first use proceeds, a retry after completion replays the stored response, a retry while the first is still
 * running gets 409, the same key with another payload gets 422. A record left `in_progress` by a crashed
 * process is taken over after `lockSeconds`; records are kept for `retentionSeconds`.
 */
export class IdempotencyStore {
  /** Stored answers are sealed: a replayed registration step or eKYC answer carries personal data. */
  constructor(
    private readonly orm: Orm,
    private readonly encryption: DataEncryption,
    private readonly retentionSeconds: number,
    private readonly lockSeconds = 60,
  ) {}

  async begin(scope: string, key: string, fingerprint: string, attempt = 1): Promise<IdempotencyBegin> {
    const now = clock.now();
    // One prepared INSERT (no unit of work, no transaction around it): this runs on every keyed request.
    const inserted = await BEGIN.row(this.orm.em, [
      scope,
      key,
      fingerprint,
      new Date(now),
      new Date(now + this.retentionSeconds * 1000),
    ]);
    if (inserted) return { kind: 'proceed', recordId: Number(inserted.id) };
    const existing = await this.orm.em.fork().findOne(IdempotencyRecordEntity, { scope, key });
    if (!existing) {
      // The record that blocked the insert was released (its request failed) in between: try again. Found by Schemathesis.
      if (attempt >= 5)
        throw new HttpError(
          409,
          'idempotency-request-in-progress',
          'Request in progress',
          'A request with this Idempotency-Key is being retried concurrently',
          undefined,
          { 'retry-after': '1' },
        );
      return this.begin(scope, key, fingerprint, attempt + 1);
    }
    const expired = existing.expiresAt.getTime() < now;
    const abandoned = existing.state === 'in_progress' && existing.createdAt.getTime() + this.lockSeconds * 1000 < now;
    if (expired || abandoned) {
      // Take the record over atomically: only one caller's conditional update matches.
      const taken = await this.orm.em.fork().nativeUpdate(
        IdempotencyRecordEntity,
        { id: existing.id, createdAt: existing.createdAt },
        {
          fingerprint,
          state: 'in_progress',
          createdAt: new Date(now),
          expiresAt: new Date(now + this.retentionSeconds * 1000),
          responseStatus: null,
          responseBody: null,
          responseHeaders: null,
        },
      );
      if (taken === 1) return { kind: 'proceed', recordId: existing.id };
      return this.begin(scope, key, fingerprint, attempt + 1);
    }
    if (existing.fingerprint !== fingerprint) {
      throw new HttpError(
        422,
        'idempotency-key-reused',
        'Idempotency-Key reused',
        'This Idempotency-Key was already used with a different request payload',
      );
    }
    if (existing.state === 'in_progress') {
      throw new HttpError(
        409,
        'idempotency-request-in-progress',
        'Request in progress',
        'A request with this Idempotency-Key is still being processed',
        undefined,
        { 'retry-after': '1' },
      );
    }
    return {
      kind: 'replay',
      status: existing.responseStatus ?? 200,
      body: existing.responseBody ? this.openBody(existing.id, existing.responseBody) : undefined,
      headers: existing.responseHeaders ?? {},
    };
  }

  async complete(recordId: number, status: number, body: unknown, headers: Record<string, string>): Promise<void> {
    await COMPLETE.rows(this.orm.em, [
      status,
      headers,
      body === undefined ? null : this.encryption.sealText(JSON.stringify(body), `idempotency-response:${recordId}`),
      recordId,
    ]);
  }

  /** Records written before answers were sealed hold plain JSON; they expire within the retention period. */
  private openBody(recordId: number, stored: string): unknown {
    if (stored.startsWith('{') || stored.startsWith('[') || stored.startsWith('"')) return JSON.parse(stored);
    return JSON.parse(this.encryption.openText(stored, `idempotency-response:${recordId}`));
  }

  /** The request failed before producing a result worth replaying: let a retry run it again. */
  async release(recordId: number): Promise<void> {
    await this.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { id: recordId });
  }

  async sweepExpired(): Promise<number> {
    return this.orm.em.fork().nativeDelete(IdempotencyRecordEntity, { expiresAt: { $lt: clock.date() } });
  }
}
