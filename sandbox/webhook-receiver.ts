import Router from '@koa/router';
import { Webhook } from 'standardwebhooks';

interface Receiver {
  secret?: string;
  mode: 'ok' | 'fail' | 'hang';
  status: number;
  delayMs: number;
  attempts: Attempt[];
}
interface Attempt {
  webhookId: string;
  timestamp: string;
  signature: string;
  body: string;
  verified: boolean;
  answered: number | null;
  at: string;
}

/**
 * A stand-in for an app's server receiving our webhooks, as many as named: it verifies each delivery with the
 * Standard Webhooks library (given the endpoint's secret) and can be told to fail, hang or answer slowly.
 *   PUT /receiver/v1/_receivers/{name} {secret?, mode?: ok|fail|hang, status?: 503, delayMs?: 0}
 *   POST /receiver/v1/{name}   the endpoint URL to register
 *   GET /receiver/v1/_receivers/{name}   every attempt: webhook-id, headers, body, whether it verified, what was answered
 * The raw body is what is verified, so the receiver mounts its own raw-body reader (the sandbox parses JSON elsewhere).
 */
export function webhookReceiverRouter(): Router {
  const receivers = new Map<string, Receiver>();
  const receiver = (name: string): Receiver => {
    let found = receivers.get(name);
    if (!found) receivers.set(name, (found = { mode: 'ok', status: 503, delayMs: 0, attempts: [] }));
    return found;
  };
  const router = new Router({ prefix: '/receiver/v1' });

  router.put('/_receivers/:name', (ctx) => {
    const body = (ctx.request as unknown as { body?: Partial<Receiver> }).body ?? {};
    const r = receiver(ctx.params.name!);
    Object.assign(r, {
      ...(typeof body.secret === 'string' ? { secret: body.secret } : {}),
      ...(body.mode ? { mode: body.mode } : {}),
      ...(typeof body.status === 'number' ? { status: body.status } : {}),
      ...(typeof body.delayMs === 'number' ? { delayMs: body.delayMs } : {}),
    });
    ctx.body = {
      name: ctx.params.name,
      mode: r.mode,
      status: r.status,
      delayMs: r.delayMs,
      attempts: r.attempts.length,
    };
  });

  router.get('/_receivers/:name', (ctx) => {
    ctx.body = { attempts: receiver(ctx.params.name!).attempts };
  });

  router.post('/:name', async (ctx) => {
    const r = receiver(ctx.params.name!);
    const raw = (ctx.request as unknown as { rawBody?: string }).rawBody ?? '';
    const headers = {
      'webhook-id': ctx.get('webhook-id'),
      'webhook-timestamp': ctx.get('webhook-timestamp'),
      'webhook-signature': ctx.get('webhook-signature'),
    };
    let verified = false;
    try {
      if (r.secret) {
        new Webhook(r.secret).verify(raw, headers);
        verified = true;
      }
    } catch {
      verified = false;
    }
    const attempt: Attempt = {
      webhookId: headers['webhook-id'],
      timestamp: headers['webhook-timestamp'],
      signature: headers['webhook-signature'],
      body: raw,
      verified,
      answered: null,
      at: new Date().toISOString(),
    };
    r.attempts.push(attempt);
    if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
    if (r.mode === 'hang') await new Promise((resolve) => setTimeout(resolve, 120_000));
    ctx.status = r.mode === 'fail' ? r.status : verified ? 204 : 401;
    attempt.answered = ctx.status;
  });

  return router;
}
