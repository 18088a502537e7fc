import { randomUUID } from 'node:crypto';

/** The banks an account can be held at: standard bank codes (금융기관코드) and names. */
export const BANKS: Record<string, string> = {
  '004': 'KB국민은행',
  '088': '신한은행',
  '020': '우리은행',
  '081': '하나은행',
  '011': 'NH농협은행',
  '003': 'IBK기업은행',
  '090': '카카오뱅크',
  '092': '토스뱅크',
};

/** One line of an account's statement. */
export interface Booking {
  transactionId: string;
  at: string;
  /** KRW, negative for money leaving the account. */
  amount: number;
  balanceAfter: number;
  /** What the holder's statement prints (인자내역). */
  printContent: string;
  bankTranId: string;
}

export interface Account {
  bankCode: string;
  accountNo: string;
  holder: string;
  /** YYYYMMDD; null for a company's account (our contract account), which has no birth date. */
  birthDate: string | null;
  balance: number;
  transactions: Booking[];
}

/** An account as the sandbox administration shows it (GET /kftc/_accounts/:bankCode/:accountNo). */
export interface AccountView {
  bankCode: string;
  bankName: string;
  accountNo: string;
  holder: string;
  balance: number;
  transactions: Booking[];
}

/** One side of a movement of money, with what its statement prints. */
export interface Leg {
  account: Account;
  printContent: string;
}

export interface Ledger {
  open(account: Omit<Account, 'transactions'>): Account;
  find(bankCode: string, accountNo: string): Account | undefined;
  /** Debits `from` and credits `to` in one synchronous step, or moves nothing when `from` lacks the funds. */
  move(from: Leg, to: Leg, amount: number, bankTranId: string): 'moved' | 'insufficient-funds';
  view(account: Account): AccountView;
}

/** Every account at every bank, with real balances and statements. */
export function createLedger(now: () => Date): Ledger {
  const accounts = new Map<string, Account>();
  const keyOf = (bankCode: string, accountNo: string) => `${bankCode}:${accountNo}`;
  const book = (account: Account, amount: number, printContent: string, bankTranId: string) => {
    account.balance += amount;
    account.transactions.push({
      transactionId: `btx_${randomUUID()}`,
      at: now().toISOString(),
      amount,
      balanceAfter: account.balance,
      printContent,
      bankTranId,
    });
  };
  return {
    open: (opening) => {
      const account = { ...opening, transactions: [] };
      accounts.set(keyOf(opening.bankCode, opening.accountNo), account);
      return account;
    },
    find: (bankCode, accountNo) => accounts.get(keyOf(bankCode, accountNo)),
    move: (from, to, amount, bankTranId) => {
      // Balance check and both bookings in one synchronous step: concurrent transfers never overdraw.
      if (from.account.balance < amount) return 'insufficient-funds';
      book(from.account, -amount, from.printContent, bankTranId);
      book(to.account, amount, to.printContent, bankTranId);
      return 'moved';
    },
    view: ({ bankCode, accountNo, holder, balance, transactions }) => ({
      bankCode,
      bankName: BANKS[bankCode] ?? '',
      accountNo,
      holder,
      balance,
      transactions,
    }),
  };
}

/** An account number as answers print it (출력용): the leading digits, the last three hidden ("20230821***"). */
export const maskedAccountNo = (accountNo: string): string => `${accountNo.slice(0, -3)}***`;
