import type { Orm } from '../../db/orm';
import { EventEntity } from '../../db/entities';
import { eventPayload } from '../../db/events';
import { EVENT_TYPES, type EventType } from '../../platform/events';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { EventIdParams, EventList, EventSchema, EventsQuery } from './schemas';
import { nextLink } from '../http/pagination';
import { deprecationHeaders } from '../http/router';
import { DEPRECATED_PARAMETER_HEADERS, PAGE_LINK_HEADER } from '../common/schemas';

/** `after`, the former name of `cursor` (CHANGELOG.md, [Unreleased]): answers that use it say so, until its sunset. */
const AFTER_DEPRECATED = { since: new Date('2026-11-27T00:00:00Z'), sunset: new Date('2027-05-31T00:00:00Z') };

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
        'Each event was written in the same transaction as the change it describes. Read from a cursor you keep: ' +
        '`nextCursor` moves past what you read and, this list being a feed, is never null (read again from it ' +
        'later for the events that came since); `hasMore` says more are already there. Order inside one resource ' +
        'is also given by `sequence`. The parameter `after` is the deprecated former name of `cursor` ' +
        '(Sunset 2027-05-31).',
      query: EventsQuery,
      responses: {
        200: {
          description: 'A page of events',
          schema: EventList,
          headers: { ...PAGE_LINK_HEADER, ...DEPRECATED_PARAMETER_HEADERS },
        },
      },
      handler: async ({ query }, ctx) => {
        const types = query.type?.split(',');
        const unknown = types?.filter((t) => !(t in EVENT_TYPES));
        if (unknown?.length)
          throw problems.validation([
            { in: 'query', pointer: '/type', detail: `unknown event type ${unknown.join(', ')}` },
          ]);
        if (query.cursor !== undefined && query.after !== undefined && query.cursor !== query.after)
          throw problems.validation([
            { in: 'query', pointer: '/after', detail: '`after` is the former name of `cursor`: send `cursor` only' },
          ]);
        const after = Number(query.cursor ?? query.after ?? 0);
        // Positions are 32-bit (the events table's serial): a larger cursor is none this API gave.
        if (after > 2_147_483_647)
          throw problems.validation([
            { in: 'query', pointer: query.cursor ? '/cursor' : '/after', detail: 'not a position this API returned' },
          ]);
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
        const nextCursor = String(page.at(-1)?.position ?? after);
        const hasMore = rows.length > limit;
        return {
          status: 200,
          body: { items: page.map(eventPayload), nextCursor, hasMore },
          headers: {
            ...nextLink(ctx, hasMore ? nextCursor : null, ['after']),
            ...(query.after !== undefined ? deprecationHeaders(AFTER_DEPRECATED) : {}),
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
