import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import multer from '@koa/multer';
import type { Context } from 'koa';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ID_CARD_KINDS } from '../integrations/id-card/reader';
import { makeIdCardPng, readCardText, type CardText } from './id-card-image';
import { clovaImageAnswer } from './clova-id-card-answer';

/**
 * Stand-in for NAVER CLOVA OCR's ID-card model (Document OCR): `POST /clova/custom/v1/{domainId}/{invokeKey}/document
 * /id-card`, so the invoke URL to configure is `{sandbox}/clova/custom/v1/{any}/{any}/document`. It checks X-OCR-SECRET,
 * takes the published request (JSON with the image in Base64, or multipart with a `message` part and a `file` part)
 * and refuses as CLOVA's error table says. It reads what a card says from the image's `ocr` text chunk
 * (id-card-image.ts); an image without one answers as CLOVA does an image with no card. Every accepted request is
 * billed: CLOVA deduplicates nothing. `GET /clova/_stats` tells tests how many were. `GET /clova/_id-card.png?name=…`
 * makes a card this reader reads (cardOfQuery), for apps outside the repository (the client's quickstart).
 */

/** CLOVA OCR's common error table: code → HTTP status and message (1021's message is cut off where it was read). */
export const CLOVA_ERRORS = {
  '0001': [400, 'URL is invalid.'],
  '0002': [401, 'Secret key validate failed.'],
  '0011': [400, 'Request body invalid.'],
  '0021': [400, 'Protocol version not support.'],
  '0022': [400, 'Request domain invalid.'],
  '0023': [400, 'API request count reach the upper limit.'],
  '0025': [400, 'Calls to this api have exceeded the rate limit.'],
  '0500': [500, 'Unknown service error.'],
  '0501': [500, 'OCR service error.'],
  '1021': [500, 'Not Found Deploy Info.'],
} as const;
export type ClovaErrorCode = keyof typeof CLOVA_ERRORS;

export interface ClovaOcrOptions {
  /** The domain's secret key (X-OCR-SECRET). */
  secret: string;
  log?: (line: string) => void;
  /** Asked at every request: a code to refuse it with, for the refusals only load or an outage brings (0023, 0500...). */
  failWith?: () => ClovaErrorCode | undefined;
}

