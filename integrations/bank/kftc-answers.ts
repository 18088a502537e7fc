import { Type, type Static } from '@sinclair/typebox';
import type { TransferOutcome } from './rail';

/**
 * The KFTC open banking API v2.0's answers as the service reads them (docs/providers.md, "Bank"; the sources of every
 * field and code are in test/contract/fixtures/kftc/SOURCES.md). Amounts, counts and dates travel as strings of
 * digits; a business outcome comes back in a 200 with `rsp_code` (A0000: done), and for the bank's part of it
 * `bank_rsp_code` (000: done). Only what is listed here is acted on: anything else is `unknown` and waits for an operator.
 */

const Digits = Type.String({ pattern: '^[0-9]+$' });
const Envelope = {
  api_tran_id: Type.String(),
  api_tran_dtm: Type.String(),
  rsp_code: Type.String({ minLength: 1 }),
  rsp_message: Type.String(),
};
const BankPart = {
  bank_tran_id: Type.String(),
  bank_tran_date: Type.String(),
  bank_code_tran: Type.String(),
  bank_rsp_code: Type.String(),
  bank_rsp_message: Type.String(),
};

export const ErrorAnswer = Type.Object(Envelope);

export const UserToken = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  token_type: Type.String(),
  expires_in: Type.Integer({ minimum: 1 }),
  refresh_token: Type.String({ minLength: 1 }),
  // Kept in columns of these lengths (user_seq_no is N(10), a scope of three words).
  scope: Type.String({ maxLength: 128 }),
  user_seq_no: Type.String({ minLength: 1, maxLength: 64 }),
});
export const InstitutionToken = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  token_type: Type.String(),
  expires_in: Type.Integer({ minimum: 1 }),
  scope: Type.String(),
  client_use_code: Type.String(),
});

export const UserMe = Type.Object({
  ...Envelope,
  user_seq_no: Type.Optional(Type.String()),
  /** The person's CI (연계정보, 88 characters of Base64), the same one every Korean identity agency gives them. */
  user_ci: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()])),
  user_name: Type.Optional(Type.String()),
  res_cnt: Type.Optional(Type.String()),
  res_list: Type.Optional(
    Type.Array(
      Type.Object({
        // AN(24) and the bank code standard, kept in columns of 64 and 3.
        fintech_use_num: Type.String({ minLength: 1, maxLength: 64 }),
        bank_code_std: Type.String({ pattern: '^[0-9]{3}$' }),
        bank_name: Type.String(),
        account_num_masked: Type.String(),
        account_holder_name: Type.String(),
        transfer_agree_yn: Type.String(),
      }),
    ),
  ),
});

export const RealName = Type.Object({
  ...Envelope,
  ...Type.Partial(Type.Object(BankPart)).properties,
  bank_name: Type.Optional(Type.String()),
  account_holder_name: Type.Optional(Type.String()),
});

export const Withdrawal = Type.Object({
  ...Envelope,
  ...Type.Partial(Type.Object(BankPart)).properties,
  tran_amt: Type.Optional(Type.String()),
});

const DepositItem = Type.Object({ tran_no: Type.String(), ...BankPart, tran_amt: Type.String() });
export const Deposit = Type.Object({
  ...Envelope,
  res_cnt: Type.Optional(Digits),
  res_list: Type.Optional(Type.Array(DepositItem)),
});

const ResultItem = Type.Object({ tran_no: Type.String(), ...BankPart, tran_amt: Type.String() });
export const TransferResult = Type.Object({
  ...Envelope,
  res_cnt: Type.Optional(Digits),
  res_list: Type.Optional(Type.Array(ResultItem)),
});

/** rsp_code: the transfer's fate is not known yet; ask transfer/result (A0001 says so itself; A0007, A0017 timeouts). */
const IN_DOUBT = new Set(['A0001', 'A0007', 'A0017']);
/**
 * rsp_code refusing a send as one the centre has seen: A0326 (the bank_tran_id was used already today), A0008 (중복거래,
 * a duplicate transaction). The first send may have arrived and moved the money, whatever became of it: never a
 * refusal, asked about (transfer/result).
 */
const SEEN_BEFORE = new Set(['A0008', 'A0326']);
/**
 * bank_rsp_code that some integrators read as "still processing, ask again": their meaning is not published, so they are
 * asked about, never read as a refusal.
 */
const BANK_IN_DOUBT = new Set(['400', '803', '804', '819', '822']);
/** rsp_code of transfer/result for a transfer it has no record of (이체내역 없음). */
export const NOT_FOUND = new Set(['A0310']);

/** The centre's refusals of a request, before any bank: the reason in the service's words (nothing moved). */
export const refusalOf = (rspCode: string): string | undefined => REFUSED_BY_CENTRE[rspCode];

/** Refusals of the request itself (nothing moved), by rsp_code: the reason in the service's words. */
const REFUSED_BY_CENTRE: Record<string, string> = {
  A0003: 'refused',
  A0004: 'refused',
  A0005: 'refused',
  A0006: 'refused',
  A0010: 'refused',
  A0011: 'refused',
  A0012: 'refused',
  A0013: 'refused',
  A0014: 'account_closed',
  A0019: 'account_closed',
  A0020: 'bank_closed_now',
  A0021: 'refused',
  // The institution's own deposit limits (이용기관 입금이체 한도: per day, per month, per transfer): ours at the centre,
  // not the person's; told as what they are.
  A0101: 'institution_daily_limit',
  A0102: 'institution_monthly_limit',
  A0103: 'limit_exceeded',
  A0104: 'limit_exceeded',
  A0105: 'limit_exceeded',
  A0106: 'institution_per_transfer_limit',
  A0111: 'limit_exceeded',
  A0112: 'limit_exceeded',
  A0301: 'refused',
  A0302: 'refused',
  A0303: 'refused',
  A0304: 'consent_required',
  A0305: 'consent_required',
  A0306: 'consent_required',
  A0307: 'refused',
  A0312: 'holder_mismatch',
  A0313: 'consent_required',
  A0316: 'consent_required',
  A0317: 'refused',
  A0319: 'consent_required',
  A0322: 'refused',
  A0323: 'consent_required',
  A0327: 'refused',
  A0332: 'consent_required',
  A0334: 'consent_required',
  A0337: 'consent_required',
};

