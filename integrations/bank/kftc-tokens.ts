import { ProviderUnavailable, expectAnswer, requestProvider, type ProviderHttpOptions } from '../provider-http';
import { InstitutionToken, UserToken } from './kftc-answers';
import { BankConsentRefused, type BankConsentTokens } from './rail';

/** A refresh this long before the institution token expires (tokens live 90 days). */
const EARLY_MS = 24 * 3600_000;

/**
 * Tokens of the open banking centre (POST /oauth/2.0/token, a form): the institution's own (client credentials,
 * scope `oob`, for real-name inquiries, deposits and result inquiries), kept in memory and renewed a day before it
 * expires, one request at a time; and a person's (an authorization code, or a refresh token), handed to the caller,
 * who keeps it encrypted (the consent).
 */
export class KftcTokens {
  private institution?: { token: string; expiresAt: number };
  private pending?: Promise<string>;

  constructor(
    private readonly http: ProviderHttpOptions,
    private readonly client: { clientId: string; clientSecret: string },
  ) {}

  async institutionToken(): Promise<string> {
    if (this.institution && this.institution.expiresAt - EARLY_MS > Date.now()) return this.institution.token;
    this.pending ??= this.fetchInstitutionToken().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** The centre refused our token: the next call asks for a new one. */
  forgetInstitutionToken(): void {
    this.institution = undefined;
  }

  async userToken(grant: Record<string, string>): Promise<{ userSeqNo: string; tokens: BankConsentTokens }> {
    const answer = await this.tokenRequest(grant);
    // A code or refresh token refused (400, as OAuth answers an invalid grant: expired, used, not ours) ends the
    // consent; anything else (401 our client credentials refused, a 429, a 5xx) is an outage, retried, ending nothing.
    if (answer.status === 400) throw new BankConsentRefused(codeOf(answer.body));
    if (answer.status >= 400)
      throw new ProviderUnavailable(
        `the open banking centre answered ${answer.status} to a token request (${codeOf(answer.body)})`,
      );
    const token = expectAnswer(UserToken, answer.body, 'a person token');
    return {
      userSeqNo: token.user_seq_no,
      tokens: {
        accessToken: token.access_token,
        refreshToken: token.refresh_token,
        scope: token.scope,
        accessExpiresAt: new Date(Date.now() + token.expires_in * 1000),
      },
    };
  }

  private async fetchInstitutionToken(): Promise<string> {
    const answer = await this.tokenRequest({ grant_type: 'client_credentials', scope: 'oob' });
    if (answer.status >= 400)
      throw new ProviderUnavailable(
        `the open banking centre refused our client credentials (${codeOf(answer.body)}): check BANK_CLIENT_ID and BANK_CLIENT_SECRET`,
      );
    const token = expectAnswer(InstitutionToken, answer.body, 'the institution token');
    this.institution = { token: token.access_token, expiresAt: Date.now() + token.expires_in * 1000 };
    return token.access_token;
  }

  private tokenRequest(grant: Record<string, string>) {
    return requestProvider<unknown>(
      this.http,
      'POST',
      '/oauth/2.0/token',
      new URLSearchParams({ client_id: this.client.clientId, client_secret: this.client.clientSecret, ...grant }),
    );
  }
}

const codeOf = (body: unknown): string => {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return String(fields.rsp_code ?? fields.error ?? 'no code').slice(0, 32);
};
