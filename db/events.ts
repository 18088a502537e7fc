import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { EVENT_TYPES, type EventData, type EventType } from '../platform/events';
import { EventEntity, type Event } from './entities/event';
import { clock } from '../platform/clock';
import { HotStatement, isPostgres } from './sql';

export interface NewEvent<T extends EventType> {
  /** The event's id when the caller needs it ahead (a security notice waits for it); a fresh one otherwise. */
  eventId?: string;
  type: T;
  resourceId: string;
  userId: string | null;
  data: EventData<T>;
}

/**
 * Appends an event to the outbox. Call it with the entity manager of the transaction that makes the state change the
 * event describes (`em.transactional(async (tx) => { ...change...; await appendEvent(tx, ...) })`): both commit or
 * neither does. The resource's next sequence number comes from its row in event_streams, incremented in the same
 * transaction, so two changes of one resource never share a number and a later change never gets a smaller one.
 */
export async function appendEvent<T extends EventType>(
  em: EntityManager,
  event: NewEvent<T>,
): Promise<{ eventId: string; sequence: number }> {
  const rows = await em
    .getConnection()
    .execute<Array<{ last_sequence: number }>>(
      'insert into event_streams (resource_id, last_sequence) values (?, 1) on conflict (resource_id) do update set last_sequence = event_streams.last_sequence + 1 returning last_sequence',
      [event.resourceId],
      'all',
      em.getTransactionContext(),
    );
  const sequence = Number(rows[0]!.last_sequence);
  const eventId = event.eventId ?? `evt_${randomUUID()}`;
  await em.insert(EventEntity, {
    eventId,
    type: event.type,
    resourceType: EVENT_TYPES[event.type].resource,
    resourceId: event.resourceId,
    sequence,
    userId: event.userId,
    data: event.data as Record<string, unknown>,
    createdAt: clock.date(),
  });
  return { eventId, sequence };
}

/** An event as apps read it (the events API) and receive it (the body of a webhook). */
export const eventPayload = (e: Event) => ({
  id: e.eventId,
  type: e.type,
  createdAt: e.createdAt.toISOString(),
  resource: { type: e.resourceType, id: e.resourceId },
  sequence: e.sequence,
  userId: e.userId ?? null,
  data: withTxHashText(e.data),
});

/**
 * A transaction hash is a string, empty until known, as the schemas of `platform/events.ts` say: events stored before
 * (with `txHash: null`) read the same way.
 */
const withTxHashText = (data: Event['data']): Event['data'] =>
  data && typeof data === 'object' && 'txHash' in data && (data as { txHash: unknown }).txHash === null
    ? { ...data, txHash: '' }
    : data;

/** The event's statements as SQL (see insertWithEvent): the stream's next number, then the event itself. */
const NEXT_SEQUENCE =
  'insert into event_streams (resource_id, last_sequence) values (?, 1) on conflict (resource_id) do update set last_sequence = event_streams.last_sequence + 1 returning last_sequence';
const EVENT_COLUMNS = 'event_id, type, resource_type, resource_id, sequence, user_id, data, created_at';

/**
 * A hot path's insert and its event, in one statement on PostgreSQL: `insert` (an INSERT … ON CONFLICT DO NOTHING
 * with `?` placeholders, no RETURNING) runs first, and the event is appended only when it inserted a row, so a retry
 * that finds the row writes nothing. On PostgreSQL this is one prepared statement (data-modifying CTEs run as one, so
 * the row and its event commit together); SQLite runs the same steps in a transaction. Answers whether the row was new.
 */
export async function insertWithEvent<T extends EventType>(
  em: EntityManager,
  name: string,
  insert: { sql: string; params: readonly unknown[] },
  event: NewEvent<T>,
): Promise<boolean> {
  const eventId = `evt_${randomUUID()}`;
  const eventValues = [
    eventId,
    event.type,
    EVENT_TYPES[event.type].resource,
    event.resourceId,
    event.userId,
    event.data,
    clock.date(),
  ];
  if (isPostgres(em)) {
    const statement = (statements[name] ??= new HotStatement(
      name,
      `with inserted as (${insert.sql} returning 1), ` +
        `stream as (insert into event_streams (resource_id, last_sequence) select ?, 1 from inserted ` +
        'on conflict (resource_id) do update set last_sequence = event_streams.last_sequence + 1 returning last_sequence) ' +
        `insert into events (${EVENT_COLUMNS}) select ?, ?, ?, ?, last_sequence, ?, ?::jsonb, ?::timestamptz from stream returning 1`,
    ));
    return (await statement.rows(em, [...insert.params, event.resourceId, ...eventValues])).length === 1;
  }
  return em.transactional(async (tx) => {
    const inserted = await new HotStatement('', `${insert.sql} returning 1`).rows(tx, insert.params);
    if (inserted.length === 0) return false;
    const [stream] = await new HotStatement<{ last_sequence: number }>('', NEXT_SEQUENCE).rows(tx, [event.resourceId]);
    await new HotStatement('', `insert into events (${EVENT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?)`).rows(tx, [
      ...eventValues.slice(0, 4),
      Number(stream!.last_sequence),
      ...eventValues.slice(4),
    ]);
    return true;
  });
}

const statements: Record<string, HotStatement> = {};
