/** The fewest digits a listing must show before it is taken as one account number (KFTC lists all but the last 3). */
export const MIN_SHOWN_DIGITS = 6;

/**
 * Whether an account number as a bank lists it, part hidden ("1234567***", "000-1230000-***", "20230821***"), can be
 * this account number: as many places as the number has (dashes are not digits, a hidden digit is one place), at
 * least MIN_SHOWN_DIGITS digits shown, each this number's at the same place. A listing of another length is not
 * taken as this number: a link the person never meant costs more than a charge source waiting for a new consent.
 */
export function maskedMatches(masked: string, accountNo: string): boolean {
  const shown = masked.replace(/[^0-9*]/g, '');
  const digits = accountNo.replace(/\D/g, '');
  if (shown.length !== digits.length) return false;
  if (shown.replace(/\*/g, '').length < MIN_SHOWN_DIGITS) return false;
  return [...shown].every((c, i) => c === '*' || c === digits[i]);
}

/**
 * Pairs the person's connected accounts with the accounts a bank listed, each pair only when it is the one match on
 * both sides: a listing two connected accounts could be, or a connected account two listings could be, links
 * nothing, since the wrong pairing would withdraw from another account than the person chose. Give every listing the
 * bank showed (withdrawals agreed or not) and every connected account at that bank, and keep the pairs wanted after.
 */
export function pairListed<C, L>(
  connected: readonly C[],
  listed: readonly L[],
  matches: (connected: C, listed: L) => boolean,
): Map<C, L> {
  const pairs = new Map<C, L>();
  for (const account of connected) {
    const candidates = listed.filter((l) => matches(account, l));
    if (candidates.length !== 1) continue;
    const [only] = candidates;
    if (connected.filter((c) => matches(c, only)).length === 1) pairs.set(account, only);
  }
  return pairs;
}
