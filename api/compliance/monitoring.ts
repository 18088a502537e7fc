import type { Orm } from '../../db/orm';
import { AddressBookEntryEntity } from '../../db/entities';
import { formatMoney } from '../../platform/money';
import { HotStatement } from '../../db/sql';
import type { CheckFindings, TransferCheck, TransferIntent } from '../transfer/intent';

/**
 * The user's transfers of the last 24 hours that did not fail (`paid_before` 0), and their earlier transfers (1) to
 * any of those recipients or to this one, in one round trip (every transfer's execute reads both; issue 52).
 */
const RECENT_AND_PAID_BEFORE = new HotStatement<{
  paid_before: number;
  network_id: string;
  to_address: string;
  value_krw: string | number | null;
}>(
  'monitoring-recent-and-paid-before',
  'with recent as (select network_id, to_address, value_krw from transfers ' +
    "where user_id = ? and status <> 'failed' and created_at >= ?) " +
    'select 0 as paid_before, network_id, to_address, value_krw from recent ' +
    'union all ' +
    'select 1, network_id, to_address, null from transfers where user_id = ? and created_at < ? ' +
    'and to_address in (select to_address from recent union select ?)',
);

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');
const DAY_MS = 24 * 3600_000;

export interface MonitoringRules {
  /** What counts as a large transfer (won, at the request's price). */
  largeKrw: bigint;
  /** Structuring: transfers to one destination within 24 h that together reach this, each below it. */
  structuringKrw: bigint;
  /** Fan-out: this many recipients paid for the first time within 24 h. */
  fanOutRecipients: number;
  /** A large transfer to a recipient added to the address book this recently (minutes). */
  newRecipientMinutes: number;
  /** A large transfer from a device signed in this recently (hours; not the registering device). */
  newDeviceHours: number;
}

/**
 * Transaction monitoring: rules over the user's transfers that hold a transfer for an operator's decision instead of
 * refusing it. Run at execute, after the refusals (limits, screening, the Travel Rule): the first rule that matches is
 * the case's kind. The transfer is then recorded held_for_review (its funds reserved and counted toward the limits)
 * and its workflow waits for the decision (POST /v1/compliance/cases/{caseId}/decision).
 */
export class Monitoring {
  constructor(private readonly deps: { orm: Orm; rules: MonitoringRules; now?: () => number }) {}

  check(): TransferCheck {
    return { name: 'monitoring', stages: ['execute'], run: (intent) => this.review(intent) };
  }

  async review(intent: TransferIntent): Promise<CheckFindings> {
    const { rules } = this.deps;
    const now = (this.deps.now ?? Date.now)();
    const em = this.deps.orm.em.fork();
    const networkId = intent.network.networkId;
    const large = intent.valueKrw >= rules.largeKrw;
    const dayAgo = new Date(now - DAY_MS);
    const read = await RECENT_AND_PAID_BEFORE.rows(em, [
      intent.userId,
      dayAgo,
      intent.userId,
      dayAgo,
      intent.recipient,
    ]);
    const recent = read
      .filter((t) => Number(t.paid_before) === 0)
      .map((t) => ({
        networkId: t.network_id,
        toAddress: t.to_address,
        valueKrw: t.value_krw === null ? null : BigInt(t.value_krw),
      }));

    if (intent.valueKrw < rules.structuringKrw) {
      const same = recent.filter((t) => t.networkId === networkId && t.toAddress === intent.recipient);
      const total = same.reduce((sum, t) => sum + (t.valueKrw ?? 0n), 0n) + intent.valueKrw;
      if (same.length && total >= rules.structuringKrw) {
        return {
          review: {
            kind: 'structuring',
            detail: `${same.length + 1} transfers to one destination within 24 h, each below ${won(rules.structuringKrw)}, together ${won(total)}`,
          },
        };
      }
    }

    // Which of the day's recipients (this one included) were paid before the day: read with the day's transfers,
    // bounded by those addresses (it read every transfer the user ever made before the day, a cost that grew with
    // their history).
    const key = (t: { networkId: string; toAddress: string }) => `${t.networkId}:${t.toAddress}`;
    const recipients = new Set(recent.map(key));
    recipients.add(key({ networkId, toAddress: intent.recipient }));
    const paidBefore = new Set(
      read
        .filter((t) => Number(t.paid_before) === 1)
        .map((t) => ({ networkId: t.network_id, toAddress: t.to_address }))
        .map(key),
    );
    if (!paidBefore.has(key({ networkId, toAddress: intent.recipient }))) {
      for (const paid of paidBefore) recipients.delete(paid);
      if (recipients.size >= rules.fanOutRecipients) {
        return {
          review: {
            kind: 'fan_out',
            detail: `${recipients.size} new recipients within 24 h (from ${rules.fanOutRecipients} a case is opened)`,
          },
        };
      }
    }

    if (large) {
      const entry = await em.findOne(AddressBookEntryEntity, {
        userId: intent.userId,
        networkId,
        address: intent.recipient,
      });
      if (entry && now - entry.addedAt.getTime() < rules.newRecipientMinutes * 60_000) {
        return {
          review: {
            kind: 'new_recipient_large',
            detail: `${won(intent.valueKrw)} to a recipient added ${Math.round((now - entry.addedAt.getTime()) / 60_000)} minutes ago`,
          },
        };
      }
      const device = intent.device;
      if (
        device &&
        device.signInMethod !== 'registration' &&
        now - device.signedInAt.getTime() < rules.newDeviceHours * 3600_000
      ) {
        return {
          review: {
            kind: 'new_device_large',
            detail: `${won(intent.valueKrw)} from a device that signed in ${Math.round((now - device.signedInAt.getTime()) / 60_000)} minutes ago`,
          },
        };
      }
    }
    return {};
  }
}