/** The request message (the JSON body, or the multipart `message` part). Only V2 exists; one image per call. */
const RequestMessage = Type.Object({
  version: Type.Literal('V2'),
  requestId: Type.String({ minLength: 1 }),
  timestamp: Type.Integer(),
  images: Type.Array(
    Type.Object({
      format: Type.Union(['jpg', 'jpeg', 'png', 'pdf', 'tif', 'tiff'].map((f) => Type.Literal(f))),
      name: Type.String({ minLength: 1 }),
      /** Base64 image bytes, in a JSON request (a multipart request sends the file instead). */
      data: Type.Optional(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9+/]+={0,2}$' })),
    }),
    { minItems: 1, maxItems: 1 },
  ),
});
type RequestMessage = Static<typeof RequestMessage>;

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export function clovaOcrRouter(options: ClovaOcrOptions): Router {
  const stats = { requests: 0, billedReadings: 0 };
  const router = new Router({ prefix: '/clova' });
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_IMAGE_BYTES, files: 2 } }).fields([
    { name: 'message', maxCount: 1 },
    { name: 'file', maxCount: 1 },
  ]);

  const refuse = (ctx: Context, code: ClovaErrorCode) => {
    const [status, message] = CLOVA_ERRORS[code];
    ctx.status = status;
    ctx.body = { code, message, path: ctx.path, traceId: randomBytes(16).toString('hex'), timestamp: Date.now() };
    options.log?.(`clova: ${ctx.path} refused ${code}`);
  };

  /** The request's message and image bytes, or the code CLOVA refuses it with. */
  async function requestOf(ctx: Context): Promise<{ message: RequestMessage; image: Buffer } | ClovaErrorCode> {
    let raw: unknown = (ctx.request as { body?: unknown }).body;
    let file: Buffer | undefined;
    if (ctx.is('multipart/form-data')) {
      try {
        await upload(ctx as never, async () => undefined);
      } catch {
        return '0011';
      }
      // The message comes as a text field, or as a part of its own (a client sending it as a JSON blob).
      const parts = (ctx.request as { files?: Record<string, Array<{ buffer: Buffer }>> }).files ?? {};
      const text = (ctx.request as { body?: { message?: string } }).body?.message ?? parts.message?.[0]?.buffer;
      file = parts.file?.[0]?.buffer;
      try {
        raw = JSON.parse(String(text ?? ''));
      } catch {
        return '0011';
      }
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return '0011';
    if ((raw as { version?: unknown }).version !== 'V2') return '0021';
    // An image by URL is not taken for specialised documents (ID cards): only its bytes.
    if (!Value.Check(RequestMessage, raw) || 'url' in raw.images[0]!) return '0011';
    const data = raw.images[0]!.data;
    const image = file ?? (data === undefined ? undefined : Buffer.from(data, 'base64'));
    return image?.length ? { message: raw, image } : '0011';
  }

  router.post('/custom/v1/:domainId/:invokeKey/document/id-card', async (ctx) => {
    stats.requests += 1;
    if (ctx.get('x-ocr-secret') !== options.secret) return refuse(ctx, '0002');
    const injected = options.failWith?.();
    if (injected) return refuse(ctx, injected);
    const request = await requestOf(ctx);
    if (typeof request === 'string') return refuse(ctx, request);
    stats.billedReadings += 1;
    const image = clovaImageAnswer(cardTextOf(request.image), request.message.images[0]!.name);
    ctx.body = { version: 'V2', requestId: request.message.requestId, timestamp: Date.now(), images: [image] };
    options.log?.(`clova: id-card ${request.message.requestId} read ${String(image.inferResult)}`);
  });

  // Any other path under an invoke URL (another model, a mistyped URL).
  router.all('/custom/{*rest}', (ctx) => refuse(ctx, '0001'));

  router.get('/_stats', (ctx) => {
    ctx.body = stats;
  });

  // A card image this reader reads, as sandbox/id-card-image.ts makes it: an app's test data over HTTP.
  router.get('/_id-card.png', (ctx) => {
    const card = cardOfQuery(ctx.query);
    if (typeof card === 'string') {
      ctx.status = 400;
      ctx.body = { error: card };
      return;
    }
    ctx.type = 'image/png';
    ctx.body = makeIdCardPng(card);
  });
  return router;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The card of `GET /clova/_id-card.png`'s query (CardText's fields: name, birthDate, idNumber, issueDate, kind,
 * licenseNumber, licenseSerial, confident), or what is wrong with it.
 */
export function cardOfQuery(query: Record<string, string | string[] | undefined>): CardText | string {
  const one = (key: string) => {
    const value = query[key];
    return Array.isArray(value) ? undefined : value || undefined;
  };
  const [name, birthDate, idNumber, issueDate, kind, licenseNumber, licenseSerial, confident] = [
    'name',
    'birthDate',
    'idNumber',
    'issueDate',
    'kind',
    'licenseNumber',
    'licenseSerial',
    'confident',
  ].map(one);
  if (!name) return 'name is required (the holder as printed)';
  if (!birthDate || !DATE.test(birthDate)) return 'birthDate is required, YYYY-MM-DD';
  if (issueDate !== undefined && !DATE.test(issueDate)) return 'issueDate must be YYYY-MM-DD';
  if (idNumber !== undefined && !/^\d{6}-?\d{7}$/.test(idNumber)) return 'idNumber must be 13 digits';
  if (kind !== undefined && !(ID_CARD_KINDS as readonly string[]).includes(kind))
    return `kind must be one of ${ID_CARD_KINDS.join(', ')}`;
  if (!!licenseNumber !== !!licenseSerial) return 'licenseNumber and licenseSerial go together';
  if (confident !== undefined && confident !== 'true' && confident !== 'false')
    return 'confident must be true or false';
  return {
    ...(kind ? { kind: kind as CardText['kind'] } : licenseNumber ? { kind: 'driver_license' as const } : {}),
    name,
    birthDate,
    ...(idNumber ? { idNumber } : {}),
    ...(issueDate ? { issueDate } : {}),
    ...(licenseNumber ? { licenseNumber, licenseSerial } : {}),
    ...(confident ? { confident: confident === 'true' } : {}),
  };
}

/** The card text of an image, when it carries one of the form CardText says. */
function cardTextOf(image: Buffer): CardText | undefined {
  const text = readCardText(image);
  return typeof text?.name === 'string' && typeof text.birthDate === 'string' ? text : undefined;
}
