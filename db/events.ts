import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { EVENT_TYPES, type EventData, type EventType } from '../platform/events';
import { EventEntity, type Event } from './entities/event';
import { clock } from '../platform/clock';

export interface NewEvent<T extends EventType> {
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
  const eventId = `evt_${randomUUID()}`;
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
  data: e.data,
});
