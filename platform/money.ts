import { DomainError } from './domain-error';

/** Amounts are integers of minor units (bigint); text on the wire is a plain decimal ("10000", "0.0021"). */

/** A malformed, non-positive or over-precise amount: the API answers 422 invalid-amount. */
export class AmountError extends DomainError {
  constructor(
    readonly reason: 'malformed' | 'not-positive' | 'too-many-decimals',
    message: string,
  ) {
    super('invalid-amount', message);
  }
}

/** Parses "1234.5" into minor units with `decimals` places; refuses more decimals than the currency or token has. */
export function parseAmount(text: string, decimals: number, symbol: string): bigint {
  const match = /^(\d{1,30})(?:\.(\d{1,36}))?$/.exec(text);
  if (!match)
    throw new AmountError('malformed', `"${text}" is not a decimal amount (digits, optionally one "." and decimals)`);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    throw new AmountError(
      'too-many-decimals',
      `${symbol} has ${decimals} decimal place${decimals === 1 ? '' : 's'}; "${text}" has more`,
    );
  }
  const minor = BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
  if (minor <= 0n) throw new AmountError('not-positive', 'The amount must be greater than zero');
  return minor;
}

/** "1,234.5" style: thousands separators, no trailing zeros in the fraction. */
export function formatDecimal(minor: bigint, decimals: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = decimals ? digits.slice(digits.length - decimals).replace(/0+$/, '') : '';
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** "-1,000 KRW", "+10,000 KRW" (signed), "0.0021 ETH" (unsigned). */
export function formatMoney(
  minor: bigint,
  decimals: number,
  symbol: string,
  options: { signed?: boolean } = {},
): string {
  const sign = options.signed && minor > 0n ? '+' : '';
  return `${sign}${formatDecimal(minor, decimals)} ${symbol}`;
}

/** Currencies the ledger keeps, with their minor-unit places. */
export const FIAT_DECIMALS: Record<string, number> = { KRW: 0 };

/** What `amount` base units of an asset with `decimals` are worth in won at `priceKrwCenti` (won ×100), rounded up. */
export function wonValue(amount: bigint, decimals: number, priceKrwCenti: bigint): bigint {
  const unit = 10n ** BigInt(decimals) * 100n;
  return (amount * priceKrwCenti + unit - 1n) / unit;
}
