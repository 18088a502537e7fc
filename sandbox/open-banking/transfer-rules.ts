import { optional, required, type FieldTable } from './fields';
import type { Account } from './ledger';

/** 요청고객 (the institution's customer the transfer is for), shared by withdraw and deposit (research §5, §6). */
export const REQUESTING_CUSTOMER_FIELDS: FieldTable = {
  req_client_name: required('AH', 20),
  req_client_bank_code: optional('AN', 3, { exact: true }),
  req_client_account_num: optional('AN', 16),
  req_client_fintech_use_num: optional('AN', 24),
  req_client_num: required('AN', 20),
};

/** 하위가맹점: optional on both. */
export const SUB_MERCHANT_FIELDS: FieldTable = {
  sub_frnc_name: optional('AH', 40),
  sub_frnc_num: optional('AN', 20),
  sub_frnc_business_num: optional('N', 10, { exact: true }),
};

/**
 * 이체용도: TR 송금, ST 결제, RC 충전 for withdrawals; TR, ST, AU 인증 for deposits. One copy of the spec also lists AU, WD
 * and EX for withdrawals; unconfirmed, so refused.
 */
export const WITHDRAW_PURPOSES = ['TR', 'ST', 'RC'];
export const DEPOSIT_PURPOSES = ['TR', 'ST', 'AU'];

/**
 * The customer's account is named either by bank code and account number or by fintech_use_num, never both and never
 * neither ("둘다 세팅할 경우 오류"), and a bank code goes with an account number.
 */
export function requestingCustomerProblem(fields: Record<string, string | undefined>): string | undefined {
  const byNumber = [fields.req_client_bank_code, fields.req_client_account_num].filter(Boolean).length;
  const byFintech = Boolean(fields.req_client_fintech_use_num);
  if (byNumber === 1) return 'req_client_bank_code and req_client_account_num go together';
  if ((byNumber === 2) === byFintech)
    return 'name the requesting customer by req_client_bank_code + req_client_account_num or by req_client_fintech_use_num, not both';
  return undefined;
}

/** cntr_account_type N (an account, not C an 계정) and cntr_account_num: the institution's registered 약정 계좌. */
export const isContractAccount = (fields: Record<string, string | undefined>, contract: Account): boolean =>
  fields.cntr_account_type === 'N' && fields.cntr_account_num === contract.accountNo;

/** tran_amt as KRW, or undefined when it is not a positive amount. */
export function amountOf(tranAmt: unknown): number | undefined {
  if (typeof tranAmt !== 'string' || !/^\d{1,12}$/.test(tranAmt)) return undefined;
  const amount = Number(tranAmt);
  return amount > 0 ? amount : undefined;
}

/** A field of a body not read yet, for the record of what arrived. */
export const sentString = (body: unknown, name: string): string => {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
};
