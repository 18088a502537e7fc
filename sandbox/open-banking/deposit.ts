import type Router from '@koa/router';
import type { Context } from 'koa';
import { BANK_RSP, RSP, type RspCode } from './codes';
import { fixed, optional, readFields, required } from './fields';
import { koreanDate } from './korean-time';
import { BANKS, maskedAccountNo, type Account, type Ledger } from './ledger';
import type { Tokens } from './tokens';
import { partyOf, type Transfer, type TransferBook } from './transfer-book';
import {
  amountOf,
  DEPOSIT_PURPOSES,
  isContractAccount,
  requestingCustomerProblem,
  REQUESTING_CUSTOMER_FIELDS,
  sentString,
  SUB_MERCHANT_FIELDS,
} from './transfer-rules';
import { answer, bearerToken, envelope, jsonBody, type BankTranIds } from './wire';

export interface DepositDeps {
  contract: Account;
  depositPassPhrase: string;
  ledger: Ledger;
  tokens: Tokens;
  bankTranIds: BankTranIds;
  book: TransferBook;
  now: () => Date;
}

/** 입금이체 (실계좌번호) request, top level (research §6.1, §6.2). */
const DEPOSIT_FIELDS = {
  cntr_account_type: fixed('A', 1),
  cntr_account_num: required('AN', 16),
  wd_pass_phrase: required('aN', 128),
  wd_print_content: required('AH', 20),
  // Required in the table, yet "미지정 시 기본값: on": absent means on.
  name_check_option: optional('aN', 3),
  ...SUB_MERCHANT_FIELDS,
  tran_dtime: fixed('N', 14),
  req_cnt: required('N', 5),
};
/** One req_list item. account_holder_name is Y in one copy of the spec, optional in another: required here. */
const DEPOSIT_ITEM_FIELDS = {
  tran_no: required('N', 5),
  bank_tran_id: fixed('AN', 20),
  bank_code_std: fixed('AN', 3),
  account_num: required('AN', 16),
  account_holder_name: required('AH', 20),
  print_content: required('AH', 20),
  tran_amt: required('N', 12),
  ...REQUESTING_CUSTOMER_FIELDS,
  transfer_purpose: fixed('AN', 2),
  recv_bank_tran_id: optional('AN', 20),
  cms_num: optional('AN', 32),
};
type DepositItem = Record<keyof typeof DEPOSIT_ITEM_FIELDS, string>;

/**
 * POST /v2.0/transfer/deposit/acnt_num: pays from our contract account into any account named by bank code and
 * number, with the institution's token (oob) and the deposit pass phrase. One item per call (req_cnt "1").
 */
