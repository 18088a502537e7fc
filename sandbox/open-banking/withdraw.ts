import type Router from '@koa/router';
import type { Context } from 'koa';
import { BANK_RSP, RSP, type RspCode } from './codes';
import { fixed, optional, readFields, required } from './fields';
import { koreanDate } from './korean-time';
import { BANKS, maskedAccountNo, type Account } from './ledger';
import type { People, Person } from './people';
import type { Tokens } from './tokens';
import { partyOf, type Transfer, type TransferBook } from './transfer-book';
import {
  amountOf,
  isContractAccount,
  requestingCustomerProblem,
  REQUESTING_CUSTOMER_FIELDS,
  sentString,
  SUB_MERCHANT_FIELDS,
  WITHDRAW_PURPOSES,
} from './transfer-rules';
import { answer, bearerToken, envelope, grantOf, hasScope, jsonBody, type BankTranIds } from './wire';

export interface WithdrawDeps {
  contract: Account;
  people: People;
  tokens: Tokens;
  bankTranIds: BankTranIds;
  book: TransferBook;
  now: () => Date;
}

/** 출금이체 request (research §5). */
const WITHDRAW_FIELDS = {
  bank_tran_id: fixed('AN', 20),
  cntr_account_type: fixed('A', 1),
  cntr_account_num: required('AN', 16),
  dps_print_content: required('AH', 20),
  fintech_use_num: required('AN', 24),
  wd_print_content: optional('AH', 20),
  tran_amt: required('N', 12),
  tran_dtime: fixed('N', 14),
  ...REQUESTING_CUSTOMER_FIELDS,
  transfer_purpose: fixed('AN', 2),
  ...SUB_MERCHANT_FIELDS,
  recv_client_name: optional('AH', 20),
  recv_client_bank_code: optional('AN', 3, { exact: true }),
  recv_client_account_num: optional('AN', 16),
};
type WithdrawRequest = Record<keyof typeof WITHDRAW_FIELDS, string>;

/**
 * A person's withdrawals per Korean day: 10,000,000 KRW, the limit the spec's example answer implies (tran_amt 10000,
 * wd_limit_remain_amt 9990000). The real limit is agreed per bank and institution; this one is the emulator's.
 */
const DAILY_WITHDRAW_LIMIT = 10_000_000;

/**
 * POST /v2.0/transfer/withdraw/fin_num: debits a person's registered account (named by fintech_use_num) and credits
 * our contract account, with the person's own token (scope transfer).
 */
