import { Type, type TSchema } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';
import { EVENT_TYPES, EVENT_TYPE_NAMES } from '../../platform/events';

/** One schema per event type: the envelope every event shares, with that type's `data`. */
const eventSchema = (type: keyof typeof EVENT_TYPES): TSchema =>
  Type.Object(
    {
      id: Type.String({
        description: 'Unique per event: a receiver that saw it already drops it (a webhook retried, or replayed)',
      }),
      type: Type.Literal(type),
      createdAt: DateTime,
      resource: Type.Object({ type: Type.Literal(EVENT_TYPES[type].resource), id: Type.String() }),
      sequence: Type.Integer({
        minimum: 1,
        description:
          "The resource's own count of events, from 1 without gaps: a receiver keeps the highest it applied and drops a lower one",
      }),
      userId: Type.Union([Type.String(), Type.Null()]),
      data: EVENT_TYPES[type].data,
    },
    { title: type, description: EVENT_TYPES[type].summary },
  );

/** Each event type as a webhook the service sends (the OpenAPI document's `webhooks`). */
export const EVENT_WEBHOOKS = EVENT_TYPE_NAMES.map((name) => ({
  name,
  summary: EVENT_TYPES[name].summary,
  schema: eventSchema(name),
}));

export const EventSchema = Type.Union(EVENT_TYPE_NAMES.map(eventSchema), {
  description: 'An event (one schema per type)',
});

export const EventTypeName = Type.Union(EVENT_TYPE_NAMES.map((name) => Type.Literal(name)));

export const EventsQuery = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,10}$',
        description: 'The nextCursor of the previous page: only events after it (omit: from the first event)',
      }),
    ),
    after: Type.Optional(
      Type.String({
        pattern: '^[0-9]{1,10}$',
        deprecated: true,
        description:
          'Deprecated (Sunset 2027-05-31): the former name of `cursor`; answers carry Deprecation and Sunset when it is used',
      }),
    ),
    type: Type.Optional(
      Type.String({ pattern: '^[a-z_]+\\.[a-z_]+(,[a-z_]+\\.[a-z_]+)*$', description: 'Comma-separated event types' }),
    ),
    resourceId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    userId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

export const EventList = Type.Object({
  items: Type.Array(EventSchema),
  nextCursor: Type.String({
    description:
      'Pass it as `cursor` for the events that follow: never null, since events keep coming (the same cursor when there were none yet)',
  }),
  hasMore: Type.Boolean({
    description: 'Whether more events are already there (then the answer also carries `Link: <…>; rel="next"`)',
  }),
});

export const EventIdParams = Type.Object({ eventId: Type.String({ pattern: '^evt_[0-9a-f-]{36}$' }) });
