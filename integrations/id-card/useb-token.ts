import { Type } from '@sinclair/typebox';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';

/**
 * useB's access token: `POST {authUrl}/oauth/token` with HTTP Basic (client id and secret) and no body, answering a
 * JWT and when it expires, as Korean wall-clock time. One token serves every check until a minute before it expires;
 * one request for it at a time (checks that need it meanwhile wait for the same answer).
 */
const TokenAnswer = Type.Union([
  Type.Object({
    success: Type.Literal(true),
    message: Type.String(),
    jwt: Type.String({ minLength: 1 }),
    /** 'YYYY-MM-DD HH:MM:SS' without a zone (the docs' example: "2021-05-08 18:39:00"). */
    expires_in: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' }),
    transaction_id: Type.Optional(Type.String()),
  }),
  Type.Object({
    success: Type.Literal(false),
    message: Type.String(),
    error_code: Type.Optional(Type.String()),
    transaction_id: Type.Optional(Type.String()),
  }),
]);

/** Renewed this long before it expires, so a check never carries a token that expires on the way. */
const RENEW_BEFORE_MS = 60_000;

export class UsebToken {
  private current: { jwt: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly http: ProviderHttpOptions,
    private readonly credentials: { clientId: string; clientSecret: string },
    private readonly now: () => number,
  ) {}

  async get(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return this.current.jwt;
    this.pending ??= this.issue().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forgets a token useB refused (C011, C013), unless another check has renewed it already. */
  drop(jwt: string): void {
    if (this.current?.jwt === jwt) this.current = undefined;
  }

  private async issue(): Promise<string> {
    const basic = Buffer.from(`${this.credentials.clientId}:${this.credentials.clientSecret}`).toString('base64');
    const { body } = await requestProvider<unknown>(this.http, 'POST', '/oauth/token', undefined, {
      authorization: `Basic ${basic}`,
    });
    const answer = expectAnswer(TokenAnswer, body, 'a useB token');
    if (!answer.success) {
      // C003 client_info_invalid: a refusal of us, retried while an operator fixes the settings.
      const fix = answer.error_code === 'C003' ? ': check ID_CARD_CHECK_CLIENT_ID and ID_CARD_CHECK_CLIENT_SECRET' : '';
      throw new ProviderUnavailable(
        `useB refused us a token (${answer.error_code ?? 'no code'} ${answer.message})${fix}`,
      );
    }
    const expiresAt = Date.parse(`${answer.expires_in.replace(' ', 'T')}+09:00`);
    if (Number.isNaN(expiresAt))
      throw new ProviderAnswerInvalid(`useB's token expires at no time (${answer.expires_in})`, answer.expires_in);
    // Read as Korean time; useB's Go SDK reads the same string as UTC. An expiry already past as the token arrives
    // means the zone (or a clock) is not what we read: the token is then kept until useB refuses it (C011, renewed
    // by the check), not asked for again at every check.
    const renewAt = expiresAt - RENEW_BEFORE_MS;
    this.current = { jwt: answer.jwt, renewAt: renewAt > this.now() ? renewAt : Number.POSITIVE_INFINITY };
    return answer.jwt;
  }
}
