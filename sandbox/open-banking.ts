import Router from '@koa/router';
import { mountAdmin } from './open-banking/admin';
import { mountDeposit } from './open-banking/deposit';
import { mountInquiry } from './open-banking/inquiry';
import { BANKS, createLedger } from './open-banking/ledger';
import { mountOAuth } from './open-banking/oauth';
import { createPeople } from './open-banking/people';
import { createTokens } from './open-banking/tokens';
import { createTransferBook } from './open-banking/transfer-book';
import { mountTransferResult } from './open-banking/transfer-result';
import { mountWithdraw } from './open-banking/withdraw';
import { createBankTranIds } from './open-banking/wire';

export { BANKS } from './open-banking/ledger';
export type { AccountView, Booking } from './open-banking/ledger';
export type { OpenBankingSettings } from './open-banking/transfer-book';
export type { TransferRequestView } from './open-banking/admin';

/**
 * Stand-in for the Korean open banking API (금융결제원 오픈뱅킹 API v2.0), speaking its protocol as
 * /work/research/kftc-openbanking.md records it, so that the service's bank adapter is exercised as it will be in
 * production: OAuth (consent screen, user and institution tokens), user/me, inquiry/real_name,
 * transfer/withdraw/fin_num, transfer/deposit/acnt_num and transfer/result, over a ledger with real balances.
 * Mounted at /kftc: the service's BANK_API_URL is http://127.0.0.1:<port>/kftc. The app around it must parse JSON and
 * form bodies (@koa/bodyparser, enableTypes ['json', 'form']).
 */
export interface OpenBankingOptions {
  clientId: string;
  clientSecret: string;
  /** 이용기관코드, 10 characters (e.g. M202300001): client_use_code, and the head of every bank_tran_id. */
  institutionCode: string;
  /** Our 약정 계좌: deposits leave it, withdrawals land in it. It opens with 1,000,000,000 KRW. */
  contractAccount: { bankCode: string; accountNo: string; holder: string };
  /** 입금이체용 암호문구 (wd_pass_phrase). */
  depositPassPhrase: string;
  log?: (line: string) => void;
  /** The time the gateway lives in (Korean days, token expiry); the system's by default, a test clock's if given. */
  now?: () => Date;
  /** The identity agency behind the consent screens' phone authentication (the sandbox's identity provider's). */
  ciOf?: (name: string, birthDate: string, phone: string) => string | undefined;
}

const CONTRACT_OPENING_BALANCE = 1_000_000_000;

export function openBankingRouter(options: OpenBankingOptions): Router {
  const { institutionCode, contractAccount } = options;
  if (!/^[A-Z0-9]{10}$/.test(institutionCode))
    throw new Error('institutionCode must be 10 upper-case letters or digits');
  if (!BANKS[contractAccount.bankCode] || !/^\d{10,14}$/.test(contractAccount.accountNo))
    throw new Error('contractAccount must be at a known bank with a 10-14 digit number');
  const now = options.now ?? (() => new Date());
  const ledger = createLedger(now);
  const contract = ledger.open({ ...contractAccount, birthDate: null, balance: CONTRACT_OPENING_BALANCE });
  const people = createPeople(now);
  const tokens = createTokens(now);
  const bankTranIds = createBankTranIds(institutionCode, now);
  const book = createTransferBook(ledger, options.log);

  const router = new Router({ prefix: '/kftc' });
  mountAdmin(router, { ledger, contract, book });
  mountOAuth(router, { ...options, ledger, people, tokens });
  mountInquiry(router, { ledger, people, tokens, bankTranIds, now });
  mountWithdraw(router, { contract, people, tokens, bankTranIds, book, now });
  mountDeposit(router, {
    contract,
    depositPassPhrase: options.depositPassPhrase,
    ledger,
    tokens,
    bankTranIds,
    book,
    now,
  });
  mountTransferResult(router, { tokens, book, now });
  return router;
}
