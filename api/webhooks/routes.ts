import { defineRoute, type RouteSpec } from '../http/route-table';
import type { WebhookService } from './service';
import * as S from './schemas';

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
      responses: { 200: { description: 'Endpoints', schema: S.EndpointList } },
      handler: async () => ({ status: 200, body: await webhooks.list() }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/endpoints/:endpointId',
      operationId: 'getWebhookEndpoint',
      tags: TAGS,
      auth: 'operator',
      summary: 'One endpoint: status, why it was disabled, the last failed answer, what is pending',
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
      params: S.EndpointParams,
      body: S.ReplayBody,
      responses: {
        202: { description: 'Replay under way', schema: S.Replay },
        404: { description: 'No such endpoint' },
      },
      handler: async ({ params, body }) => ({
        status: 202,
        body: await webhooks.replay(params.endpointId, body.after),
      }),
    }),
  ];
}