/**
 * The bank's refusals (bank_rsp_code) the specification's code list names (별첨, as copied in
 * test/contract/fixtures/kftc/SOURCES.md), in the service's words: nothing moved. A code not on it is not read as a
 * refusal: the transfer is `unknown`, for an operator, and asked about again.
 */
const REFUSED_BY_BANK: Record<string, string> = {
  '412': 'no_such_account',
  '413': 'account_closed',
  '414': 'account_closed',
  '415': 'account_closed',
  '416': 'account_closed',
  '417': 'account_restricted',
  '418': 'account_restricted',
  '419': 'account_restricted',
  '420': 'account_restricted',
  '421': 'account_restricted',
  '422': 'account_restricted',
  '424': 'account_restricted',
  '425': 'account_restricted',
  '426': 'account_restricted',
  '427': 'account_restricted',
  '428': 'account_restricted',
  '431': 'account_restricted',
  '432': 'account_restricted',
  '433': 'account_restricted',
  '452': 'account_restricted',
  '453': 'insufficient_funds',
  '454': 'insufficient_funds',
  '455': 'limit_exceeded',
  '456': 'limit_exceeded',
  '458': 'account_restricted',
  '461': 'holder_mismatch',
  '462': 'account_restricted',
  '463': 'holder_mismatch',
  '464': 'consent_required',
  '467': 'account_restricted',
  '468': 'consent_required',
  '470': 'account_restricted',
  '471': 'account_restricted',
  '472': 'account_restricted',
  '473': 'account_restricted',
  '474': 'account_restricted',
  '475': 'account_restricted',
  '476': 'account_restricted',
  '477': 'account_restricted',
  '490': 'account_restricted',
  '499': 'refused',
  '551': 'consent_required',
  '555': 'consent_required',
  '556': 'consent_required',
  '815': 'holder_mismatch',
};

/** The bank's part of an answer: done, refused, or not known yet. */
export function bankOutcome(bankRspCode: string, amount: bigint, message: string): TransferOutcome {
  if (bankRspCode === '000') return { status: 'completed', amount };
  if (BANK_IN_DOUBT.has(bankRspCode))
    return { status: 'in_doubt', reason: `the bank answered ${bankRspCode} (${message.slice(0, 80)})` };
  const reason = REFUSED_BY_BANK[bankRspCode];
  if (!reason)
    return { status: 'unknown', reason: `the bank answered the unlisted code "${bankRspCode.slice(0, 16)}"` };
  return { status: 'rejected', reason, code: bankRspCode, detail: message.slice(0, 200) };
}

/**
 * What an answer's rsp_code means for a transfer before the bank's part is read: `undefined` when the bank's part
 * decides (A0000, A0002 a participating bank's error, A0009 per item).
 */
export function centreOutcome(rspCode: string, message: string): TransferOutcome | undefined {
  if (rspCode === 'A0000' || rspCode === 'A0002' || rspCode === 'A0009') return undefined;
  if (IN_DOUBT.has(rspCode) || SEEN_BEFORE.has(rspCode))
    return { status: 'in_doubt', reason: `the open banking centre answered ${rspCode} (${message.slice(0, 80)})` };
  const reason = REFUSED_BY_CENTRE[rspCode];
  if (reason) return { status: 'rejected', reason, code: rspCode, detail: message.slice(0, 200) };
  return { status: 'unknown', reason: `the open banking centre answered the undocumented ${rspCode.slice(0, 16)}` };
}

export type WithdrawalAnswer = Static<typeof Withdrawal>;
export type DepositAnswer = Static<typeof Deposit>;
export type TransferResultAnswer = Static<typeof TransferResult>;

/** The bank's part of an answer about our transfer; one about another transfer or amount is not ours: unknown. */
export function itemOutcome(
  item: { bank_tran_id?: string; bank_rsp_code?: string; bank_rsp_message?: string; tran_amt?: string } | undefined,
  bankTranId: string,
  amount: bigint,
): TransferOutcome {
  if (!item?.bank_rsp_code) return { status: 'unknown', reason: 'the answer carries no bank_rsp_code' };
  if (item.bank_tran_id !== undefined && item.bank_tran_id !== bankTranId)
    return { status: 'unknown', reason: `the answer is for ${item.bank_tran_id.slice(0, 20)}, not ${bankTranId}` };
  const outcome = bankOutcome(item.bank_rsp_code, amount, item.bank_rsp_message ?? '');
  if (outcome.status === 'completed' && item.tran_amt !== undefined && item.tran_amt !== wonOnTheWire(amount))
    return { status: 'unknown', reason: `the bank moved ${item.tran_amt.slice(0, 20)} won, not ${amount}` };
  return outcome;
}

/** Won as the API types amounts: a string of digits (N(12)), 1 to 999,999,999,999. */
export function wonOnTheWire(amount: bigint): string {
  if (amount <= 0n || amount >= 10n ** 12n)
    throw new Error(`a bank amount must be 1 to 999,999,999,999 won: ${amount}`);
  return amount.toString();
}
