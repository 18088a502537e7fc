import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { ApplicationFailure } from '@temporalio/common';
import { PROVIDER_REQUEST_INVALID } from '../../platform/failures';
import { ClovaIdCardReader } from '../../integrations/id-card/clova-ocr';
import { readingFromClovaAnswer } from '../../integrations/id-card/clova-ocr-answer';
import { ProviderAnswerInvalid, ProviderUnavailable } from '../../integrations/provider-http';
import { clovaOcrRouter, type ClovaErrorCode } from '../../sandbox/clova-ocr';
import { makeIdCardPng, type CardText } from '../../sandbox/id-card-image';

/**
 * The CLOVA OCR adapter against the CLOVA emulator over real HTTP, and both against NAVER's published request example
 * and a captured answer (fixtures/clova/SOURCES.md).
 */
const fixture = (name: string): any => JSON.parse(readFileSync(join(__dirname, 'fixtures/clova', name), 'utf8'));
/** A JPEG photo without a card (ours, fixtures/clova/SOURCES.md). */
const jpeg = () => readFileSync(join(__dirname, 'fixtures/clova/image-baseline.jpg'));
const SECRET = 'clova-secret-for-tests';

let server: Server;
let base: string;
let failWith: ClovaErrorCode | undefined;
/** What a stub provider under /stub answers (an answer the emulator never gives). */
let stub: { status: number; body: unknown };
const sent: Array<{ headers: IncomingHttpHeaders; body: any }> = [];

