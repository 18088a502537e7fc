import { randomUUID } from 'node:crypto';
import Router from '@koa/router';

interface StoredMessage {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  sentAt: string;
}

/**
 * Stand-in for a transactional mail provider. `POST /mail/v1/messages` (X-Api-Key) accepts a message and honours
 * Idempotency-Key (a repeated send answers the first message and delivers nothing more). Nothing leaves the machine:
 * `GET /mail/v1/_inbox/{address}` shows what was "delivered" to an address, newest first (docs/sandbox.md, tests).
 */
export function mailRouter(options: { apiKey: string }): Router {
  const sent = new Map<string, StoredMessage>();
  const inbox: StoredMessage[] = [];
  const router = new Router({ prefix: '/mail/v1' });

  router.post('/messages', (ctx) => {
    if (ctx.get('x-api-key') !== options.apiKey) {
      ctx.status = 401;
      ctx.body = { error: 'invalid api key' };
      return;
    }
    const body = (ctx.request as unknown as { body?: Partial<StoredMessage> }).body ?? {};
    const { from, to, subject, text } = body;
    if (
      ![from, to, subject, text].every((v) => typeof v === 'string' && v.length > 0) ||
      !/^[^@\s]+@[^@\s]+$/.test(to!)
    ) {
      ctx.status = 422;
      ctx.body = { error: 'from, to (an address), subject and text are required' };
      return;
    }
    const key = ctx.get('idempotency-key');
    const earlier = key ? sent.get(key) : undefined;
    if (earlier) {
      ctx.body = { messageId: earlier.messageId };
      return;
    }
    const message: StoredMessage = {
      messageId: `msg_${randomUUID()}`,
      from: from!,
      to: to!.toLowerCase(),
      subject: subject!,
      text: text!,
      sentAt: new Date().toISOString(),
    };
    if (key) sent.set(key, message);
    inbox.unshift(message);
    ctx.status = 202;
    ctx.body = { messageId: message.messageId };
  });

  router.get('/_inbox/:address', (ctx) => {
    const address = ctx.params.address!.toLowerCase();
    ctx.body = { messages: inbox.filter((m) => m.to === address) };
  });

  return router;
}
