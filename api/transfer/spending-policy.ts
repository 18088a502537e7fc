import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { SpendingLimitsEntity } from '../../db/entities';
import { formatMoney, wonValue } from '../../platform/money';
import { koreanDay } from '../../platform/korean-day';
import type { PriceFeedClient } from '../../integrations/prices/feed';
import { HttpError, problems } from '../http/problems';
import type { AddressBook, RecipientStanding } from './address-book';
import { HotStatement, USER_LOCK } from '../../db/sql';

/** The user's own limits (every transfer's checks read them): prepared on PostgreSQL. */
const SPENDING_LIMITS = new HotStatement('spending-limits', 'select * from spending_limits where user_id = ?');
/** What the day's transfers that did not fail were worth, each (the daily limit's sum; also under the user's lock). */
const SPENT_BETWEEN = new HotStatement<{ value_krw: string | number | null }>(
  'transfers-spent-between',
  "select value_krw from transfers where user_id = ? and status <> 'failed' and created_at >= ? and created_at < ?",
);

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');

export interface Limits {
  perTransferKrw: bigint;
  dailyKrw: bigint;
  passkeyAboveKrw: bigint;
}

/** Why a transfer needs the user's passkey: a recipient not (yet) usable, or a value over the user's threshold. */
export type ApprovalReason = 'new-recipient' | 'recipient-cooling-off' | 'above-passkey-threshold';

export interface ApprovalCheck {
  reasons: ApprovalReason[];
  recipient: RecipientStanding;
  thresholdKrw: bigint;
  valueKrw: bigint;
  networkId: string;
  address: string;
}

/**
 * Deny by default beyond limits: every crypto transfer is valued in won at the price of the request's hour (no price,
 * no transfer), must fit the per-transfer limit, and together with the day's other transfers that did not fail, the
 * daily limit. Limits are per user (an operator sets them with `npm run limits`), else the configured defaults.
 */
export class SpendingPolicy {
  constructor(
    private readonly deps: { orm: Orm; prices: PriceFeedClient; defaults: Limits; addressBook: AddressBook },
  ) {}

  /** The transfer's value in won, rounded up; a price that cannot be had, or fails its checks, refuses the transfer (503). */
  async valueInWon(token: string, amount: bigint, decimals: number): Promise<bigint> {
    const price = await this.deps.prices.wonPrice(token);
    if ('refused' in price) {
      throw new HttpError(
        503,
        'price-unavailable',
        'Price unavailable',
        `No ${token} price in won can be had now (${price.refused}), so no transfer is made; try again later`,
        undefined,
        { 'retry-after': '60' },
      );
    }
    return wonValue(amount, decimals, price.centi);
  }

