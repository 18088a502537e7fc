/**
 * Whether an account number as a bank lists it, part hidden ("1234567***", "000-1230000-***", "20230821***"), can be
 * this account number: the digits it shows are this number's, at the same places. Dashes are not digits; a listing
 * shorter than the number shows its start.
 */
export function maskedMatches(masked: string, accountNo: string): boolean {
  const shown = masked.replace(/[^0-9*]/g, '');
  const digits = accountNo.replace(/\D/g, '');
  if (!shown || !/\d/.test(shown) || shown.length > digits.length) return false;
  // A listing as long as the number lines up with it; a shorter one lines up with its start.
  if (shown.length < digits.length && !shown.endsWith('*')) return false;
  return [...shown].every((c, i) => c === '*' || c === digits[i]);
}
