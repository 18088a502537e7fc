import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface IdCardReading { name: string; birthDate: string; confidence: number }

/** HTTP client of the OCR provider that reads Korean ID cards. */
export class OcrProviderClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs };
  }

  /** `requestId` makes the call idempotent at the provider: a retry returns the first reading, billed once. */
  async readIdCard(input: { image: Buffer; contentType: string; idCardType: string; requestId: string }): Promise<IdCardReading> {
    const { body } = await callProvider<IdCardReading>(this.http, 'POST', '/ocr/v1/id-cards', {
      image: input.image.toString('base64'), contentType: input.contentType, idCardType: input.idCardType,
    }, { 'idempotency-key': input.requestId });
    return body;
  }
}
