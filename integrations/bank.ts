import { Type } from '@sinclair/typebox';
import { ProviderAnswerInvalid, callProvider, expectAnswer, type ProviderHttpOptions } from './provider-http';

/** The bank's answers as its API documents them; anything else is ProviderAnswerInvalid. */
const AccountHolderAnswer = Type.Object({
  bankCode: Type.String(),
  bankName: Type.String(),
  accountNo: Type.String(),
  holder: Type.String(),
});
const DepositAnswer = Type.Object({ depositId: Type.String({ minLength: 1 }) });
const WithdrawalAnswer = Type.Object({
  withdrawalId: Type.String({ minLength: 1 }),
  reference: Type.String({ minLength: 1 }),
  amount: Type.Integer({ minimum: 1 }),
  status: Type.String({ minLength: 1 }),
  reason: Type.Union([Type.String(), Type.Null()]),
});

export interface AccountHolder {
  bankCode: string;
  bankName: string;
  accountNo: string;
  holder: string;
}

/** The statuses of a withdrawal the bank documents; only these are ever acted on. */
const KNOWN_WITHDRAWAL_STATUSES = ['pending', 'completed', 'rejected'] as const;

/**
 * A withdrawal as we may act on it. `unknown`: the bank answered with a status it does not document, or an answer
 * that is not a withdrawal at all; `reason` says what came back. Nothing is ever credited on `unknown`.
 */
export type BankWithdrawal =
  | {
      status: (typeof KNOWN_WITHDRAWAL_STATUSES)[number];
      withdrawalId: string;
      reference: string;
      amount: bigint;
      reason: string | null;
    }
  | { status: 'unknown'; reason: string };

function withdrawalOf(answer: () => Promise<unknown>): Promise<BankWithdrawal> {
  return answer()
    .then((body) => {
      const w = expectAnswer(WithdrawalAnswer, body, 'a withdrawal');
      const status = KNOWN_WITHDRAWAL_STATUSES.find((known) => known === w.status);
      if (!status)
        return {
          status: 'unknown' as const,
          reason: `the bank reported the undocumented status "${w.status.slice(0, 64)}"`,
        };
      return {
        status,
        withdrawalId: w.withdrawalId,
        reference: w.reference,
        amount: BigInt(w.amount),
        reason: w.reason,
      };
    })
    .catch((error: unknown) => {
      if (error instanceof ProviderAnswerInvalid)
        return { status: 'unknown' as const, reason: error.message.slice(0, 200) };
      throw error;
    });
}

/** A movement of money at the bank: `amount` in won (minor units of KRW), like every amount in the service. */
export interface BankTransferInput {
  bankCode: string;
  accountNo: string;
  amount: bigint;
  remark: string;
  reference: string;
}

/** The bank's API takes whole won as a JSON number: exact up to 2^53 won, far beyond any transfer it accepts. */
const onTheWire = (input: BankTransferInput) => {
  if (input.amount <= 0n || input.amount > BigInt(Number.MAX_SAFE_INTEGER))
    throw new Error(`bank amount out of range: ${input.amount}`);
  return { ...input, amount: Number(input.amount) };
};

/**
 * HTTP client of the bank's corporate API (the sandbox's /bank/v1 speaks the same). Every money-moving call carries
 * our `reference`, which the bank uses to answer a repeated call with the first result instead of moving money again.
 */
export class BankClient {
  private readonly http: ProviderHttpOptions;

  constructor(options: { baseUrl: string; clientSecret: string; timeoutMs: number }) {
    this.http = {
      baseUrl: options.baseUrl,
      timeoutMs: options.timeoutMs,
      headers: { authorization: `Bearer ${options.clientSecret}` },
    };
  }

  /** The registered holder of an account (real-name inquiry); 404 when the account does not exist. */
  async accountHolder(bankCode: string, accountNo: string): Promise<AccountHolder> {
    return expectAnswer(
      AccountHolderAnswer,
      (await callProvider(this.http, 'POST', '/bank/v1/account-holder', { bankCode, accountNo })).body,
      'an account-holder inquiry',
    );
  }

  /** Deposits from our operating account (1-KRW verification, refunds). */
  async deposit(input: BankTransferInput): Promise<{ depositId: string }> {
    return expectAnswer(
      DepositAnswer,
      (await callProvider(this.http, 'POST', '/bank/v1/deposits', onTheWire(input))).body,
      'a deposit',
    );
  }

  /** Debits a user's account into our operating account; settles later (webhook or polling). */
  async withdraw(input: BankTransferInput): Promise<BankWithdrawal> {
    return withdrawalOf(
      async () => (await callProvider(this.http, 'POST', '/bank/v1/withdrawals', onTheWire(input))).body,
    );
  }

  async withdrawal(reference: string): Promise<BankWithdrawal> {
    return withdrawalOf(
      async () => (await callProvider(this.http, 'GET', `/bank/v1/withdrawals/${encodeURIComponent(reference)}`)).body,
    );
  }
}
