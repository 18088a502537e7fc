import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface AccountHolder { bankCode: string; bankName: string; accountNo: string; holder: string }
export interface BankWithdrawal {
  withdrawalId: string; reference: string; amount: number; status: 'pending' | 'completed' | 'rejected'; reason: string | null;
}

/**
 * HTTP client of the bank's corporate API (the sandbox's /bank/v1 speaks the same). Every money-moving call carries
 * our `reference`, which the bank uses to answer a repeated call with the first result instead of moving money again.
 */
export class BankClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; clientSecret: string; timeoutMs: number }) {
    this.http = { baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, headers: { authorization: `Bearer ${options.clientSecret}` } };
  }

  /** The registered holder of an account (real-name inquiry); 404 when the account does not exist. */
  async accountHolder(bankCode: string, accountNo: string): Promise<AccountHolder> {
    return (await callProvider<AccountHolder>(this.http, 'POST', '/bank/v1/account-holder', { bankCode, accountNo })).body;
  }

  /** Deposits from our operating account (1-KRW verification, refunds). */
  async deposit(input: { bankCode: string; accountNo: string; amount: number; remark: string; reference: string }): Promise<{ depositId: string }> {
    return (await callProvider<{ depositId: string }>(this.http, 'POST', '/bank/v1/deposits', input)).body;
  }

  /** Debits a user's account into our operating account; settles later (webhook or polling). */
  async withdraw(input: { bankCode: string; accountNo: string; amount: number; remark: string; reference: string }): Promise<BankWithdrawal> {
    return (await callProvider<BankWithdrawal>(this.http, 'POST', '/bank/v1/withdrawals', input)).body;
  }

  async withdrawal(reference: string): Promise<BankWithdrawal> {
    return (await callProvider<BankWithdrawal>(this.http, 'GET', `/bank/v1/withdrawals/${encodeURIComponent(reference)}`)).body;
  }
}
