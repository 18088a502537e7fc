import { randomBytes } from 'node:crypto';
import { QuoteEngine, type Venue } from '../../api/exchange/quote';
import { DataEncryption } from '../../platform/data-encryption';

/** A venue answering one fixed route: what the engine does around any venue's answer (sealing, limits, fields). */
const venue: Venue = {
  name: 'fixed',
  exactOutput: true,
  tradable: () => ['ETH', 'USDT'],
  decimals: (symbol) => (symbol === 'ETH' ? 18 : 6),
  quote: async (_source, _target, direction, amount) => ({
    kind: 'quote',
    quote: {
      hops: [{ tokenIn: 'ETH', tokenOut: 'USDT', feeTier: 500, pool: '0xpool' }],
      amountIn: direction === 'exactInput' ? amount : 10n ** 18n,
      amountOut: direction === 'exactInput' ? 3_000_000_000n : amount,
      priceImpactPpm: 1_000n,
      blockNumber: 42,
    },
  }),
};
const engine = (encryption: DataEncryption) =>
  new QuoteEngine(
    new Map([['ETHEREUM', venue]]),
    { slippageBps: 50, priceImpactWarningPpm: 30_000, ttlSeconds: 60 },
    encryption,
    // ETH at 4,000,000 KRW, 5,000,000 KRW a day, nothing swapped yet.
    {
      dailyKrw: 5_000_000n,
      usedToday: async () => 0n,
      valueKrw: async (_s, amount) => (amount * 4_000_000n) / 10n ** 18n,
    },
    () => Date.parse('2026-12-02T00:00:00Z'),
  );

describe('quote ids', () => {
  const encryption = new DataEncryption(randomBytes(32).toString('base64'));
  const request = { source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', amount: '3000' } as const;

  it("seal the quote's terms for the user who asked, and only for them", async () => {
    const quote = await engine(encryption).quote({ ...request, direction: 'exactOutput' }, 'user-a', async () => 0n);
    expect(quote).toMatchObject({
      maximumSent: '1.005',
      minimumReceived: '3000',
      expiresAt: '2026-12-02T00:01:00.000Z',
    });
    expect(engine(encryption).openQuote(quote.quoteId, 'user-a')).toEqual({
      v: 1,
      networkId: 'ETHEREUM',
      source: 'ETH',
      target: 'USDT',
      direction: 'exactOutput',
      amountIn: (10n ** 18n).toString(),
      amountOut: '3000000000',
      minimumReceived: '3000000000',
      maximumSent: '1005000000000000000',
      hops: [{ tokenIn: 'ETH', tokenOut: 'USDT', feeTier: 500, pool: '0xpool' }],
      blockNumber: 42,
      expiresAt: Date.parse('2026-12-02T00:01:00Z'),
    });
    // Another user, one altered character, another key, or no quote id at all: nothing opens.
    expect(engine(encryption).openQuote(quote.quoteId, 'user-b')).toBeUndefined();
    const altered = quote.quoteId.slice(0, -2) + (quote.quoteId.endsWith('A') ? 'B' : 'A') + quote.quoteId.slice(-1);
    expect(engine(encryption).openQuote(altered, 'user-a')).toBeUndefined();
    const otherKey = new DataEncryption(randomBytes(32).toString('base64'));
    expect(engine(otherKey).openQuote(quote.quoteId, 'user-a')).toBeUndefined();
    expect(engine(encryption).openQuote('q1.garbage', 'user-a')).toBeUndefined();
  });

  it('counts what an exact output may spend (maximumSent) against the limit and the balance', async () => {
    const exactOut = (balance: bigint) =>
      engine(encryption).quote({ ...request, direction: 'exactOutput' }, 'user-a', async () => balance);
    // The quote needs 1 ETH; with 0.5 % slippage it may take 1.005: a balance of exactly 1 ETH is not enough.
    expect(await exactOut(10n ** 18n)).toMatchObject({
      executable: false,
      notExecutableReason: 'insufficient_balance',
    });
    expect(await exactOut(1_005n * 10n ** 15n)).toMatchObject({ executable: true });
  });
});
