import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ApplicationFailure } from '@temporalio/common';
import { PROVIDER_REQUEST_INVALID } from '../../platform/failures';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';
import { UNREADABLE, readingFromClovaAnswer } from './clova-ocr-answer';
import { imageDecodes, type IdCardImageType } from './image-check';
import type { IdCardReader, IdCardReading } from './reader';

/**
 * The ID-card reader on NAVER CLOVA OCR's ID-card model (Document OCR): `POST {invokeURL}/id-card` with the domain's
 * secret in X-OCR-SECRET, the image as Base64 in a JSON body. CLOVA deduplicates nothing (`requestId` is only a label)
 * and bills every call: the caller keeps a reading it already paid for.
 */
export interface ClovaIdCardReaderOptions {
  /** The domain's invoke URL, …/custom/v1/{domainId}/{invokeKey}/document (ID_CARD_OCR_URL). */
  invokeUrl: string;
  /** The domain's secret key (ID_CARD_OCR_SECRET). */
  secret: string;
  transport: Pick<ProviderHttpOptions, 'timeoutMs' | 'tls'>;
}

/** The image formats we send (the API accepts only these); CLOVA's names for them. */
const FORMATS: Record<IdCardImageType, 'png' | 'jpg'> = { 'image/png': 'png', 'image/jpeg': 'jpg' };

/** CLOVA's error answer (HTTP 4xx/5xx): `{code, message, path, traceId, timestamp}`; we read the code. */
const ClovaError = Type.Object({ code: Type.String(), message: Type.String() });

export class ClovaIdCardReader implements IdCardReader {
  private readonly http: ProviderHttpOptions;

  constructor(options: ClovaIdCardReaderOptions) {
    this.http = {
      baseUrl: options.invokeUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      headers: { 'x-ocr-secret': options.secret },
    };
  }

  async read(input: { image: Buffer; contentType: string; requestId: string }): Promise<IdCardReading> {
    const type = imageTypeOf(input.contentType);
    // A bad upload (cut short, corrupt) reads as no card, as a photo without one does, and CLOVA is not asked (nor
    // billed): a body it then says it cannot take (0011) is our request's fault, never the person's.
    if (!(await imageDecodes(input.image, type))) return UNREADABLE;
    const request = {
      version: 'V2',
      // CLOVA asks for a UUID: one derived from ours, so its logs and ours name the same call.
      requestId: uuidOf(input.requestId),
      timestamp: Date.now(),
      images: [{ format: FORMATS[type], name: 'id-card', data: input.image.toString('base64') }],
    };
    // A 5xx (0500, 0501, 1021) is ProviderUnavailable from requestProvider; a 4xx carries CLOVA's code.
    const answer = await requestProvider<unknown>(this.http, 'POST', '/id-card', request);
    if (answer.status < 400) return readingFromClovaAnswer(answer.body);
    return refused(expectAnswer(ClovaError, answer.body, 'a CLOVA OCR error'));
  }
}

function imageTypeOf(contentType: string): IdCardImageType {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (!(type in FORMATS)) throw new Error(`CLOVA OCR is sent ID cards as PNG or JPEG, not ${contentType}`);
  return type as IdCardImageType;
}

/**
 * CLOVA's refusals (its common error table), none of them a reading. 0011 ("Request body invalid") for an image that
 * decodes says our request is wrong: it fails without a retry (the same request would be refused again), for an
 * operator, and is never read as no card. Everything else is thrown ProviderUnavailable and retried: its limits and
 * failures pass, and a refusal of us (a wrong secret or URL) is retried while an operator fixes the setting the
 * message names.
 */
function refused(error: { code: string; message: string }): never {
  const said = `${error.code} ${error.message}`;
  switch (error.code) {
    case '0011':
      throw ApplicationFailure.create({
        type: PROVIDER_REQUEST_INVALID,
        nonRetryable: true,
        message: `CLOVA OCR refused our request body (${said}) for an image that decodes: the adapter must be fixed`,
      });
    case '0002':
      throw new ProviderUnavailable(`CLOVA OCR refused our secret (${said}): check ID_CARD_OCR_SECRET`);
    case '0001':
    case '0022':
      throw new ProviderUnavailable(`CLOVA OCR does not know our invoke URL (${said}): check ID_CARD_OCR_URL`);
    case '0023':
    case '0025':
      throw new ProviderUnavailable(`CLOVA OCR is limiting our calls (${said})`);
    case '0021':
      // We send V2, the only version CLOVA documents: this adapter must follow a change of protocol.
      throw new ProviderUnavailable(`CLOVA OCR no longer takes protocol V2 (${said})`);
    case '0500':
    case '0501':
    case '1021':
      throw new ProviderUnavailable(`CLOVA OCR failed (${said})`);
    default:
      throw new ProviderAnswerInvalid(`CLOVA OCR answered an undocumented error (${said})`, said);
  }
}

/** A UUID (version 8: custom, RFC 9562) derived from any id of ours. */
function uuidOf(id: string): string {
  const hex = createHash('sha256').update(id).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