  async limitsOf(userId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<Limits> {
    const row = await SPENDING_LIMITS.entity(em, SpendingLimitsEntity, [userId]);
    if (!row) return this.deps.defaults;
    return {
      perTransferKrw: row.perTransferKrw,
      dailyKrw: row.dailyKrw,
      passkeyAboveKrw: row.passkeyAboveKrw ?? this.deps.defaults.passkeyAboveKrw,
    };
  }

  /** Won spent today by transfers that did not fail (in flight ones count). */
  async usedToday(userId: string, em: EntityManager = this.deps.orm.em.fork()): Promise<bigint> {
    const day = koreanDay();
    const transfers = await SPENT_BETWEEN.rows(em, [userId, day.from, day.to]);
    return transfers.reduce((sum, t) => sum + (t.value_krw === null ? 0n : BigInt(t.value_krw)), 0n);
  }

  /** The per-transfer rule, before anything else is checked (no PIN attempt is spent on a transfer that cannot pass). */
  async assertPerTransfer(valueKrw: bigint, { perTransferKrw }: Limits): Promise<void> {
    if (valueKrw > perTransferKrw) {
      throw problems.unprocessable(
        'limit-per-transfer',
        `A single transfer is limited to ${won(perTransferKrw)}; this one is worth ${won(valueKrw)} now. Send at most ${won(perTransferKrw)}.`,
      );
    }
  }

  /**
   * The daily rule, inside the transaction that records the transfer: the user's row is locked first, so two
   * transfers at once (on any networks) cannot both fit the same remaining allowance. The limit is the request's (read
   * with its price); the day's sum is read under the lock, as the transfers it counts are what the lock orders.
   */
  async assertDaily(tx: EntityManager, userId: string, valueKrw: bigint, { dailyKrw }: Limits): Promise<void> {
    await USER_LOCK.lock(tx, userId);
    const used = await this.usedToday(userId, tx);
    if (used + valueKrw > dailyKrw) {
      const left = dailyKrw > used ? dailyKrw - used : 0n;
      throw problems.unprocessable(
        'limit-daily',
        `Transfers are limited to ${won(dailyKrw)} a day; ${won(used)} used today, ${won(left)} left until ${koreanDay().to.toISOString()}; this one is worth ${won(valueKrw)} now.`,
      );
    }
  }

  /**
   * What a transfer needs beyond the PIN: a passkey approval bound to it when its recipient is not a usable entry of
   * the address book (unless no cooling-off is configured) or its value is over the user's passkey threshold.
   */
  async approvalFor(
    userId: string,
    networkId: string,
    address: string,
    valueKrw: bigint,
    { passkeyAboveKrw }: Limits,
  ): Promise<ApprovalCheck> {
    const { addressBook } = this.deps;
    const recipient = await addressBook.standing(userId, networkId, address);
    const reasons: ApprovalReason[] = [];
    if (recipient.state === 'unknown' && addressBook.coolingOffSeconds > 0) reasons.push('new-recipient');
    if (recipient.state === 'cooling-off') reasons.push('recipient-cooling-off');
    if (valueKrw > passkeyAboveKrw) reasons.push('above-passkey-threshold');
    return { reasons, recipient, thresholdKrw: passkeyAboveKrw, valueKrw, networkId, address };
  }

  /** The refusal of a transfer that needs a passkey approval and came without one: which rule, and what would pass. */
  approvalRefusal(check: ApprovalCheck, hasPasskey: boolean): HttpError {
    const how = hasPasskey
      ? 'approve this transfer with your passkey: POST /api/v1/transfer/crypto/prepare with the same fields and Idempotency-Key, sign its passkey slot and send it as signing.items'
      : 'register a passkey (POST /v1/auth/passkeys) to approve transfers';
    const common = { rule: check.reasons[0], reasons: check.reasons, passkeyRegistered: hasPasskey };
    if (check.reasons.includes('above-passkey-threshold')) {
      return new HttpError(
        422,
        'passkey-required',
        'Unprocessable request',
        `Transfers worth more than ${won(check.thresholdKrw)} need your passkey approval; this one is worth ${won(check.valueKrw)} now. To send it, ${how}; or send at most ${won(check.thresholdKrw)}.`,
        undefined,
        {},
        false,
        { ...common, thresholdKrw: check.thresholdKrw.toString(), valueKrw: check.valueKrw.toString() },
      );
    }
    const usableFrom = check.recipient.state === 'cooling-off' ? check.recipient.usableFrom.toISOString() : undefined;
    const wait = usableFrom
      ? `it is in your address book and can receive from ${usableFrom}`
      : `add it to your address book (POST /api/v1/transfer/address-book); it can receive ${this.deps.addressBook.coolingOffSeconds} seconds later`;
    return new HttpError(
      422,
      'recipient-cooling-off',
      'Unprocessable request',
      `${check.address} is a new recipient on ${check.networkId}: ${wait}. To send now, ${how}.`,
      undefined,
      {},
      false,
      { ...common, network: check.networkId, address: check.address, ...(usableFrom ? { usableFrom } : {}) },
    );
  }

  /** The refusal of a passkey approval by a passkey still in its hold (NEW_PASSKEY_HOLD_SECONDS after it was added). */
  heldPasskeyRefusal(check: ApprovalCheck, heldUntil: Date): HttpError {
    const waived = check.reasons.includes('above-passkey-threshold')
      ? `approve a transfer worth more than ${won(check.thresholdKrw)}`
      : `waive ${check.address}'s cooling-off`;
    return new HttpError(
      422,
      'passkey-on-hold',
      'Unprocessable request',
      `This passkey was added recently: until ${heldUntil.toISOString()} it cannot ${waived}. Approve with a passkey you had before, or wait.`,
      undefined,
      {},
      false,
      { rule: check.reasons[0], reasons: check.reasons, heldUntil: heldUntil.toISOString() },
    );
  }

  async view(userId: string) {
    const limits = await this.limitsOf(userId);
    const used = await this.usedToday(userId);
    return {
      per_transfer_krw: limits.perTransferKrw.toString(),
      daily_krw: limits.dailyKrw.toString(),
      passkey_above_krw: limits.passkeyAboveKrw.toString(),
      used_today_krw: used.toString(),
      remaining_today_krw: (limits.dailyKrw > used ? limits.dailyKrw - used : 0n).toString(),
      resets_at: koreanDay().to.toISOString(),
      recipient_cooling_off_seconds: this.deps.addressBook.coolingOffSeconds,
    };
  }
}
