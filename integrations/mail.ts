import { Type } from '@sinclair/typebox';
import { callProvider, expectAnswer, type ProviderHttpOptions } from './provider-http';

/** The mail provider's answer to a send, as its API documents it; anything else is ProviderAnswerInvalid. */
const SendAnswer = Type.Object({ messageId: Type.String({ minLength: 1 }) });

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * HTTP client of the transactional mail provider (`POST /mail/v1/messages`, `X-Api-Key`). `messageKey` makes a send
 * idempotent at the provider: a retried send answers the first message's id and delivers nothing more.
 */
export class MailClient {
  private readonly http: ProviderHttpOptions;
  private readonly from: string;

  constructor(options: { baseUrl: string; apiKey: string; from: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, headers: { 'x-api-key': options.apiKey } };
    this.from = options.from;
  }

  async send(message: MailMessage, messageKey: string): Promise<{ messageId: string }> {
    const { body } = await callProvider<unknown>(
      this.http,
      'POST',
      '/mail/v1/messages',
      { from: this.from, ...message },
      { 'idempotency-key': messageKey },
    );
    return expectAnswer(SendAnswer, body, 'a mail send');
  }
}
