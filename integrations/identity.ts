import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface PassTokenIntrospection {
  active: boolean;
  passRequestId?: string;
  expiresAt?: string;
}

/** Whose verification a pass token is, and until when: what the registration and sign-in ask of the provider's port. */
export interface PassTokens {
  introspectPassToken(passToken: string): Promise<PassTokenIntrospection>;
}

/**
 * IDENTITY_PROVIDER=callback: the provider issues the pass token in its own app, posts each result to POST
 * /v1/auth/pass/callback, and answers its introspection (this client, with our client secret).
 */
export class IdentityProviderClient implements PassTokens {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; clientSecret: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { authorization: `Bearer ${options.clientSecret}` },
    };
  }

  async introspectPassToken(passToken: string): Promise<PassTokenIntrospection> {
    const { body } = await callProvider<PassTokenIntrospection>(this.http, 'POST', '/pass/v1/tokens/introspect', {
      passToken,
    });
    return body;
  }
}
