import { ApplicationFailure, Context } from '@temporalio/activity';
import { raw } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import { EventEntity, WebhookEndpointEntity, webhookSecretAad } from '../db/entities';
import { eventPayload } from '../db/events';
import type { DataEncryption } from '../platform/data-encryption';
import { deliverWebhook, WebhookUrlRefused, type WebhookPolicy } from '../integrations/webhooks';
import { clock } from '../platform/clock';

export interface WebhookActivityDeps {
  orm: Orm;
  encryption: DataEncryption;
  webhookPolicy: WebhookPolicy;
  webhookTimeoutMs: number;
}

export const createWebhookActivities = ({ orm, encryption, webhookPolicy, webhookTimeoutMs }: WebhookActivityDeps) => ({
  /** The next events the endpoint subscribes to, after its cursor, in order (positions only: each delivery reads its event). */
  async nextWebhookEvents({
    endpointId,
    limit,
  }: {
    endpointId: string;
    limit: number;
  }): Promise<{ status: 'active' | 'disabled' | 'deleted'; generation: number; positions: number[] }> {
    const em = orm.em.fork();
    const endpoint = await em.findOne(WebhookEndpointEntity, { endpointId });
    if (!endpoint) return { status: 'deleted', generation: 0, positions: [] };
    if (endpoint.status !== 'active')
      return { status: endpoint.status, generation: endpoint.generation, positions: [] };
    const all = endpoint.eventTypes.includes('*');
    const events = await em.find(
      EventEntity,
      { position: { $gt: endpoint.cursor }, ...(all ? {} : { type: { $in: endpoint.eventTypes } }) },
      {
        fields: ['position'],
        orderBy: { position: 'asc' },
        limit,
      },
    );
    return { status: 'active', generation: endpoint.generation, positions: events.map((e) => e.position) };
  },

  /**
   * POSTs one event (Standard Webhooks: webhook-id is the event id on every attempt, so a receiver recognises a
   * repeat). A 2xx moves the endpoint's cursor past it; anything else is recorded on the endpoint (lastError,
   * failingSince) and thrown, for the workflow's retries. Nothing happens when a replay or a disable came in between.
   */
  async deliverWebhookEvent({
    endpointId,
    position,
    generation,
  }: {
    endpointId: string;
    position: number;
    generation: number;
  }): Promise<void> {
    const em = orm.em.fork();
    const endpoint = await em.findOne(WebhookEndpointEntity, { endpointId });
    if (!endpoint || endpoint.status !== 'active' || endpoint.generation !== generation || endpoint.cursor >= position)
      return;
    const event = await em.findOneOrFail(EventEntity, { position });
    const secrets = [encryption.openText(endpoint.secretSealed, webhookSecretAad(endpointId))];
    if (
      endpoint.previousSecretSealed &&
      endpoint.previousSecretUntil &&
      endpoint.previousSecretUntil.getTime() > clock.now()
    ) {
      secrets.push(encryption.openText(endpoint.previousSecretSealed, webhookSecretAad(endpointId)));
    }
    const failed = async (error: string) => {
      const now = clock.date();
      await orm.em
        .fork()
        .nativeUpdate(
          WebhookEndpointEntity,
          { endpointId },
          { lastError: error.slice(0, 1000), lastAttemptAt: now, failingSince: endpoint.failingSince ?? now },
        );
    };
    let answer: { status: number; body: string };
    const beat = setInterval(() => Context.current().heartbeat(), 1000);
    try {
      answer = await deliverWebhook(
        { url: endpoint.url, webhookId: event.eventId, secrets, body: JSON.stringify(eventPayload(event)) },
        webhookPolicy,
        webhookTimeoutMs,
      );
    } catch (error) {
      await failed((error as Error).message);
      // An address the policy refuses stays refused: no retry changes it.
      if (error instanceof WebhookUrlRefused)
        throw ApplicationFailure.create({ type: 'WebhookUrlRefused', message: error.message, nonRetryable: true });
      throw error;
    } finally {
      clearInterval(beat);
    }
    if (answer.status < 200 || answer.status > 299) {
      await failed(`HTTP ${answer.status}${answer.body ? `: ${answer.body}` : ''}`);
      throw new Error(`the receiver answered ${answer.status}`);
    }
    await orm.em.fork().nativeUpdate(
      WebhookEndpointEntity,
      { endpointId, generation, cursor: { $lt: position } },
      {
        cursor: position,
        delivered: raw('delivered + 1'),
        lastAttemptAt: clock.date(),
        lastError: null,
        failingSince: null,
      },
    );
  },

  async disableWebhookEndpoint({ endpointId, reason }: { endpointId: string; reason: string }): Promise<void> {
    const endpoint = await orm.em.fork().findOne(WebhookEndpointEntity, { endpointId });
    if (!endpoint) return;
    const last = endpoint.lastError ? `; last answer: ${endpoint.lastError}` : '';
    await orm.em
      .fork()
      .nativeUpdate(
        WebhookEndpointEntity,
        { endpointId },
        { status: 'disabled', disabledReason: `${reason}${last}`.slice(0, 2000) },
      );
  },
});

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
