import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SpendingLimitsEntity, TransferEntity, UserEntity } from '../../db/entities';
import { formatMoney, wonValue } from '../../platform/money';
import { koreanDay } from '../../platform/korean-day';
import type { PriceFeedClient } from '../../integrations/prices';
import { HttpError, problems } from '../http/problems';

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');

export interface Limits { perTransferKrw: bigint; dailyKrw: bigint }

/**
 * Deny by default beyond limits: every crypto transfer is valued in won at the price of the request's hour (no price,
 * no transfer), must fit the per-transfer limit, and together with the day's other transfers that did not fail, the
 * daily limit. Limits are per user (an operator sets them with `npm run limits`), else the configured defaults.
 */
export class SpendingPolicy {
  constructor(private readonly deps: { orm: Orm; prices: PriceFeedClient; defaults: Limits }) {}

  /** The transfer's value in won, rounded up; a price that cannot be had refuses the transfer (503). */
  async valueInWon(token: string, amount: bigint, decimals: number): Promise<bigint> {
    const price = await this.deps.prices.wonPriceCenti(token);
    if (price === undefined) {
      throw new HttpError(503, 'price-unavailable', 'Price unavailable', `No ${token} price in won can be had now, so no transfer is made; try again later`, undefined, { 'retry-after': '60' });
    }
    return wonValue(amount, decimals, price);
  }

  async limitsOf(userId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<Limits> {
    const row = await em.findOne(SpendingLimitsEntity, { userId });
    return row ? { perTransferKrw: row.perTransferKrw, dailyKrw: row.dailyKrw } : this.deps.defaults;
  }

  /** Won spent today by transfers that did not fail (in flight ones count). */
  async usedToday(userId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<bigint> {
    const day = koreanDay();
    const transfers = await em.find(TransferEntity, { userId, status: { $ne: 'failed' }, createdAt: { $gte: day.from, $lt: day.to } }, { fields: ['valueKrw'] });
    return transfers.reduce((sum, t) => sum + (t.valueKrw ?? 0n), 0n);
  }

  /** The per-transfer rule, before anything else is checked (no PIN attempt is spent on a transfer that cannot pass). */
  async assertPerTransfer(userId: string, valueKrw: bigint): Promise<void> {
    const { perTransferKrw } = await this.limitsOf(userId);
    if (valueKrw > perTransferKrw) {
      throw problems.unprocessable('limit-per-transfer', `A single transfer is limited to ${won(perTransferKrw)}; this one is worth ${won(valueKrw)} now. Send at most ${won(perTransferKrw)}.`);
    }
  }

  /**
   * The daily rule, inside the transaction that records the transfer: the user's row is locked first, so two
   * transfers at once (on any networks) cannot both fit the same remaining allowance.
   */
  async assertDaily(tx: EntityManager, userId: string, valueKrw: bigint): Promise<void> {
    await tx.findOneOrFail(UserEntity, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const { dailyKrw } = await this.limitsOf(userId, tx);
    const used = await this.usedToday(userId, tx);
    if (used + valueKrw > dailyKrw) {
      const left = dailyKrw > used ? dailyKrw - used : 0n;
      throw problems.unprocessable('limit-daily', `Transfers are limited to ${won(dailyKrw)} a day; ${won(used)} used today, ${won(left)} left until ${koreanDay().to.toISOString()}; this one is worth ${won(valueKrw)} now.`);
    }
  }

  async view(userId: string) {
    const limits = await this.limitsOf(userId);
    const used = await this.usedToday(userId);
    return {
      per_transfer_krw: limits.perTransferKrw.toString(), daily_krw: limits.dailyKrw.toString(), used_today_krw: used.toString(),
      remaining_today_krw: (limits.dailyKrw > used ? limits.dailyKrw - used : 0n).toString(), resets_at: koreanDay().to.toISOString(),
    };
  }
}
