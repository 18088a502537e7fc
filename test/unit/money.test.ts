import { AmountError, formatMoney, parseAmount } from '../../platform/money';

describe('amounts: decimal text to minor units and back', () => {
  it('parses within the decimals of the currency or token', () => {
    expect(parseAmount('10000', 0, 'KRW')).toBe(10000n);
    expect(parseAmount('10000.00', 0, 'KRW')).toBe(10000n);
    expect(parseAmount('0.0021', 18, 'ETH')).toBe(2_100_000_000_000_000n);
    expect(parseAmount('1.5', 6, 'USDT')).toBe(1_500_000n);
    expect(parseAmount('123456789012345678901234567890', 0, 'KRW')).toBe(123456789012345678901234567890n);
  });

  it('refuses malformed, non-positive and over-precise amounts with a reason', () => {
    const reason = (text: string, decimals = 6) => {
      try {
        parseAmount(text, decimals, 'USDT');
        return 'accepted';
      } catch (e) {
        return (e as AmountError).reason;
      }
    };
    expect(reason('1.0000001')).toBe('too-many-decimals');
    expect(reason('10.5', 0)).toBe('too-many-decimals');
    expect(reason('0')).toBe('not-positive');
    expect(reason('0.000000')).toBe('not-positive');
    for (const bad of ['-1', '1e3', '1,000', ' 1', '1.', '.5', '', '0x10', 'NaN'])
      expect(reason(bad)).toBe('malformed');
  });

  it('formats as the interface shows', () => {
    expect(formatMoney(-1000n, 0, 'KRW', { signed: true })).toBe('-1,000 KRW');
    expect(formatMoney(10000n, 0, 'KRW', { signed: true })).toBe('+10,000 KRW');
    expect(formatMoney(2_100_000_000_000_000n, 18, 'ETH')).toBe('0.0021 ETH');
    expect(formatMoney(1_234_567_890_000n, 6, 'USDT')).toBe('1,234,567.89 USDT');
    expect(formatMoney(0n, 6, 'USDT')).toBe('0 USDT');
    expect(formatMoney(-5n, 6, 'USDT')).toBe('-0.000005 USDT');
  });
});
