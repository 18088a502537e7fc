import type { BankRspCode, DuplicateCode, InDoubtCode, NameMismatchCode, RspCode } from './codes';
import type { Account, Ledger } from './ledger';

export type Direction = 'withdraw' | 'deposit';

/** Where a transfer's money comes from or goes to, as its statement line and the answers show it. */
export interface Party {
  bankCode: string;
  accountNo: string;
  /** Undefined when a deposit names an account that does not exist. */
  account: Account | undefined;
  /** The name the request gave (deposit: account_holder_name) or the holder's. */
  holderName: string;
  printContent: string;
  /** The fintech_use_num the request named the account by, '' when it named it by number. */
  fintechUseNum: string;
}

/** The account's side of a transfer, before the request adds what it prints. */
export const partyOf = (account: Account) => ({
  bankCode: account.bankCode,
  accountNo: account.accountNo,
  account,
  holderName: account.holder,
});

/** A transfer that reached a bank, keyed by (bank_tran_id, bank_tran_date) as transfer/result finds it. */
export interface Transfer {
  bankTranId: string;
  bankTranDate: string;
  direction: Direction;
  amount: number;
  payer: Party & { account: Account };
  payee: Party;
  /** Whether the payee's holder name must be the one given (deposit name_check_option). */
  nameCheck: boolean;
  state: 'processing' | 'completed' | 'rejected';
  /** The bank's outcome; null while processing. */
  bankRspCode: BankRspCode | null;
  /** The bank that gave the outcome (bank_code_tran). */
  bankCodeTran: string;
}

/** Every withdraw or deposit call as it arrived and what it was answered (GET /kftc/_transfers). */
export interface TransferRequest {
  bankTranId: string;
  bankTranDate: string;
  direction: Direction;
  amount: number | null;
  /** The rsp_code answered; null when the answer was malformed on purpose. */
  rspCode: string | null;
  transfer?: Transfer;
}

/**
 * How the gateway misbehaves, for tests of the service's caution. `inDoubt`: the next `times` transfers that reach a
 * bank are answered `code` (outcome unknown) and settle `settleAfterMs` later as `outcome` (money moves only then).
 * `reportCode`: transfer answers carry this rsp_code, one the documentation does not list, while money moves as usual.
 * `malformed`: transfer answers are not the documented shape at all (money moves as usual). `nameMismatch`: how a
 * deposit to an account held in another name than the one given is refused: the item's bank code 815 (A0009), or the
 * centre's own A0312 for the call, before any bank.
 * `depositLimits`: the institution's own deposit limits (이용기관 입금이체 한도), KRW, null for none (the default):
 * the centre refuses the whole call before any bank, nothing moved, once the request is well formed, its bank_tran_id
 * claimed, the contract account and pass phrase right (before the holder's name is checked): A0106 for a tran_amt over
 * `perTransferKrw`; A0101 when it and the deposits of the same Korean day (bank_tran_date) that completed or are still
 * processing (in doubt, or landing late) come to more than `dailyKrw`; A0102 the same over the Korean calendar month
 * and `monthlyKrw`. `duplicateCode`: how a withdrawal or deposit whose bank_tran_id the centre has seen the same Korean
 * day is refused: A0326 (거래고유번호(참가기관) 중복, the default) or A0008 (중복거래 에러).
 * `lateLanding`: the next `times` deposits that pass every check land late: the centre does not answer the call (the
 * request stays open, the caller's own timeout ends it) and transfer/result does not know the transfer (A0310) until
 * `landAfterMs` has passed (or POST /kftc/_transfers/settle); then the transfer goes to its bank as usual (money moves,
 * the statements show it, transfer/result finds it) and the call, if still open, is answered as usual.
 */
export interface OpenBankingSettings {
  inDoubt: { times: number; code: InDoubtCode; settleAfterMs: number; outcome: 'completed' | 'rejected' };
  reportCode: string | null;
  malformed: boolean;
  nameMismatch: NameMismatchCode;
  depositLimits: { perTransferKrw: number | null; dailyKrw: number | null; monthlyKrw: number | null };
  duplicateCode: DuplicateCode;
  lateLanding: { times: number; landAfterMs: number };
}

export interface TransferBook {
  settings: OpenBankingSettings;
  /** Notes a call as it arrived; the route fills in what it answered. */
  received(request: Omit<TransferRequest, 'rspCode'>): TransferRequest;
  /** Sends the transfer to its bank: settled now, or left in doubt (the in-doubt code to answer) when so set. */
  submit(transfer: Transfer): InDoubtCode | undefined;
  /**
   * While `lateLanding.times` lasts (counted down here): holds the transfer back from its bank until
   * `lateLanding.landAfterMs` has passed or `settleAll` runs, then submits it; the promise resolves with what `submit`
   * returned. Undefined, and nothing held, when no late landing is due.
   */
  landLate(transfer: Transfer): Promise<InDoubtCode | undefined> | undefined;
  find(bankTranId: string, bankTranDate: string): Transfer | undefined;
  /**
   * The body a transfer call answers once submitted, as the settings make the gateway behave: the documented body
   * with A0000, `failure` or the in-doubt code, with the code to report instead, or not the documented shape at all.
   * Notes the code answered on `arrived`.
   */
  respond(
    arrived: TransferRequest,
    inDoubt: InDoubtCode | undefined,
    failure: RspCode,
    documented: (rspCode: string) => object,
  ): object;
  /** Lands every transfer still landing late, then settles every transfer still in doubt, now. */
  settleAll(): void;
  requests(): readonly TransferRequest[];
}

