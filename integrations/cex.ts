import { createHash, randomBytes } from 'node:crypto';
import { DomainError } from '../platform/domain-error';
import { PROVIDER_REJECTED, callProvider, type ProviderHttpOptions } from './provider-http';

export interface CexTokens {
  access_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope: string;
}
export interface CexProfile {
  accountId: string;
  name: string;
  permissions: { read: boolean; withdraw: boolean };
}

/** OAuth 2.0 (authorization code + PKCE S256) and the account API of a crypto exchange. */
export class CexClient {
  private readonly http: ProviderHttpOptions;

  constructor(
    private readonly options: { baseUrl: string; clientId: string; clientSecret: string; timeoutMs: number },
  ) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs };
  }

  static pkce(): { verifier: string; challenge: string } {
    const verifier = randomBytes(32).toString('base64url');
    return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
  }

  authorizationUrl(input: {
    state: string;
    redirectUri: string;
    scopes: string[];
    codeChallenge: string;
    loginHint?: string;
  }): string {
    const url = new URL('/cex/oauth/authorize', this.options.baseUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.options.clientId,
      redirect_uri: input.redirectUri,
      state: input.state,
      scope: input.scopes.join(' '),
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
      ...(input.loginHint ? { login_hint: input.loginHint } : {}),
    }).toString();
    return url.toString();
  }

  /** Exchanges the code (RFC 6749 section 4.1.3, form-encoded); a refusal (4xx) is CexGrantError. */
  async exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string }): Promise<CexTokens> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
      client_id: this.options.clientId,
      client_secret: this.options.clientSecret,
    });
    try {
      return (await callProvider<CexTokens>(this.http, 'POST', '/cex/oauth/token', form)).body;
    } catch (error) {
      if ((error as { type?: unknown }).type !== PROVIDER_REJECTED) throw error;
      const [answer] = ((error as { details?: unknown[] }).details ?? []) as Array<
        { error?: string; error_description?: string } | undefined
      >;
      throw new CexGrantError(answer?.error_description ?? answer?.error ?? 'the exchange refused the code');
    }
  }

  async profile(accessToken: string): Promise<CexProfile> {
    return (
      await callProvider<CexProfile>(this.http, 'GET', '/cex/v1/me', undefined, {
        authorization: `Bearer ${accessToken}`,
      })
    ).body;
  }

  async balances(accessToken: string): Promise<{ currency: string; balance: string }[]> {
    return (
      await callProvider<{ balances: { currency: string; balance: string }[] }>(
        this.http,
        'GET',
        '/cex/v1/balances',
        undefined,
        { authorization: `Bearer ${accessToken}` },
      )
    ).body.balances;
  }
}

/** The exchange refused the authorization code (expired, used, mismatched): the API answers 422 cex-grant-refused. */
export class CexGrantError extends DomainError {
  constructor(message: string) {
    super('cex-grant-refused', message);
  }
}
