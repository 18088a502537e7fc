import { problems } from '../http/problems';
import { defineRoute, type RouteSpec } from '../http/route-table';
import type { WebhookService } from './service';
import * as S from './schemas';
import { nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

export interface WebhookRouteDeps {
  webhooks: WebhookService;
}

const TAGS = ['Webhooks'];
const scope = ({ operator }: { operator: string }) => `operator:${operator}`;

/** Webhook endpoints (an operator credential): where the app's server receives events, signed (Standard Webhooks). */
export function webhookRoutes({ webhooks }: WebhookRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/endpoints',
      operationId: 'createWebhookEndpoint',
      tags: TAGS,
      auth: 'operator',
      summary:
        'Register an endpoint: events from now on are delivered to it in order, signed with the secret answered once',
      description:
        'Deliveries start with the first event committed after registration (earlier ones are in GET /v1/events, ' +
        'or delivered with POST …/replay), each a Standard Webhooks POST signed with `secret`: store it, as no ' +
        'read shows it again. The URL must be https in production and not a private, loopback or link-local ' +
        'address unless WEBHOOK_ALLOW_PRIVATE_NETWORKS (checked again on every connection). Send an ' +
        'Idempotency-Key: a retry then answers the same endpoint and secret instead of registering a second one.',
      body: S.EndpointBody,
      idempotency: { required: false, scope },
      responses: {
        201: { description: 'Registered', schema: S.EndpointWithSecret },
        422: { description: 'The URL cannot receive webhooks (scheme, address)' },
      },
      handler: async ({ body, operator }) => ({ status: 201, body: await webhooks.create(operator, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/endpoints',
      operationId: 'listWebhookEndpoints',
      tags: TAGS,
      auth: 'operator',
      summary: 'Endpoints with their delivery state',
      description:
        'The endpoints, oldest first, whichever operator registered them (a page at a time with `limit` and ' +
        '`cursor`; all of them without either); secrets are never shown. A growing ' +
        '`pending` with `failingSince` set means one event is being retried and holds back the ones after it; ' +
        '`status: disabled` means deliveries stopped (GET /v1/webhooks/endpoints/{endpointId} says why).',
      query: S.EndpointQuery,
      responses: {
        200: { description: 'Endpoints', schema: S.EndpointList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ query }, ctx) => {
        const page = await webhooks.list(query);
        return { status: 200, body: page, headers: nextLink(ctx, page.nextCursor) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/endpoints/:endpointId',
      operationId: 'getWebhookEndpoint',
      tags: TAGS,
      auth: 'operator',
      summary: 'One endpoint: status, why it was disabled, the last failed answer, what is pending',
      description:
        'Look here when events stop arriving: a failing event is retried with doubling delays for ' +
        'WEBHOOK_GIVE_UP_SECONDS (3 days and an hour; at once for an address the policy refuses), then the ' +
        'endpoint is disabled, `disabledReason` naming the event position and the last answer. Fix the receiver ' +
        'and PATCH `{"enabled":true}`: deliveries resume from that event, nothing skipped.',
      params: S.EndpointParams,
      responses: { 200: { description: 'Endpoint', schema: S.Endpoint }, 404: { description: 'No such endpoint' } },
      handler: async ({ params }) => ({ status: 200, body: await webhooks.view(params.endpointId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhooks/endpoints/:endpointId',
      operationId: 'updateWebhookEndpoint',
      tags: TAGS,
      auth: 'operator',
      summary: 'Change the URL or the subscription, or disable / resume deliveries',
      description:
        'A new `url` is checked as at registration and used from the next attempt on, the next retry of a ' +
        'failing event included; new `eventTypes` apply to the events after the cursor. `enabled: false` stops ' +
        'deliveries (`disabledReason` names the operator); `enabled: true` resumes a disabled endpoint from the ' +
        'first event it has not received. The secret changes with POST …/secret.',
      params: S.EndpointParams,
      body: S.EndpointPatch,
      responses: {
        200: { description: 'Endpoint', schema: S.Endpoint },
        404: { description: 'No such endpoint' },
        422: { description: 'The URL cannot receive webhooks' },
      },
      handler: async ({ params, body, operator }) => ({
        status: 200,
        body: await webhooks.update(operator, params.endpointId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/endpoints/:endpointId',
      operationId: 'deleteWebhookEndpoint',
      tags: TAGS,
      auth: 'operator',
      summary: 'Remove an endpoint (its deliveries stop)',
      description:
        'The endpoint and its secret are deleted for good: no further attempt starts, a failing event included, ' +
        'and its cursor is lost. To pause deliveries instead, PATCH `{"enabled":false}`; the events stay in GET ' +
        '/v1/events.',
      params: S.EndpointParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such endpoint' } },
      handler: async ({ params }) => {
        await webhooks.remove(params.endpointId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/endpoints/:endpointId/secret',
      operationId: 'rotateWebhookSecret',
      tags: TAGS,
      auth: 'operator',
      summary: 'A new signing secret; the previous one keeps signing too for the overlap',
      description:
        'During the overlap (`overlapSeconds`, 86400 by default, at most 7 days, 0 for none) each delivery ' +
        'carries a signature by each secret, so the receiver can switch to the new one without refusing ' +
        'deliveries; a rotation during an overlap ends the older secret at once. The new secret is shown only in ' +
        'this answer: send an Idempotency-Key so that a retry answers the same secret instead of rotating again.',
      params: S.EndpointParams,
      body: S.SecretRotation,
      idempotency: { required: false, scope },
      responses: {
        200: { description: 'The new secret (shown once)', schema: S.RotatedSecret },
        404: { description: 'No such endpoint' },
      },
      handler: async ({ params, body }) => ({
        status: 200,
        body: await webhooks.rotateSecret(params.endpointId, body.overlapSeconds ?? 24 * 3600),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/endpoints/:endpointId/replay',
      operationId: 'replayWebhookEvents',
      tags: TAGS,
      auth: 'operator',
      summary: 'Deliver again every subscribed event after a cursor, in order',
      description:
        'Sets the cursor of the endpoint to `after` (a `nextCursor` of GET /v1/events; "0" for all) and delivers ' +
        'every subscribed event after it again, in commit order and with its first `webhook-id`, so a receiver ' +
        'that keeps the ids drops the ones it has. A cursor later than the one of the endpoint skips the events ' +
        'in between; a disabled endpoint delivers nothing until PATCH `{"enabled":true}`.',
      params: S.EndpointParams,
      body: S.ReplayBody,
      responses: {
        202: { description: 'Replay under way', schema: S.Replay },
        404: { description: 'No such endpoint' },
      },
      handler: async ({ params, body }) => {
        // Positions are 32-bit (the events table's serial): a larger cursor is none the events API gave.
        if (Number(body.after) > 2_147_483_647)
          throw problems.validation([
            { in: 'body', pointer: '/after', detail: 'not a position the events API returned' },
          ]);
        return { status: 202, body: await webhooks.replay(params.endpointId, body.after) };
      },
    }),
  ];
}
