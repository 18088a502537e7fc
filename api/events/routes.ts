import type { Orm } from '../../db/orm';
import { EventEntity } from '../../db/entities';
import { eventPayload } from '../../db/events';
import { EVENT_TYPES, type EventType } from '../../platform/events';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { EventIdParams, EventList, EventSchema, EventsQuery } from './schemas';

export interface EventRouteDeps {
  orm: Orm;
}

const TAGS = ['Events'];

/**
 * The events API for the app's server (an operator credential): every event in the order it was committed, after a
 * cursor, so nothing missed while a receiver was down stays missed.
 */
export function eventRoutes({ orm }: EventRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/events',
      operationId: 'listEvents',
      tags: TAGS,
      auth: 'operator',
      summary: 'Events in commit order, after a cursor, optionally of some types, one resource or one user',
      description:
        'Each event was written in the same transaction as the change it describes. Read from a cursor you keep; `nextCursor` moves past what you read. Order inside one resource is also given by `sequence`.',
      query: EventsQuery,
      responses: { 200: { description: 'A page of events', schema: EventList } },
      handler: async ({ query }) => {
        const types = query.type?.split(',');
        const unknown = types?.filter((t) => !(t in EVENT_TYPES));
        if (unknown?.length)
          throw problems.validation([
            { in: 'query', pointer: '/type', detail: `unknown event type ${unknown.join(', ')}` },
          ]);
        const after = Number(query.after ?? 0);
        const limit = query.limit ?? 100;
        const rows = await orm.em.fork().find(
          EventEntity,
          {
            position: { $gt: after },
            ...(types ? { type: { $in: types as EventType[] } } : {}),
            ...(query.resourceId ? { resourceId: query.resourceId } : {}),
            ...(query.userId ? { userId: query.userId } : {}),
          },
          { orderBy: { position: 'asc' }, limit: limit + 1 },
        );
        const page = rows.slice(0, limit);
        return {
          status: 200,
          body: {
            items: page.map(eventPayload),
            nextCursor: String(page.at(-1)?.position ?? after),
            hasMore: rows.length > limit,
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/events/:eventId',
      operationId: 'getEvent',
      tags: TAGS,
      auth: 'operator',
      summary: 'One event',
      description:
        'The `id` of an event is also the `webhook-id` of every delivery of it, so a receiver can fetch the ' +
        'event a delivery named; the body is the one webhooks deliver and GET /v1/events lists. To catch up on ' +
        'several, read GET /v1/events from a cursor instead.',
      params: EventIdParams,
      responses: { 200: { description: 'The event', schema: EventSchema }, 404: { description: 'No such event' } },
      handler: async ({ params }) => {
        const event = await orm.em.fork().findOne(EventEntity, { eventId: params.eventId });
        if (!event) throw problems.notFound(`Event ${params.eventId}`);
        return { status: 200, body: eventPayload(event) };
      },
    }),
  ];
}