/** The centre's settings when nothing is wrong with it: how the sandbox starts (and what tests restore). */
export const wellBehaved = (): OpenBankingSettings => ({
  inDoubt: { times: 0, code: 'A0001', settleAfterMs: 1000, outcome: 'completed' },
  reportCode: null,
  malformed: false,
  nameMismatch: '815',
  depositLimits: { perTransferKrw: null, dailyKrw: null, monthlyKrw: null },
  duplicateCode: 'A0326',
  lateLanding: { times: 0, landAfterMs: 5000 },
});

export function createTransferBook(ledger: Ledger, log?: (line: string) => void): TransferBook {
  const requests: TransferRequest[] = [];
  const transfers = new Map<string, Transfer>();
  const pending = new Map<Transfer, { outcome: 'completed' | 'rejected'; timer: NodeJS.Timeout }>();
  /** Transfers landing late: each one's timer and what lands it (submits it and resolves its promise). */
  const landing = new Map<Transfer, { timer: NodeJS.Timeout; land: () => void }>();
  const settings = wellBehaved();
  const keyOf = (bankTranId: string, bankTranDate: string) => `${bankTranId}:${bankTranDate}`;

  /** The bank of the account the transfer is about: the person's for a withdrawal, the payee's for a deposit. */
  const answeringBank = (t: Transfer) => (t.direction === 'withdraw' ? t.payer.bankCode : t.payee.bankCode);
  /** The bank's part: the payee must exist (and bear the given name when checked), the payer must have the money. */
  const bankOutcome = (t: Transfer): { code: BankRspCode; bank: string } => {
    const { payer, payee } = t;
    if (!payee.account) return { code: '412', bank: payee.bankCode };
    if (t.nameCheck && payee.account.holder !== payee.holderName) return { code: '815', bank: payee.bankCode };
    const to = { account: payee.account, printContent: payee.printContent };
    if (ledger.move(payer, to, t.amount, t.bankTranId) === 'insufficient-funds')
      return { code: '453', bank: payer.bankCode };
    return { code: '000', bank: answeringBank(t) };
  };
  const settle = (t: Transfer, outcome: 'completed' | 'rejected') => {
    // A transfer the bank is made to refuse gets 499 기타 처리불가: nothing in the research names the reason.
    const { code, bank } = outcome === 'rejected' ? { code: '499' as const, bank: answeringBank(t) } : bankOutcome(t);
    Object.assign(t, { bankRspCode: code, bankCodeTran: bank, state: code === '000' ? 'completed' : 'rejected' });
    log?.(`kftc ${t.direction} ${t.bankTranId} ${t.amount} KRW -> bank ${code}`);
  };

  const submit = (t: Transfer): InDoubtCode | undefined => {
    transfers.set(keyOf(t.bankTranId, t.bankTranDate), t);
    const { times, code, settleAfterMs, outcome } = settings.inDoubt;
    if (times <= 0) {
      settle(t, 'completed');
      return undefined;
    }
    settings.inDoubt.times -= 1;
    const timer = setTimeout(() => {
      pending.delete(t);
      settle(t, outcome);
    }, settleAfterMs);
    timer.unref(); // the sandbox or a test may end while a transfer is still in doubt
    pending.set(t, { outcome, timer });
    log?.(`kftc ${t.direction} ${t.bankTranId} ${t.amount} KRW in doubt (${code})`);
    return code;
  };

  return {
    settings,
    received: (request) => {
      const entry = { ...request, rspCode: null };
      requests.push(entry);
      return entry;
    },
    submit,
    landLate: (t) => {
      if (settings.lateLanding.times <= 0) return undefined;
      settings.lateLanding.times -= 1;
      const { landAfterMs } = settings.lateLanding;
      log?.(`kftc ${t.direction} ${t.bankTranId} ${t.amount} KRW landing late (after ${landAfterMs} ms)`);
      return new Promise((resolve) => {
        const land = () => {
          clearTimeout(timer);
          landing.delete(t);
          log?.(`kftc ${t.direction} ${t.bankTranId} landed late`);
          resolve(submit(t));
        };
        const timer = setTimeout(land, landAfterMs);
        timer.unref(); // the sandbox or a test may end while a transfer is still landing
        landing.set(t, { timer, land });
      });
    },
    respond: (arrived, inDoubt, failure, documented) => {
      if (settings.malformed) return { result: 'accepted' };
      const succeeded = arrived.transfer?.state === 'completed';
      arrived.rspCode = settings.reportCode ?? inDoubt ?? (succeeded ? 'A0000' : failure);
      return documented(arrived.rspCode);
    },
    find: (bankTranId, bankTranDate) => transfers.get(keyOf(bankTranId, bankTranDate)),
    settleAll: () => {
      // Landed first: one that lands in doubt (inDoubt.times) is settled below with the others.
      for (const { land } of [...landing.values()]) land();
      for (const [t, { outcome, timer }] of pending) {
        clearTimeout(timer);
        pending.delete(t);
        settle(t, outcome);
      }
    },
    requests: () => requests,
  };
}