export function mountDeposit(router: Router, deps: DepositDeps): void {
  const { contract, ledger, tokens, bankTranIds, book, now } = deps;
  /** KRW of the deposits booked on a Korean day (yyyyMMdd) or month (yyyyMM) that completed or are still processing. */
  const depositedIn = (period: string) =>
    book
      .requests()
      .flatMap(({ transfer: t }) => (t ? [t] : []))
      .filter((t) => t.direction === 'deposit' && t.bankTranDate.startsWith(period) && t.state !== 'rejected')
      .reduce((sum, t) => sum + t.amount, 0);
  /** The institution's deposit limit (이용기관 입금이체 한도) this deposit would pass, if any (settings.depositLimits). */
  const limitPassed = (amount: number, today: string): RspCode | undefined => {
    const { perTransferKrw, dailyKrw, monthlyKrw } = book.settings.depositLimits;
    if (perTransferKrw !== null && amount > perTransferKrw) return 'A0106';
    if (dailyKrw !== null && depositedIn(today) + amount > dailyKrw) return 'A0101';
    if (monthlyKrw !== null && depositedIn(today.slice(0, 6)) + amount > monthlyKrw) return 'A0102';
    return undefined;
  };
  const institutionToken = bearerToken(tokens, now, (grant) => grant.kind === 'institution');
  router.post('/v2.0/transfer/deposit/acnt_num', institutionToken, async (ctx: Context) => {
    const at = now();
    const today = koreanDate(at);
    const body = jsonBody(ctx);
    const list = sentList(body);
    const arrived = book.received({
      direction: 'deposit',
      bankTranId: sentString(list[0], 'bank_tran_id'),
      bankTranDate: today,
      amount: amountOf(sentString(list[0], 'tran_amt')) ?? null,
    });
    const refuse = (code: RspCode, detail?: string) => {
      arrived.rspCode = code;
      answer(ctx, envelope(at, code, detail && `${RSP[code]}: ${detail}`));
    };

    const read = readFields(body, DEPOSIT_FIELDS);
    if ('problem' in read) return refuse('A0004', read.problem);
    const request = read.values as Record<keyof typeof DEPOSIT_FIELDS, string>;
    if (request.req_cnt !== '1' || list.length !== 1)
      return refuse('A0004', 'req_cnt must be "1" with one req_list item');
    const readItem = readFields(list[0], DEPOSIT_ITEM_FIELDS);
    if ('problem' in readItem) return refuse('A0004', `req_list[0].${readItem.problem}`);
    const item = readItem.values as DepositItem;
    const amount = amountOf(item.tran_amt);
    if (!amount) return refuse('A0004', 'tran_amt must be a positive amount');
    const nameCheck = request.name_check_option ?? 'on';
    if (nameCheck !== 'on' && nameCheck !== 'off') return refuse('A0004', 'name_check_option must be on or off');
    if (!bankTranIds.wellFormed(item.bank_tran_id)) return refuse('A0004', 'bank_tran_id is not ours');
    const customerProblem = requestingCustomerProblem(item);
    if (customerProblem) return refuse('A0004', customerProblem);
    if (!DEPOSIT_PURPOSES.includes(item.transfer_purpose))
      return refuse('A0004', `transfer_purpose must be one of ${DEPOSIT_PURPOSES.join(', ')}`);
    if (!bankTranIds.claim(item.bank_tran_id)) return refuse(book.settings.duplicateCode);
    if (!isContractAccount(request, contract)) return refuse('A0322');
    if (request.wd_pass_phrase !== deps.depositPassPhrase) return refuse('A0307');

    // The centre's own limits for the institution, before any bank (nothing moves).
    const overLimit = limitPassed(amount, today);
    if (overLimit) return refuse(overLimit);

    const target = ledger.find(item.bank_code_std, item.account_num);
    const nameDiffers = nameCheck === 'on' && target !== undefined && target.holder !== item.account_holder_name;
    // The centre's own refusal of the name, when set so; otherwise the bank's part answers 815 for the item.
    if (nameDiffers && book.settings.nameMismatch === 'A0312') return refuse('A0312');
    const transfer: Transfer = {
      bankTranId: item.bank_tran_id,
      bankTranDate: today,
      direction: 'deposit',
      amount,
      payer: { ...partyOf(contract), printContent: request.wd_print_content, fintechUseNum: '' },
      payee: {
        bankCode: item.bank_code_std,
        accountNo: item.account_num,
        account: target,
        holderName: item.account_holder_name,
        printContent: item.print_content,
        fintechUseNum: '',
      },
      nameCheck: nameCheck === 'on',
      state: 'processing',
      bankRspCode: null,
      bankCodeTran: '',
    };
    arrived.transfer = transfer;
    // Landing late (settings.lateLanding): no answer, and no transfer for transfer/result, until it lands.
    const late = book.landLate(transfer);
    const inDoubt = late ? await late : book.submit(transfer);
    const answeredAt = late ? now() : at;
    // Per-item outcomes: a failed item makes the call A0009, the item carrying its bank's code (research §6.3).
    // A late landing's caller may have gone: Koa then writes nothing, the answer is only noted (GET /kftc/_transfers).
    answer(
      ctx,
      book.respond(arrived, inDoubt, 'A0009', (rspCode) => ({
        ...envelope(answeredAt, rspCode),
        wd_bank_code_std: contract.bankCode,
        wd_bank_code_sub: '0000000',
        wd_bank_name: BANKS[contract.bankCode] ?? '',
        wd_account_num_masked: maskedAccountNo(contract.accountNo),
        wd_print_content: request.wd_print_content,
        wd_account_holder_name: contract.holder,
        // In doubt, nothing is known of the item yet: no bank fields at all.
        res_cnt: inDoubt ? '0' : '1',
        res_list: inDoubt ? [] : [itemAnswer(transfer, item)],
      })),
    );
  });
}

function itemAnswer(transfer: Transfer, item: DepositItem) {
  const code = transfer.bankRspCode!;
  return {
    tran_no: item.tran_no,
    bank_tran_id: transfer.bankTranId,
    bank_tran_date: transfer.bankTranDate,
    bank_code_tran: transfer.bankCodeTran,
    bank_rsp_code: code,
    bank_rsp_message: BANK_RSP[code],
    bank_code_std: item.bank_code_std,
    bank_code_sub: transfer.payee.account ? '0000000' : '',
    bank_name: BANKS[item.bank_code_std] ?? '',
    savings_bank_name: '',
    account_num: item.account_num,
    account_num_masked: maskedAccountNo(item.account_num),
    print_content: item.print_content,
    // 수취인성명 only when the money arrived: a refused deposit must not reveal who holds the account.
    account_holder_name: code === '000' ? transfer.payee.account!.holder : '',
    tran_amt: item.tran_amt,
    cms_num: item.cms_num ?? '',
  };
}

/** req_list as sent, for the checks that read it before it is validated. */
const sentList = (body: unknown): unknown[] => {
  const list = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).req_list : undefined;
  return Array.isArray(list) ? list : [];
};