export function mountWithdraw(router: Router, deps: WithdrawDeps): void {
  const { contract, people, tokens, bankTranIds, book, now } = deps;
  const withdrawnToday = (person: Person, today: string) => {
    const own = new Set(person.registrations.map((r) => r.fintechUseNum));
    return book
      .requests()
      .flatMap(({ transfer: t }) => (t ? [t] : []))
      .filter((t) => t.direction === 'withdraw' && t.bankTranDate === today && own.has(t.payer.fintechUseNum))
      .filter((t) => t.state !== 'rejected')
      .reduce((sum, t) => sum + t.amount, 0);
  };

  const transferToken = bearerToken(tokens, now, (grant) => grant.kind === 'user' && hasScope('transfer')(grant));
  router.post('/v2.0/transfer/withdraw/fin_num', transferToken, (ctx: Context) => {
    const at = now();
    const today = koreanDate(at);
    const body = jsonBody(ctx);
    const arrived = book.received({
      direction: 'withdraw',
      bankTranId: sentString(body, 'bank_tran_id'),
      bankTranDate: today,
      amount: amountOf(sentString(body, 'tran_amt')) ?? null,
    });
    const refuse = (code: RspCode, detail?: string) => {
      arrived.rspCode = code;
      answer(ctx, envelope(at, code, detail && `${RSP[code]}: ${detail}`));
    };

    const read = readFields(body, WITHDRAW_FIELDS);
    if ('problem' in read) return refuse('A0004', read.problem);
    const request = read.values as WithdrawRequest;
    const amount = amountOf(request.tran_amt);
    if (!amount) return refuse('A0004', 'tran_amt must be a positive amount');
    if (!bankTranIds.wellFormed(request.bank_tran_id)) return refuse('A0004', 'bank_tran_id is not ours');
    const customerProblem = requestingCustomerProblem(request);
    if (customerProblem) return refuse('A0004', customerProblem);
    if (!WITHDRAW_PURPOSES.includes(request.transfer_purpose))
      return refuse('A0004', `transfer_purpose must be one of ${WITHDRAW_PURPOSES.join(', ')}`);
    if (!bankTranIds.claim(request.bank_tran_id)) return refuse(book.settings.duplicateCode);
    if (!isContractAccount(request, contract)) return refuse('A0322');
    const grant = grantOf(ctx);
    const registered = people.byFintechUseNum(request.fintech_use_num);
    if (!registered || grant.kind !== 'user' || registered.person.userSeqNo !== grant.userSeqNo) return refuse('A0304');
    const limitLeft = DAILY_WITHDRAW_LIMIT - withdrawnToday(registered.person, today);
    if (amount > limitLeft) return refuse('A0112');

    const { account, fintechUseNum, alias } = registered.registration;
    const transfer: Transfer = {
      bankTranId: request.bank_tran_id,
      bankTranDate: today,
      direction: 'withdraw',
      amount,
      // The person's statement shows wd_print_content; when it is not sent (it is optional), the payee's name.
      payer: { ...partyOf(account), printContent: request.wd_print_content ?? contract.holder, fintechUseNum },
      payee: { ...partyOf(contract), printContent: request.dps_print_content, fintechUseNum: '' },
      nameCheck: false,
      state: 'processing',
      bankRspCode: null,
      bankCodeTran: '',
    };
    arrived.transfer = transfer;
    const inDoubt = book.submit(transfer);
    const limitLeftNow = limitLeft - (transfer.state === 'rejected' ? 0 : amount);
    answer(
      ctx,
      book.respond(arrived, inDoubt, 'A0002', (rspCode) => ({
        ...envelope(at, rspCode),
        ...withdrawalAnswer(transfer, request, alias, inDoubt !== undefined),
        wd_limit_remain_amt: String(limitLeftNow),
      })),
    );
  });
}

/** The §5 answer fields after the envelope; no bank fields while the outcome is in doubt. */
function withdrawalAnswer(transfer: Transfer, request: WithdrawRequest, alias: string, inDoubt: boolean) {
  const { payer, payee } = transfer;
  const outcome = inDoubt
    ? { bank_tran_id: '', bank_tran_date: '', bank_code_tran: '', bank_rsp_code: '', bank_rsp_message: '' }
    : {
        bank_tran_id: transfer.bankTranId,
        bank_tran_date: transfer.bankTranDate,
        bank_code_tran: transfer.bankCodeTran,
        bank_rsp_code: transfer.bankRspCode!,
        bank_rsp_message: BANK_RSP[transfer.bankRspCode!],
      };
  return {
    dps_bank_code_std: payee.bankCode,
    dps_bank_code_sub: '0000000',
    dps_bank_name: BANKS[payee.bankCode] ?? '',
    dps_account_num_masked: maskedAccountNo(payee.accountNo),
    dps_print_content: payee.printContent,
    dps_account_holder_name: payee.holderName,
    ...outcome,
    fintech_use_num: payer.fintechUseNum,
    account_alias: alias,
    bank_code_std: payer.bankCode,
    bank_code_sub: '0000000',
    bank_name: BANKS[payer.bankCode] ?? '',
    savings_bank_name: '',
    account_num_masked: maskedAccountNo(payer.accountNo),
    print_content: payer.printContent,
    account_holder_name: payer.holderName,
    tran_amt: request.tran_amt,
  };
}
