import { callProvider, type ProviderHttpOptions } from './provider-http';

export interface AccountHolder { bankCode: string; bankName: string; accountNo: string; holder: string }
export interface BankWithdrawal {
  withdrawalId: string; reference: string; amount: number; status: 'pending' | 'completed' | 'rejected'; reason: string | null;
}

/** A movement of money at the bank: `amount` in won (minor units of KRW), like every amount in the service. */
export interface BankTransferInput { bankCode: string; accountNo: string; amount: bigint; remark: string; reference: string }

/** The bank's API takes whole won as a JSON number: exact up to 2^53 won, far beyond any transfer it accepts. */
const onTheWire = (input: BankTransferInput) => {
  if (input.amount <= 0n || input.amount > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`bank amount out of range: ${input.amount}`);
  return { ...input, amount: Number(input.amount) };
};

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
  async deposit(input: BankTransferInput): Promise<{ depositId: string }> {
    return (await callProvider<{ depositId: string }>(this.http, 'POST', '/bank/v1/deposits', onTheWire(input))).body;
  }

  /** Debits a user's account into our operating account; settles later (webhook or polling). */
  async withdraw(input: BankTransferInput): Promise<BankWithdrawal> {
    return (await callProvider<BankWithdrawal>(this.http, 'POST', '/bank/v1/withdrawals', onTheWire(input))).body;
  }

  async withdrawal(reference: string): Promise<BankWithdrawal> {
    return (await callProvider<BankWithdrawal>(this.http, 'GET', `/bank/v1/withdrawals/${encodeURIComponent(reference)}`)).body;
  }
}
