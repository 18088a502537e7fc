import { defineEntity, type InferEntity } from '@mikro-orm/core';

/**
 * The outbox of events for apps: written in the same transaction as the state change it describes, so none is lost
 * and none is invented. `position` orders all events (the events API's cursor and each endpoint's delivery order);
 * `sequence` counts the events of one resource from 1 without gaps, so a receiver can order them and drop a stale one.
 */
export const EventEntity = defineEntity({
  name: 'Event',
  tableName: 'events',
  uniques: [{ properties: ['resourceId', 'sequence'] }],
  properties: (p) => ({
    position: p.integer().primary().autoincrement(),
    eventId: p.string().length(64).unique(),
    type: p.string().length(64).index(),
    resourceType: p.string().length(32),
    resourceId: p.string().length(64).index(),
    sequence: p.integer(),
    userId: p.string().length(64).nullable().index(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  }),
});
export type Event = InferEntity<typeof EventEntity>;

/** The last sequence number given to each resource's events (a row per resource, incremented in the event's transaction). */
export const EventStreamEntity = defineEntity({
  name: 'EventStream',
  tableName: 'event_streams',
  properties: (p) => ({
    resourceId: p.string().primary().length(64),
    lastSequence: p.integer(),
  }),
});
export type EventStream = InferEntity<typeof EventStreamEntity>;
