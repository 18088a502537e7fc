import type Router from '@koa/router';
import type { Context } from 'koa';
import { BANK_RSP, RSP, type BankRspCode, type RspCode } from './codes';
import { readFields, fixed, optional, required } from './fields';
import { koreanDate } from './korean-time';
import { BANKS, maskedAccountNo, type Account, type Ledger } from './ledger';
import type { People } from './people';
import type { Tokens } from './tokens';
import { answer, bearerToken, envelope, grantOf, hasScope, jsonBody, type BankTranIds } from './wire';

export interface InquiryDeps {
  ledger: Ledger;
  people: People;
  tokens: Tokens;
  bankTranIds: BankTranIds;
  now: () => Date;
}

/** 계좌실명조회 request (research §4). */
const REAL_NAME_FIELDS = {
  bank_tran_id: fixed('AN', 20),
  bank_code_std: fixed('AN', 3),
  account_num: required('AN', 16),
  account_holder_info_type: required('AN', 1, { exact: true, pattern: /^[ 0-9A-Z]$/ }),
  account_holder_info: optional('AN', 13),
  account_seq: optional('AN', 3),
  tran_dtime: fixed('N', 14),
};

/**
 * What the real-name number must look like for each 예금주 실명번호 구분코드: SPACE a birth date YYMMDD, 1 a resident
 * registration number (13 digits, the first six the birth date), N nothing (no check). The other codes (foreigner,
 * passport, business numbers…) are valid, but the emulator keeps no such numbers, so they never match.
 */
const HOLDER_INFO_FORMATS: Record<string, RegExp> = {
  ' ': /^\d{6}$/,
  '1': /^\d{13}$/,
  '2': /^\d{13}$/,
  '3': /^\d{13}$/,
  '4': /^\d{13}$/,
  '5': /^[A-Z0-9]{1,13}$/,
  '6': /^\d{10}$/,
  E: /^[A-Z0-9]{1,13}$/,
  N: /^$/,
};

function holderInfoMatches(account: Account, type: string, info: string): boolean {
  const yymmdd = account.birthDate?.slice(2);
  if (type === 'N') return true;
  if (type === ' ') return yymmdd === info;
  if (type === '1') return yymmdd === info.slice(0, 6);
  return false;
}

export function mountInquiry(router: Router, deps: InquiryDeps): void {
  const { ledger, people, tokens, bankTranIds, now } = deps;
  const refuse = (ctx: Context, at: Date, code: RspCode, detail?: string) =>
    answer(ctx, envelope(at, code, detail && `${RSP[code]}: ${detail}`));

  // Scope "login" is presumed for 사용자정보조회 (research §3.1, unconfirmed).
  const userToken = bearerToken(tokens, now, (grant) => grant.kind === 'user' && hasScope('login')(grant));
  router.get('/v2.0/user/me', userToken, (ctx) => {
    const at = now();
    const userSeqNo = ctx.query.user_seq_no;
    if (typeof userSeqNo !== 'string' || !/^[A-Z0-9]{1,10}$/.test(userSeqNo))
      return refuse(ctx, at, 'A0004', 'user_seq_no must be AN(10)');
    const grant = grantOf(ctx);
    const person = people.byUserSeqNo(userSeqNo);
    // A token answers for its own person only; A0313 사용자 불일치 is the code list's nearest code (assumed).
    if (grant.kind !== 'user' || grant.userSeqNo !== userSeqNo || !person) return refuse(ctx, at, 'A0313');
    answer(ctx, {
      ...envelope(at, 'A0000'),
      user_seq_no: person.userSeqNo,
      user_ci: person.ci,
      user_name: person.name,
      res_cnt: String(person.registrations.length),
      res_list: person.registrations.map(({ fintechUseNum, alias, account, agreedAt }) => ({
        fintech_use_num: fintechUseNum,
        account_alias: alias,
        bank_code_std: account.bankCode,
        bank_code_sub: '0000000',
        bank_name: BANKS[account.bankCode] ?? '',
        savings_bank_name: '',
        account_num_masked: maskedAccountNo(account.accountNo),
        account_seq: '',
        account_holder_name: account.holder,
        account_holder_type: 'P',
        inquiry_agree_yn: 'Y',
        inquiry_agree_dtime: agreedAt,
        transfer_agree_yn: 'Y',
        transfer_agree_dtime: agreedAt,
      })),
    });
  });

  // The oob token, as third-party clients call it (research §4; the official Authorization row was not readable).
  const institutionToken = bearerToken(tokens, now, (grant) => grant.kind === 'institution');
  router.post('/v2.0/inquiry/real_name', institutionToken, (ctx) => {
    const at = now();
    const read = readFields(jsonBody(ctx), REAL_NAME_FIELDS);
    if ('problem' in read) return refuse(ctx, at, 'A0004', read.problem);
    const request = read.values as Record<keyof typeof REAL_NAME_FIELDS, string>;
    if (!bankTranIds.wellFormed(request.bank_tran_id))
      return refuse(
        ctx,
        at,
        'A0004',
        'bank_tran_id must be the institution code, U and 9 upper-case letters or digits',
      );
    const type = request.account_holder_info_type;
    const info = request.account_holder_info ?? '';
    if (!HOLDER_INFO_FORMATS[type]) return refuse(ctx, at, 'A0004', 'unknown account_holder_info_type');
    if (!HOLDER_INFO_FORMATS[type].test(info)) return refuse(ctx, at, 'A0321');
    if (!bankTranIds.claim(request.bank_tran_id)) return refuse(ctx, at, 'A0326');

    const account = ledger.find(request.bank_code_std, request.account_num);
    const bankRspCode: BankRspCode = !account ? '412' : holderInfoMatches(account, type, info) ? '000' : '463';
    const known = bankRspCode === '000' ? account : undefined;
    answer(ctx, {
      ...envelope(at, bankRspCode === '000' ? 'A0000' : 'A0002'),
      bank_tran_id: request.bank_tran_id,
      bank_tran_date: koreanDate(at),
      bank_code_tran: request.bank_code_std,
      bank_rsp_code: bankRspCode,
      bank_rsp_message: BANK_RSP[bankRspCode],
      bank_code_std: request.bank_code_std,
      bank_code_sub: known ? '0000000' : '',
      bank_name: BANKS[request.bank_code_std] ?? '',
      savings_bank_name: '',
      account_num: request.account_num,
      account_seq: request.account_seq ?? '',
      account_holder_info_type: type,
      account_holder_info: info,
      account_holder_name: known?.holder ?? '',
      account_type: known ? '1' : '',
    });
  });
}
