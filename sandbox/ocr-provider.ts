import Router from '@koa/router';
import { readCardText } from './id-card-image';

/**
 * Stand-in for an ID-card OCR provider. It honours Idempotency-Key: a repeated request returns the first reading
 * and is not counted (billed) again. `GET /ocr/v1/stats` tells tests how many readings were billed.
 */
export function ocrProviderRouter(): Router {
  const readings = new Map<string, unknown>();
  const stats = { requests: 0, billedReadings: 0 };
  const router = new Router({ prefix: '/ocr/v1' });

  router.post('/id-cards', (ctx) => {
    stats.requests += 1;
    const body = (ctx.request as unknown as { body?: { image?: string; idCardType?: string } }).body ?? {};
    if (typeof body.image !== 'string' || typeof body.idCardType !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'image (base64) and idCardType are required' };
      return;
    }
    const key = ctx.get('idempotency-key');
    if (key && readings.has(key)) {
      ctx.body = readings.get(key);
      return;
    }
    const text = readCardText(Buffer.from(body.image, 'base64'));
    const reading = text
      ? {
          name: text.name,
          birthDate: text.birthDate,
          ...(text.idNumber ? { idNumber: text.idNumber, issueDate: text.issueDate ?? null } : {}),
          confidence: 0.97,
        }
      : { name: '', birthDate: '', confidence: 0 };
    stats.billedReadings += 1;
    if (key) readings.set(key, reading);
    ctx.body = reading;
  });

  router.get('/stats', (ctx) => {
    ctx.body = stats;
  });
  return router;
}
