/**
 * Open banking speaks Korean time (Asia/Seoul, UTC+9 all year: Korea keeps no daylight saving time): the day a
 * transfer is booked on (bank_tran_date), the day a bank_tran_id must be unique within, and every time stamp.
 */
const SEOUL_OFFSET_MS = 9 * 60 * 60 * 1000;

/** yyyyMMddHHmmssSSS in Korean time (api_tran_dtm, N(17)). */
export function koreanTimestamp(at: Date): string {
  const seoul = new Date(at.getTime() + SEOUL_OFFSET_MS).toISOString(); // 2024-01-22T15:28:55.178Z, shifted
  return seoul.slice(0, 23).replace(/[-T:.]/g, '');
}

/** yyyyMMddHHmmss in Korean time (tran_dtime, inquiry_agree_dtime: N(14)). */
export const koreanDateTime = (at: Date): string => koreanTimestamp(at).slice(0, 14);

/** yyyyMMdd in Korean time (bank_tran_date, N(8)). */
export const koreanDate = (at: Date): string => koreanTimestamp(at).slice(0, 8);
