import { Type } from '@sinclair/typebox';
import { callProvider, expectAnswer, type ProviderHttpOptions } from './provider-http';

/** What the authority answers of a card; anything else is ProviderAnswerInvalid (never read as valid). */
export const ID_CARD_CHECK_RESULTS = [
  'valid',
  'reported_lost',
  'reported_stolen',
  'not_issued',
  'mismatch',
  'expired',
] as const;
export type IdCardCheckResult = (typeof ID_CARD_CHECK_RESULTS)[number];
const CheckAnswer = Type.Object({
  result: Type.Union(ID_CARD_CHECK_RESULTS.map((r) => Type.Literal(r))),
  checkedAt: Type.String({ format: 'date-time' }),
});

export interface IdCardToCheck {
  idCardType: string;
  name: string;
  birthDate: string;
  idNumber: string;
  issueDate: string;
}

/**
 * HTTP client of the ID-card authenticity service: whether a card of this number, issue date and holder was issued
 * and is current (not reported lost or stolen, not replaced). The OCR says what a card reads; this says it is real.
 */
export class IdCardCheckClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; apiKey: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { authorization: `Bearer ${options.apiKey}` },
    };
  }

  async check(card: IdCardToCheck, requestId: string): Promise<IdCardCheckResult> {
    const { body } = await callProvider<unknown>(this.http, 'POST', '/idcheck/v1/verifications', card, {
      'idempotency-key': requestId,
    });
    return expectAnswer(CheckAnswer, body, 'an ID-card check').result;
  }
}
