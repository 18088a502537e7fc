import type Router from '@koa/router';
import type { Context } from 'koa';
import { BANK_RSP, RSP, type RspCode } from './codes';
import { fixed, readFields, required } from './fields';
import { BANKS, maskedAccountNo } from './ledger';
import type { Tokens } from './tokens';
import type { Party, Transfer, TransferBook } from './transfer-book';
import { amountOf } from './transfer-rules';
import { answer, bearerToken, envelope, jsonBody } from './wire';

export interface TransferResultDeps {
  tokens: Tokens;
  book: TransferBook;
  now: () => Date;
}

/** 이체결과조회 request (research §7). */
const RESULT_FIELDS = {
  check_type: fixed('AN', 1),
  tran_dtime: fixed('N', 14),
  req_cnt: required('N', 5),
};
const RESULT_ITEM_FIELDS = {
  tran_no: required('N', 5),
  org_bank_tran_id: fixed('AN', 20),
  org_bank_tran_date: fixed('N', 8),
  org_tran_amt: required('N', 12),
};
/** "요청건수 한번에 최대 25개": a third-party comment, the only source for the limit. */
const MAX_ITEMS = 25;
const DIRECTION_OF_CHECK_TYPE = { '1': 'withdraw', '2': 'deposit' } as const;

/**
 * POST /v2.0/transfer/result: the outcome of earlier withdrawals (check_type 1) or deposits (2), each found by its
 * bank_tran_id, bank_tran_date and amount, with the institution's token (oob, as third-party clients call it).
 * Whole-answer codes, both the emulator's reading of the code list (no official example was found): any item
 * still processing makes the answer A0001 (처리 중), any item not found (id, date, amount or kind differ) A0310
 * (이체내역 없음). Otherwise A0000, each item carrying its transfer's bank_rsp_code, refusals included.
 */
export function mountTransferResult(router: Router, deps: TransferResultDeps): void {
  const { tokens, book, now } = deps;
  const institutionToken = bearerToken(tokens, now, (grant) => grant.kind === 'institution');
  router.post('/v2.0/transfer/result', institutionToken, (ctx: Context) => {
    const at = now();
    const refuse = (code: RspCode, detail?: string) =>
      answer(ctx, { ...envelope(at, code, detail && `${RSP[code]}: ${detail}`), res_cnt: '0', res_list: [] });

    const body = jsonBody(ctx);
    const read = readFields(body, RESULT_FIELDS);
    if ('problem' in read) return refuse('A0004', read.problem);
    const request = read.values as Record<keyof typeof RESULT_FIELDS, string>;
    const direction = DIRECTION_OF_CHECK_TYPE[request.check_type as keyof typeof DIRECTION_OF_CHECK_TYPE];
    if (!direction) return refuse('A0004', 'check_type must be 1 (출금이체) or 2 (입금이체)');
    const list = (body as { req_list?: unknown }).req_list;
    if (!Array.isArray(list) || list.length < 1 || list.length > MAX_ITEMS || Number(request.req_cnt) !== list.length)
      return refuse('A0004', `req_cnt must count req_list, 1 to ${MAX_ITEMS} items`);
    const items: Record<keyof typeof RESULT_ITEM_FIELDS, string>[] = [];
    for (const [index, sent] of list.entries()) {
      const item = readFields(sent, RESULT_ITEM_FIELDS);
      if ('problem' in item) return refuse('A0004', `req_list[${index}].${item.problem}`);
      items.push(item.values as Record<keyof typeof RESULT_ITEM_FIELDS, string>);
    }

    const found = items.map((item) => {
      const transfer = book.find(item.org_bank_tran_id, item.org_bank_tran_date);
      const same = transfer?.direction === direction && transfer.amount === amountOf(item.org_tran_amt);
      return { item, transfer: same ? transfer : undefined };
    });
    if (found.some(({ transfer }) => !transfer)) return refuse('A0310');
    if (found.some(({ transfer }) => transfer!.state === 'processing')) return refuse('A0001');
    answer(ctx, {
      ...envelope(at, 'A0000'),
      res_cnt: String(found.length),
      res_list: found.map(({ item, transfer }) => resultItem(item.tran_no, transfer!)),
    });
  });
}

function resultItem(tranNo: string, t: Transfer) {
  const code = t.bankRspCode!;
  const side = (prefix: 'wd' | 'dps', party: Party) => ({
    [`${prefix}_bank_code_std`]: party.bankCode,
    [`${prefix}_bank_code_sub`]: party.account ? '0000000' : '',
    [`${prefix}_bank_name`]: BANKS[party.bankCode] ?? '',
    [`${prefix}_savings_bank_name`]: '',
    [`${prefix}_fintech_use_num`]: party.fintechUseNum,
    [`${prefix}_account_num_masked`]: maskedAccountNo(party.accountNo),
    [`${prefix}_print_content`]: party.printContent,
    [`${prefix}_account_holder_name`]: party.account && code === '000' ? party.account.holder : party.holderName,
  });
  return {
    tran_no: tranNo,
    bank_tran_id: t.bankTranId,
    bank_tran_date: t.bankTranDate,
    bank_code_tran: t.bankCodeTran,
    bank_rsp_code: code,
    bank_rsp_message: BANK_RSP[code],
    ...side('wd', t.payer),
    ...side('dps', t.payee),
    tran_amt: String(t.amount),
  };
}