beforeAll(async () => {
  const koa = new Koa();
  koa.use(bodyParser({ enableTypes: ['json', 'form'], jsonLimit: '20mb' }));
  koa.use(async (ctx, next) => {
    if (ctx.path.startsWith('/stub/')) {
      ctx.status = stub.status;
      ctx.body = stub.body;
      return;
    }
    if (ctx.path.endsWith('/id-card')) sent.push({ headers: ctx.headers, body: ctx.request.body });
    await next();
  });
  koa.use(clovaOcrRouter({ secret: SECRET, failWith: () => failWith }).routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());
afterEach(() => {
  failWith = undefined;
});

const invokeUrl = () => `${base}/clova/custom/v1/12345/0123456789abcdef/document`;
const reader = (options: { invokeUrl?: string; secret?: string } = {}) =>
  new ClovaIdCardReader({ invokeUrl: invokeUrl(), secret: SECRET, transport: { timeoutMs: 5000 }, ...options });
const read = (card: CardText | Buffer, r = reader(), contentType = 'image/png') =>
  r.read({ image: Buffer.isBuffer(card) ? card : makeIdCardPng(card), contentType, requestId: 'reg-1/ocr' });
const lastSent = () => sent[sent.length - 1]!;
const stats = async () => (await fetch(`${base}/clova/_stats`)).json() as Promise<Record<string, number>>;

/** The keys and value types of a JSON value, to compare a request with a published example. */
const shape = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shape)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : typeof value;

const RESIDENT: CardText = {
  name: '홍길동',
  birthDate: '1980-01-01',
  idNumber: '8001012345678',
  issueDate: '2020-08-16',
};

describe('the CLOVA OCR request', () => {
  it('sends X-OCR-SECRET, version V2, a UUID derived from our request id, a millisecond timestamp and one Base64 image', async () => {
    const image = makeIdCardPng(RESIDENT);
    const before = Date.now();
    await reader().read({ image, contentType: 'image/png', requestId: 'reg-42/ocr-1' });
    const { headers, body } = lastSent();
    expect(headers['x-ocr-secret']).toBe(SECRET);
    expect(headers['content-type']).toBe('application/json');
    expect(body.version).toBe('V2');
    expect(body.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await reader().read({ image, contentType: 'image/png', requestId: 'reg-42/ocr-1' });
    expect(lastSent().body.requestId).toBe(body.requestId);
    expect(Number.isInteger(body.timestamp)).toBe(true);
    expect(body.timestamp).toBeGreaterThanOrEqual(before);
    expect(body.timestamp).toBeLessThanOrEqual(Date.now());
    expect(body.images).toEqual([{ format: 'png', name: 'id-card', data: image.toString('base64') }]);
  });

  it('has the keys and value types of the published request example', async () => {
    await read(RESIDENT);
    expect(shape(lastSent().body)).toEqual(shape(fixture('document-request.json')));
  });

  it('names a JPEG image jpg', async () => {
    await read(jpeg(), reader(), 'image/jpeg');
    expect(lastSent().body.images[0]).toEqual({ format: 'jpg', name: 'id-card', data: jpeg().toString('base64') });
  });

  it('refuses an image that is neither PNG nor JPEG without calling CLOVA', async () => {
    const count = sent.length;
    await expect(read(RESIDENT, reader(), 'image/gif')).rejects.toThrow('PNG or JPEG, not image/gif');
    expect(sent).toHaveLength(count);
  });
});

describe('readings', () => {
  it('reads a resident card: the name, the birth date from the number, the number and the issue date', async () => {
    expect(await read(RESIDENT)).toEqual({
      kind: 'resident_id',
      confident: true,
      name: '홍길동',
      birthDate: '1980-01-01',
      idNumber: '8001012345678',
      issueDate: '2020-08-16',
    });
  });

  it.each([
    ['8001011234567', '1980-01-01'],
    ['0503154123456', '2005-03-15'],
    ['9912319123456', '1899-12-31'],
    ['8504126123456', '1985-04-12'],
    ['0102293123456', ''],
  ])('takes the birth date of %s from its first six digits and century digit: "%s"', async (idNumber, birthDate) => {
    const reading = await read({ name: '김철수', birthDate: '1970-01-01', idNumber });
    expect(reading.birthDate).toBe(birthDate);
  });

  it('reads the birth date of a card whose number is only half readable, and no number', async () => {
    expect(await read({ name: '김철수', birthDate: '1980-02-02' })).toEqual({
      kind: 'resident_id',
      confident: true,
      name: '김철수',
      birthDate: '1980-02-02',
    });
  });

  it('reads a driver licence number and serial from the dl fields', async () => {
    const card: CardText = {
      kind: 'driver_license',
      name: '홍길동',
      birthDate: '1982-11-20',
      idNumber: '8211201234567',
      licenseNumber: '11-16-044391-61',
      licenseSerial: '9WSWRQ',
      issueDate: '2019-05-01',
    };
    expect(await read(card)).toEqual({
      kind: 'driver_license',
      confident: true,
      name: '홍길동',
      birthDate: '1982-11-20',
      idNumber: '8211201234567',
      issueDate: '2019-05-01',
      licenseNumber: '111604439161',
      licenseSerial: '9WSWRQ',
    });
  });

  it('reads a passport: the Korean full name and the printed birth date', async () => {
    const card: CardText = { kind: 'passport', name: '홍길동', birthDate: '1990-07-04', issueDate: '2021-01-05' };
    expect(await read(card)).toEqual({
      kind: 'passport',
      confident: true,
      name: '홍길동',
      birthDate: '1990-07-04',
      issueDate: '2021-01-05',
    });
  });

  it('reads an alien registration card: its number and the birth date the number carries', async () => {
    const card: CardText = {
      kind: 'alien_registration',
      name: 'JOHN SMITH',
      birthDate: '1985-04-12',
      idNumber: '8504125123456',
      issueDate: '2022-03-03',
    };
    expect(await read(card)).toEqual({
      kind: 'alien_registration',
      confident: true,
      name: 'JOHN SMITH',
      birthDate: '1985-04-12',
      idNumber: '8504125123456',
      issueDate: '2022-03-03',
    });
  });

  it('passes on a reading CLOVA is not confident of as not confident', async () => {
    expect(await read({ ...RESIDENT, confident: false })).toEqual({
      kind: 'resident_id',
      confident: false,
      name: '홍길동',
      birthDate: '1980-01-01',
      idNumber: '8001012345678',
      issueDate: '2020-08-16',
    });
  });

  it('reads an image with no card as unreadable, and CLOVA bills it', async () => {
    const before = await stats();
    expect(await read(jpeg(), reader(), 'image/jpeg')).toEqual({
      kind: 'unknown',
      confident: false,
      name: '',
      birthDate: '',
    });
    expect((await stats()).billedReadings).toBe(before.billedReadings! + 1);
  });
});

describe("CLOVA's refusals", () => {
  /** The error a read ends with (the read must fail). */
  const failure = async (reading: Promise<unknown>): Promise<Error> => {
    try {
      await reading;
    } catch (error) {
      return error as Error;
    }
    throw new Error('the read did not fail');
  };

  it('names ID_CARD_OCR_SECRET when CLOVA refuses our secret (0002), and stays retryable', async () => {
    const error = await failure(read(RESIDENT, reader({ secret: 'not-the-secret' })));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toBe(
      'CLOVA OCR refused our secret (0002 Secret key validate failed.): check ID_CARD_OCR_SECRET',
    );
  });

  it('names ID_CARD_OCR_URL when CLOVA does not know the invoke URL (0001)', async () => {
    const error = await failure(read(RESIDENT, reader({ invokeUrl: `${base}/clova/custom/v1/12345/key/documnt` })));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toBe('CLOVA OCR does not know our invoke URL (0001 URL is invalid.): check ID_CARD_OCR_URL');
  });

  it('names ID_CARD_OCR_URL when CLOVA does not know the domain (0022)', async () => {
    failWith = '0022';
    const error = await failure(read(RESIDENT));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toBe(
      'CLOVA OCR does not know our invoke URL (0022 Request domain invalid.): check ID_CARD_OCR_URL',
    );
  });

  it.each([
    ['empty', Buffer.alloc(0), 'image/png'],
    ['cut short after its card text', makeIdCardPng(RESIDENT).subarray(0, -30), 'image/png'],
    [
      'a PNG signature on something else',
      Buffer.concat([makeIdCardPng(RESIDENT).subarray(0, 8), Buffer.from('cat')]),
      'image/png',
    ],
    ['a JPEG cut short', jpeg().subarray(0, 600), 'image/jpeg'],
    ['a PNG said to be a JPEG', makeIdCardPng(RESIDENT), 'image/jpeg'],
  ])('reads an upload that does not decode (%s) as unreadable, without asking CLOVA', async (_what, image, type) => {
    const before = await stats();
    expect(await read(image, reader(), type)).toEqual({ kind: 'unknown', confident: false, name: '', birthDate: '' });
    expect((await stats()).requests).toBe(before.requests);
  });

  it('fails without a retry, for an operator, when CLOVA refuses the body of an image that decodes (0011), never reading no card', async () => {
    failWith = '0011';
    const error = await failure(read(RESIDENT));
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: PROVIDER_REQUEST_INVALID, nonRetryable: true });
    expect(error.message).toContain('0011 Request body invalid.');
  });

  it.each([
    ['0023', 'API request count reach the upper limit.'],
    ['0025', 'Calls to this api have exceeded the rate limit.'],
  ] as const)('treats CLOVA limiting our calls (%s) as an outage', async (code, message) => {
    failWith = code;
    const error = await failure(read(RESIDENT));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toBe(`CLOVA OCR is limiting our calls (${code} ${message})`);
  });

  it.each(['0500', '0501', '1021'] as const)('treats a CLOVA failure (%s, HTTP 500) as an outage', async (code) => {
    failWith = code;
    const error = await failure(read(RESIDENT));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error).not.toBeInstanceOf(ProviderAnswerInvalid);
    expect(error.message).toMatch(/answered 500 on \/id-card$/);
  });

  it('treats a refusal of protocol V2 (0021) as an outage naming it', async () => {
    failWith = '0021';
    const error = await failure(read(RESIDENT));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toBe('CLOVA OCR no longer takes protocol V2 (0021 Protocol version not support.)');
  });

  it('maps the published error body (0002) as it maps the emulator answering it', async () => {
    stub = { status: 401, body: fixture('error-0002.json') };
    const error = await failure(read(RESIDENT, reader({ invokeUrl: `${base}/stub/document` })));
    expect(error).toBeInstanceOf(ProviderUnavailable);
    expect(error.message).toMatch(/check ID_CARD_OCR_SECRET$/);
  });

  it('refuses an undocumented error code as an invalid answer, never a reading', async () => {
    stub = { status: 400, body: { code: '0999', message: 'Something new.' } };
    const error = await failure(read(RESIDENT, reader({ invokeUrl: `${base}/stub/document` })));
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
  });

  it.each([
    ['no image', { images: [] }],
    ['SUCCESS without idCard', { images: [{ inferResult: 'SUCCESS', message: 'SUCCESS' }] }],
    ['isConfident not a boolean', { images: [{ inferResult: 'SUCCESS', idCard: { result: { isConfident: 'yes' } } }] }],
    [
      'a field that is not a list',
      {
        images: [
          { inferResult: 'SUCCESS', idCard: { result: { isConfident: true, ic: { name: { text: '홍길동' } } } } },
        ],
      },
    ],
    ['an error body without a code', { message: 'no' }],
  ])('refuses an answer with %s as invalid, never a reading', async (_what, body) => {
    stub = { status: 'message' in body ? 400 : 200, body };
    const error = await failure(read(RESIDENT, reader({ invokeUrl: `${base}/stub/document` })));
    expect(error).toBeInstanceOf(ProviderAnswerInvalid);
  });
});

