import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * Where an app receives its events (Standard Webhooks), registered by an operator. Deliveries go out in event order,
 * one at a time, by the workflow webhook-endpoint-<endpointId>; `cursor` is the position of the last event delivered
 * (or skipped as not subscribed). `generation` grows with every replay, so a delivery under way cannot move the cursor
 * past a replay that was asked for meanwhile.
 */
export const WebhookEndpointEntity = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: (p) => ({
    endpointId: p.string().primary().length(64),
    url: p.string().length(2048),
    description: p.string().length(256).nullable(),
    /** Event types it receives; ["*"] for all. */
    eventTypes: p.json<string[]>(),
    status: p.enum(['active', 'disabled'] as const),
    /** Why the service disabled it (deliveries kept failing), or that an operator did. */
    disabledReason: p.text().nullable(),
    /** The whsec_ secret, sealed; during a rotation's overlap the previous one signs too. */
    secretSealed: p.text(),
    previousSecretSealed: p.text().nullable(),
    previousSecretUntil: p.datetime().nullable(),
    cursor: p.integer(),
    generation: p.integer().default(0),
    delivered: p.integer().default(0),
    failingSince: p.datetime().nullable(),
    lastError: p.text().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    createdBy: p.string().length(64),
    createdAt: p.datetime(),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpointEntity>;

/** The associated data a webhook secret is sealed with. */
export const webhookSecretAad = (endpointId: string): string => `webhook-secret|${endpointId}`;
