import { clock } from './clock';
const KST_OFFSET_MS = 9 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;

/** The Korean day `at` falls in: [from, to). Daily limits and budgets reset at 00:00 KST. */
export function koreanDay(at = clock.date()): { from: Date; to: Date } {
  const start = Math.floor((at.getTime() + KST_OFFSET_MS) / DAY_MS) * DAY_MS - KST_OFFSET_MS;
  return { from: new Date(start), to: new Date(start + DAY_MS) };
}

/** The Korean day's number since 1970 (as WalletAccount counts its transfer key's daily caps on chain). */
export const koreanDayNumber = (ms: number): number => Math.floor((ms + KST_OFFSET_MS) / DAY_MS);

/**
 * A moment in Korean time as the banks write it: YYYYMMDDHHmmss (and its first eight digits, the bank's day). The
 * banks' calendar runs on real time, never the service's test clock: pass `Date.now()`-based times.
 */
export const koreanDigits = (atMs: number): string =>
  new Date(atMs + KST_OFFSET_MS).toISOString().replace(/\D/g, '').slice(0, 14);
