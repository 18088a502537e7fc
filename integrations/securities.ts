import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface SecuritiesHoldings {
  firmCode: string;
  firmName: string;
  accounts: { accountNo: string; balance: number }[];
}
export type SecuritiesProof =
  { method: 'pin'; accountNo: string; pin: string } | { method: 'auth_code'; authCode: string };

/** HTTP client of the securities firms' account-inquiry API. */
export class SecuritiesClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; clientSecret: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { authorization: `Bearer ${options.clientSecret}` },
    };
  }

  /** The holder's accounts at the firm, once they prove one (PIN) or present an auth code from the firm's app. */
  async verify(input: { firmCode: string; holder: string } & SecuritiesProof): Promise<SecuritiesHoldings> {
    return (await callProvider<SecuritiesHoldings>(this.http, 'POST', '/securities/v1/verify', input)).body;
  }
}