describe('the captured answer (a third-party capture, fixtures/clova/SOURCES.md)', () => {
  it('reads to the resident card it shows', () => {
    expect(readingFromClovaAnswer({ images: fixture('id-card-response-ic.thirdparty.json') })).toEqual({
      kind: 'resident_id',
      confident: true,
      name: '홍길동',
      birthDate: '1980-01-01',
      idNumber: '8001012345678',
      issueDate: '2020-08-16',
    });
  });

  it('has the shape the emulator answers in', async () => {
    const [captured] = fixture('id-card-response-ic.thirdparty.json');
    const answer = await post(jsonRequest(makeIdCardPng(RESIDENT)));
    expect(answer.status).toBe(200);
    const [image] = answer.body.images;
    const keys = (value: object) => Object.keys(value).sort();
    expect(keys(image)).toEqual(keys(captured));
    expect(keys(image.idCard)).toEqual(keys(captured.idCard));
    expect(keys(image.idCard.result)).toEqual(keys(captured.idCard.result));
    expect(Object.keys(image.idCard.result.ic).every((k) => k in captured.idCard.result.ic)).toBe(true);
    // A field's shape, with one polygon of each kind (the number of polygons depends on the picture).
    const fieldShape = (fields: any[]) =>
      shape(
        fields.map((f) => ({
          ...f,
          boundingPolys: f.boundingPolys.slice(0, 1),
          maskingPolys: f.maskingPolys.slice(0, 1),
        })),
      );
    for (const field of ['name', 'personalNum', 'issueDate'])
      expect(fieldShape(image.idCard.result.ic[field])).toEqual(fieldShape(captured.idCard.result.ic[field]));
    expect(image.idCard.result.ic.issueDate[0].formatted).toEqual({ year: '2020', month: '08', day: '16' });
  });
});

