/**
 * The response codes this stand-in answers with, and their messages. A-codes (rsp_code) and bank codes
 * (bank_rsp_code) are copied from the one code list the research found (a bank's enum; the official 별첨 list was not
 * readable). The O-codes are the emulator's own: KFTC has gateway codes starting with O, but no list of them is public,
 * so these numbers and meanings are an assumption an adapter must not rely on beyond "O… = refused by the gateway".
 */
export const RSP = {
  A0000: '',
  A0001: '처리 중 (이체결과조회 요망, 이체 시)',
  A0002: '참가기관 에러',
  A0004: '요청전문 포맷에러',
  A0007: '처리시간 초과 에러',
  A0008: '중복거래 에러',
  A0009: 'API 세부업무 처리실패(리스트 건별 처리결과 확인)',
  A0017: '참가기관 응답전문 timeout',
  // The institution's own deposit limits (이용기관 입금이체 한도), as the enterprise client's copy of the code list gives
  // them (`KftcErrorCode`, code index file 55319651774; test/contract/fixtures/kftc/SOURCES.md).
  A0101: '이용기관 입금이체 한도 초과(일 한도)',
  A0102: '이용기관 입금이체 한도 초과(월 한도)',
  A0106: '이용기관 입금이체 한도 초과(건당 한도)',
  A0112: '사용자 출금이체 한도 초과(일 한도)',
  A0304: '핀테크 이용번호 정보 불일치',
  A0307: '이체암호문구 불일치',
  A0310: '이체내역 없음',
  A0312: '예금주명 불일치',
  A0313: '사용자 불일치',
  A0321: '예금주 실명번호 구분코드와 실명번호의 형식 불일치',
  A0322: '미등록된 이용기관 약정 계좌/계정',
  A0326: '거래고유번호(참가기관) 중복',
} as const;
export type RspCode = keyof typeof RSP;

/**
 * The codes a deposit to an account held in another name than the one given (name_check_option on) may be refused
 * with: 815 per item, as an intermediary over KFTC (Payple) reports it, or A0312 (예금주명 불일치), the centre's own.
 */
export const NAME_MISMATCH_CODES = ['815', 'A0312'] as const;
export type NameMismatchCode = (typeof NAME_MISMATCH_CODES)[number];

/**
 * The codes the centre may refuse a withdrawal or deposit with when it has seen its bank_tran_id before: A0326
 * (거래고유번호(참가기관) 중복, by default) or A0008 (중복거래 에러), both in the code list.
 */
export const DUPLICATE_CODES = ['A0326', 'A0008'] as const;
export type DuplicateCode = (typeof DUPLICATE_CODES)[number];

/** The codes a transfer may be answered with when its outcome is not known yet (research §8.3). */
export const IN_DOUBT_CODES = ['A0001', 'A0007', 'A0017'] as const;
export type InDoubtCode = (typeof IN_DOUBT_CODES)[number];

export const BANK_RSP = {
  '000': '',
  '412': '해당계좌 없음',
  '453': '예금잔액 부족',
  // The research lists 463 as "실명번호 상위" (a different real-name number): the answer when the birth date or resident
  // number given is not the holder's.
  '463': '실명번호 상위',
  '499': '기타 처리불가',
  // 815 comes from Payple (an intermediary over KFTC), not from the bank code list; the research found it nowhere else.
  '815': '예금주명 불일치',
} as const;
export type BankRspCode = keyof typeof BANK_RSP;

/** Gateway refusals (HTTP 400/401): the emulator's assumed codes, see above. */
export const GATEWAY = {
  invalidRequest: { status: 400, rsp_code: 'O0001', rsp_message: '요청 파라미터 오류' },
  invalidToken: { status: 401, rsp_code: 'O0002', rsp_message: 'Access Token 오류 (없음, 만료 또는 권한 없음)' },
  invalidClient: { status: 401, rsp_code: 'O0003', rsp_message: '이용기관 인증 실패 (client_id/client_secret)' },
  invalidGrant: { status: 400, rsp_code: 'O0004', rsp_message: '인가코드 또는 Refresh Token 오류' },
  invalidScope: { status: 400, rsp_code: 'O0005', rsp_message: 'scope 오류' },
} as const;
export type GatewayRefusal = (typeof GATEWAY)[keyof typeof GATEWAY];
