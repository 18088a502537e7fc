import { callProvider, type ProviderHttpOptions } from './provider-http';

/** What the OCR read; `idNumber` and `issueDate` when the card shows them (a resident card's number, its issue date). */
export interface IdCardReading {
  name: string;
  birthDate: string;
  confidence: number;
  idNumber?: string;
  issueDate?: string | null;
}

/** HTTP client of the OCR provider that reads Korean ID cards. */
export class OcrProviderClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs };
  }

  /** `requestId` makes the call idempotent at the provider: a retry returns the first reading, billed once. */
  async readIdCard(input: {
    image: Buffer;
    contentType: string;
    idCardType: string;
    requestId: string;
  }): Promise<IdCardReading> {
    const { body } = await callProvider<IdCardReading>(
      this.http,
      'POST',
      '/ocr/v1/id-cards',
      {
        image: input.image.toString('base64'),
        contentType: input.contentType,
        idCardType: input.idCardType,
      },
      { 'idempotency-key': input.requestId },
    );
    return body;
  }
}