describe('the CLOVA emulator', () => {
  it('takes a multipart request: a message part and a file part', async () => {
    const form = new FormData();
    const message = {
      version: 'V2',
      requestId: 'multipart-1',
      timestamp: Date.now(),
      images: [{ format: 'png', name: 'card' }],
    };
    form.set('message', JSON.stringify(message));
    form.set('file', new Blob([makeIdCardPng(RESIDENT)], { type: 'image/png' }), 'card.png');
    const answer = await post({ headers: { 'x-ocr-secret': SECRET }, body: form });
    expect(answer.status).toBe(200);
    expect(answer.body.requestId).toBe('multipart-1');
    expect(answer.body.images[0].name).toBe('card');
    expect(readingFromClovaAnswer(answer.body).idNumber).toBe('8001012345678');
  });

  it('refuses a version other than V2 (0021) in the published error envelope', async () => {
    const answer = await post(jsonRequest(makeIdCardPng(RESIDENT), { version: 'V1' }));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      code: '0021',
      message: 'Protocol version not support.',
      path: '/clova/custom/v1/12345/0123456789abcdef/document/id-card',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      timestamp: expect.any(Number),
    });
  });

  it.each([
    ['an image by URL', { images: [{ format: 'png', name: 'card', url: 'https://example.com/card.png' }] }],
    [
      'two images',
      {
        images: [
          { format: 'png', name: 'a', data: 'AAAA' },
          { format: 'png', name: 'b', data: 'AAAA' },
        ],
      },
    ],
    ['a GIF', { images: [{ format: 'gif', name: 'card', data: 'AAAA' }] }],
    ['no requestId', { requestId: undefined }],
  ])('refuses %s (0011)', async (_what, change) => {
    const answer = await post(jsonRequest(makeIdCardPng(RESIDENT), change));
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('0011');
  });

  it('bills every accepted request, a repeated requestId too, and no refused one', async () => {
    const before = await stats();
    await read(RESIDENT);
    await read(RESIDENT);
    await read(RESIDENT, reader({ secret: 'wrong' })).catch(() => undefined);
    const after = await stats();
    expect(after.billedReadings! - before.billedReadings!).toBe(2);
    expect(after.requests! - before.requests!).toBe(3);
  });
});

/** A JSON request to the emulator's id-card path, with changes to the message. */
function jsonRequest(image: Buffer, change: Record<string, unknown> = {}) {
  const message = {
    version: 'V2',
    requestId: 'direct-1',
    timestamp: Date.now(),
    images: [{ format: 'png', name: 'card', data: image.toString('base64') }],
    ...change,
  };
  return { headers: { 'x-ocr-secret': SECRET, 'content-type': 'application/json' }, body: JSON.stringify(message) };
}

async function post(request: { headers: Record<string, string>; body: string | FormData }) {
  const response = await fetch(`${invokeUrl()}/id-card`, { method: 'POST', ...request });
  return { status: response.status, body: (await response.json()) as any };
}
