import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SignedOperationEntity, SolanaSwapEntity, UserEntity } from '../../db/entities';
import type { PriceFeedClient } from '../../integrations/prices/feed';
import { formatMoney, wonValue } from '../../platform/money';
import { koreanDay } from '../../platform/korean-day';
import { HttpError, problems } from '../http/problems';

/** The market a token is priced at, where its symbol is not one (wrapped bitcoin is bitcoin). */
const PRICE_ASSET: Record<string, string> = { WBTC: 'BTC' };
const won = (krw: bigint) => formatMoney(krw, 0, 'KRW');

/**
 * The per-person daily limit of swaps, in won (SWAP_DAILY_LIMIT_KRW), on the spending policy's Korean day (from
 * 00:00 KST): what a swap may spend (its input, or the maximum of an exact output) is valued at the hour's price when
 * it is prepared and kept with it; the day's swaps that did not fail or give way count against the limit.
 */
export class SwapLimits {
  constructor(private readonly deps: { orm: Orm; prices: PriceFeedClient; dailyKrw: number }) {}

  get dailyKrw(): bigint {
    return BigInt(this.deps.dailyKrw);
  }

  /** The won value of an amount, rounded up; no usable price is 503 (nothing is quoted or swapped unvalued). */
  async valueKrw(symbol: string, amount: bigint, decimals: number): Promise<bigint> {
    const price = await this.deps.prices.wonPrice(PRICE_ASSET[symbol] ?? symbol);
    if ('refused' in price)
      throw new HttpError(
        503,
        'price-unavailable',
        'Price unavailable',
        `No ${symbol} price in won can be had now (${price.refused}), so the swap cannot be held to its daily limit; try again later`,
        undefined,
        { 'retry-after': '60' },
      );
    return wonValue(amount, decimals, price.centi);
  }

  /** What the person's swaps of the Korean day spend, in won, as valued when each was prepared. */
  async usedToday(userId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<bigint> {
    const swaps = await em.find(
      SignedOperationEntity,
      {
        userId,
        kind: 'swap',
        status: { $in: ['submitted', 'stalled', 'completed'] },
        createdAt: { $gte: koreanDay().from },
      },
      { fields: ['details'] },
    );
    const solana = await em.find(
      SolanaSwapEntity,
      { userId, status: { $in: ['submitted', 'completed'] }, createdAt: { $gte: koreanDay().from } },
      { fields: ['details'] },
    );
    return (
      swaps.reduce((sum, op) => sum + BigInt(op.details.swap?.inputKrw ?? '0'), 0n) +
      solana.reduce((sum, swap) => sum + BigInt(swap.details.inputKrw ?? '0'), 0n)
    );
  }

  /** Refuses a swap that would take the day past the limit (422 swap-daily-limit-exceeded). */
  async assertWithin(userId: string, valueKrw: bigint, tx?: EntityManager): Promise<void> {
    // Inside a transaction that records the swap, the user's row is locked first: concurrent swaps count each other.
    if (tx) await tx.findOneOrFail(UserEntity, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const used = await this.usedToday(userId, tx);
    if (used + valueKrw <= this.dailyKrw) return;
    const left = this.dailyKrw > used ? this.dailyKrw - used : 0n;
    throw problems.unprocessable(
      'swap-daily-limit-exceeded',
      `Swaps are limited to ${won(this.dailyKrw)} a day; ${won(used)} used today, ${won(left)} left until ${koreanDay().to.toISOString()}; this one spends ${won(valueKrw)} now`,
    );
  }
}
