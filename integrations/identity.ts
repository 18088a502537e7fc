import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface PassTokenIntrospection {
  active: boolean;
  passRequestId?: string;
  expiresAt?: string;
}

/** HTTP client of the identity verification (PASS) provider: server-side token introspection. */
export class IdentityProviderClient {
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
