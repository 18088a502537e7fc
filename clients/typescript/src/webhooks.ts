import { Webhook } from 'standardwebhooks';
import type { webhooks } from './schema';

/** The event a webhook of this type delivers (the document's `webhooks`), e.g. `WebhookEventOf<'transfer.confirmed'>`. */
export type WebhookEventOf<K extends keyof webhooks> = NonNullable<
  webhooks[K]['post']
>['requestBody']['content']['application/json'];

/** Any delivered event: a union discriminated by `type`, so `if (event.type === 'charge.completed') event.data…` is typed. */
export type WebhookEvent = { [K in keyof webhooks]: WebhookEventOf<K> }[keyof webhooks];

/**
 * Verifies a webhook delivery with the endpoint's secret (`whsec_…`, answered when the endpoint was created or its
 * secret rotated; during a rotation try each) and returns its event. Throws when the signature, the timestamp
 * (five minutes' tolerance) or the webhook-id does not match: answer that delivery 400 and do not act on it.
 * `payload` is the raw body, exactly as received (not re-serialized JSON).
 */
export function verifyWebhook(
  secrets: string | string[],
  payload: string,
  headers: Record<string, string | string[] | undefined>,
): WebhookEvent {
  const flat: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headers[name] ?? headers[name.toLowerCase()];
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(',') : value;
  }
  let failure: unknown;
  for (const secret of [secrets].flat()) {
    try {
      return new Webhook(secret).verify(payload, flat) as WebhookEvent;
    } catch (error) {
      failure = error;
    }
  }
  throw failure;
}
