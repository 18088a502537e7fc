import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { EventEntity, WebhookEndpointEntity, webhookSecretAad, type WebhookEndpoint } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { checkWebhookUrl, WebhookUrlRefused, type WebhookPolicy } from '../../integrations/webhooks';
import { webhookEndpointWorkflow } from '../../workflows/webhooks';
import { webhookEndpointWorkflowId, webhookWakeSignal, type WebhookRetry } from '../../workflows/messages';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { clock } from '../../platform/clock';
import { findPage, type KeysetOrder, type PageRequest } from '../http/pagination';

const ENDPOINT_ORDER: KeysetOrder<'createdAt' | 'endpointId'> = {
  list: 'webhook-endpoints',
  fields: ['createdAt', 'endpointId'],
  kinds: ['date', 'string'],
  order: 'asc',
};

export interface WebhookServiceDeps {
  orm: Orm;
  temporal: Client;
  encryption: DataEncryption;
  taskQueue: string;
  policy: WebhookPolicy;
  retry: WebhookRetry;
  pollSeconds: number;
}

/** A Standard Webhooks secret: `whsec_` and 32 random bytes, base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Webhook endpoints, registered by an operator; deliveries are the worker's (workflow webhook-endpoint-<id>). */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkWebhookUrl(url, this.deps.policy);
    } catch (error) {
      if (error instanceof WebhookUrlRefused)
        throw problems.unprocessable('webhook-url-refused', `This URL cannot receive webhooks: ${error.message}`);
      throw error;
    }
  }

  /**
   * Starts the endpoint's delivery workflow. `resume`: a disabled endpoint enabled again, whose last run may not have
   * closed yet (it recorded the endpoint disabled and is returning): that run is replaced, as found still open it would
   * have been taken for this one and then ended, leaving nothing to deliver (found by CI: re-enabled at once, nothing
   * delivered). A delivery that run had under way may go out again, under the same webhook-id.
   */
  private async start(endpointId: string, resume = false): Promise<void> {
    await startOnce(() =>
      this.deps.temporal.workflow.start(webhookEndpointWorkflow, {
        workflowId: webhookEndpointWorkflowId(endpointId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        ...(resume ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING' as const } : {}),
        args: [{ endpointId, retry: this.deps.retry, pollSeconds: this.deps.pollSeconds }],
      }),
    );
  }

  /** Tells the endpoint's workflow to look again now (best effort: it also looks by itself every poll interval). */
  private async wake(endpointId: string): Promise<void> {
    await this.deps.temporal.workflow
      .getHandle(webhookEndpointWorkflowId(endpointId))
      .signal(webhookWakeSignal)
      .catch(() => undefined);
  }

  async create(operator: string, input: { url: string; eventTypes: string[]; description?: string }) {
    await this.checkUrl(input.url);
    const endpointId = `we_${randomUUID()}`;
    const secret = newSecret();
    // From now on: the events committed before registration are in the events API.
    const [last] = await this.deps.orm.em
      .fork()
      .find(EventEntity, {}, { orderBy: { position: 'desc' }, fields: ['position'], limit: 1 });
    await this.deps.orm.em.fork().insert(WebhookEndpointEntity, {
      endpointId,
      url: input.url,
      description: input.description ?? null,
      eventTypes: input.eventTypes,
      status: 'active',
      secretSealed: this.deps.encryption.sealText(secret, webhookSecretAad(endpointId)),
      cursor: last?.position ?? 0,
      createdBy: operator,
      createdAt: clock.date(),
      updatedAt: clock.date(),
    });
    await this.start(endpointId);
    return { ...(await this.view(endpointId)), secret };
  }

  /** Every endpoint, oldest first, a page at a time. */
  async list(page: PageRequest) {
    const found = await findPage<WebhookEndpoint, string>(
      this.deps.orm.em.fork(),
      WebhookEndpointEntity,
      {},
      ENDPOINT_ORDER,
      page,
      { defaultLimit: 50, whole: true },
    );
    return { ...found, items: await Promise.all(found.items.map((e) => this.viewOf(e))) };
  }

  async view(endpointId: string) {
    return this.viewOf(await this.find(endpointId));
  }

  async update(
    operator: string,
    endpointId: string,
    patch: { url?: string; eventTypes?: string[]; description?: string; enabled?: boolean },
  ) {
    const endpoint = await this.find(endpointId);
    if (patch.url) await this.checkUrl(patch.url);
    const resume = patch.enabled === true && endpoint.status === 'disabled';
    await this.deps.orm.em.fork().nativeUpdate(
      WebhookEndpointEntity,
      { endpointId },
      {
        ...(patch.url ? { url: patch.url } : {}),
        ...(patch.eventTypes ? { eventTypes: patch.eventTypes } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(resume ? { status: 'active', disabledReason: null } : {}),
        ...(patch.enabled === false && endpoint.status === 'active'
          ? { status: 'disabled', disabledReason: `disabled by operator ${operator}` }
          : {}),
        updatedAt: clock.date(),
      },
    );
    if (resume) await this.start(endpointId, true);
    await this.wake(endpointId);
    return this.view(endpointId);
  }

  async rotateSecret(endpointId: string, overlapSeconds: number) {
    const endpoint = await this.find(endpointId);
    const secret = newSecret();
    const until = overlapSeconds > 0 ? new Date(clock.now() + overlapSeconds * 1000) : null;
    await this.deps.orm.em.fork().nativeUpdate(
      WebhookEndpointEntity,
      { endpointId },
      {
        secretSealed: this.deps.encryption.sealText(secret, webhookSecretAad(endpointId)),
        previousSecretSealed: until ? endpoint.secretSealed : null,
        previousSecretUntil: until,
        updatedAt: clock.date(),
      },
    );
    return { secret, previousSecretValidUntil: until?.toISOString() ?? null };
  }

  async replay(endpointId: string, after: string) {
    const endpoint = await this.find(endpointId);
    await this.deps.orm.em
      .fork()
      .nativeUpdate(
        WebhookEndpointEntity,
        { endpointId },
        { cursor: Number(after), generation: endpoint.generation + 1, updatedAt: clock.date() },
      );
    await this.wake(endpointId);
    return { cursor: after };
  }

  async remove(endpointId: string): Promise<void> {
    await this.find(endpointId);
    await this.deps.orm.em.fork().nativeDelete(WebhookEndpointEntity, { endpointId });
    await this.wake(endpointId);
  }

  private async find(endpointId: string): Promise<WebhookEndpoint> {
    const endpoint = await this.deps.orm.em.fork().findOne(WebhookEndpointEntity, { endpointId });
    if (!endpoint) throw problems.notFound(`Webhook endpoint ${endpointId}`);
    return endpoint;
  }

  private async viewOf(e: WebhookEndpoint) {
    const all = e.eventTypes.includes('*');
    const pending = await this.deps.orm.em
      .fork()
      .count(EventEntity, { position: { $gt: e.cursor }, ...(all ? {} : { type: { $in: e.eventTypes } }) });
    const overlap =
      e.previousSecretUntil && e.previousSecretUntil.getTime() > clock.now()
        ? e.previousSecretUntil.toISOString()
        : null;
    return {
      endpointId: e.endpointId,
      url: e.url,
      description: e.description ?? null,
      eventTypes: e.eventTypes,
      status: e.status,
      disabledReason: e.disabledReason ?? null,
      cursor: String(e.cursor),
      delivered: e.delivered,
      pending,
      failingSince: e.failingSince?.toISOString() ?? null,
      lastError: e.lastError ?? null,
      lastAttemptAt: e.lastAttemptAt?.toISOString() ?? null,
      previousSecretValidUntil: overlap,
      createdAt: e.createdAt.toISOString(),
    };
  }
}
