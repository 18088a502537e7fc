import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Webhook } from 'standardwebhooks';

/**
 * Where webhooks may go. In production only https, and never to a private, loopback, link-local or otherwise
 * non-public address (the service must not be made to call its own network: SSRF) unless configured for a private
 * receiver (WEBHOOK_ALLOW_PRIVATE_NETWORKS, development and tests). Checked when an endpoint is registered and again
 * on every delivery, against the address actually connected to (a name that later resolves elsewhere gains nothing).
 */
export interface WebhookPolicy {
  allowHttp: boolean;
  allowPrivateNetworks: boolean;
}

export class WebhookUrlRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookUrlRefused';
  }
}

/** Whether an address is a public unicast one (IPv4-mapped IPv6 is judged as the IPv4 address it carries). */
export const isPublicAddress = (address: string): boolean => {
  try {
    return ipaddr.process(address).range() === 'unicast';
  } catch {
    return false;
  }
};

/** The URL's form (scheme, no credentials); its addresses are checked by resolving it (registration) or connecting. */
export function checkWebhookUrlForm(raw: string, policy: WebhookPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlRefused('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw new WebhookUrlRefused(policy.allowHttp ? 'only http and https URLs' : 'only https URLs');
  if (url.username || url.password)
    throw new WebhookUrlRefused('credentials in the URL are not accepted (the signature authenticates us)');
  return url;
}

/** Resolves the host as a delivery would, refusing it when any address is not public (unless the policy allows it). */
export async function checkWebhookUrl(raw: string, policy: WebhookPolicy): Promise<void> {
  const url = checkWebhookUrlForm(raw, policy);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [host]
    : await new Promise<string[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) =>
          error
            ? reject(new WebhookUrlRefused(`${host} does not resolve`))
            : resolve((found as LookupAddress[]).map((a) => a.address)),
        ),
      );
  const refused = addresses.filter((a) => !isPublicAddress(a));
  if (refused.length && !policy.allowPrivateNetworks)
    throw new WebhookUrlRefused(`${host} resolves to a non-public address (${refused.join(', ')})`);
}

/** A DNS lookup for deliveries that fails on a non-public address, so the connection is never opened. */
const guardedLookup =
  (policy: WebhookPolicy): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 4);
      const addresses = found as LookupAddress[];
      const allowed = addresses.filter((a) => policy.allowPrivateNetworks || isPublicAddress(a.address));
      if (!allowed.length)
        return callback(new WebhookUrlRefused(`${hostname} resolves to a non-public address`), '', 4);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };

/** The Standard Webhooks signature header: one `v1,<base64>` per secret in use (two during a rotation's overlap). */
export function signWebhook(secrets: string[], webhookId: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(webhookId, timestamp, body)).join(' ');
}

export interface WebhookDelivery {
  url: string;
  webhookId: string;
  secrets: string[];
  body: string;
}

/**
 * POSTs one event. The answer is the receiver's status (2xx: delivered); a connection that fails, a refused address
 * or no answer within `timeoutMs` is thrown. Redirects are not followed.
 */
export async function deliverWebhook(
  delivery: WebhookDelivery,
  policy: WebhookPolicy,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  const url = checkWebhookUrlForm(delivery.url, policy);
  const timestamp = new Date();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'wallet-service-webhooks/1',
    'webhook-id': delivery.webhookId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signWebhook(delivery.secrets, delivery.webhookId, timestamp, delivery.body),
  };
  const ip = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(ip) && !policy.allowPrivateNetworks && !isPublicAddress(ip))
    throw new WebhookUrlRefused(`${ip} is not a public address`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: 'POST', headers, lookup: guardedLookup(policy), timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= 4096) chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, 500) }),
      );
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(delivery.body);
  });
}
