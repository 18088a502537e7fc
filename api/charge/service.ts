import { createHmac } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { BankAccountEntity, ChargeEntity, LedgerAccountEntity } from '../../db/entities';
import { FIAT_DECIMALS, formatDecimal, formatMoney, parseAmount } from '../../platform/money';
import { chargeWorkflow } from '../../workflows/charge';
import { chargeWorkflowId } from '../../workflows/messages';
import { safeEqual } from '../auth/tokens';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { insertWithEvent } from '../../db/events';
import { HotStatement } from '../../db/sql';
import type { SessionCache } from '../common/session-cache';
import { clock } from '../../platform/clock';

/**
 * A charge start's source: the user's connected accounts, kept per api process while PostgreSQL tells of no change
 * (triggers on bank_accounts, migration 20261126090000AccountNotifications), else read with prepared SQL.
 */
const CONNECTED_ACCOUNTS = new HotStatement<{
  bank_account_id: string;
  bank_code: string;
  bank_name: string;
  currency: string;
  rail_account_ref: string | null;
}>(
  'charge-sources',
  'select bank_account_id, bank_code, bank_name, currency, rail_account_ref from bank_accounts where user_id = ?',
);

export interface ChargeServiceDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  /** BANK_WEBHOOK_SECRET of the deprecated settlement webhook; unset: the route refuses every call. */
  webhookSecret?: string;
  chargeMaxAmountKrw: number;
  /** Keeps a user's connected accounts per process while the database tells of no change (the api's). */
  cache?: SessionCache;
}

/** Charging the user's balance from a connected bank account: the API records the charge and starts charge-<id>. */
export class ChargeService {
  constructor(private readonly deps: ChargeServiceDeps) {}

  async start(userId: string, chargeId: string, input: { source: string; amount: string; currency: string }) {
    const amount = this.amountOf(input.amount, input.currency);
    const em = this.deps.orm.em;
    const read = () => CONNECTED_ACCOUNTS.rows(em, [userId]);
    const accounts = await (this.deps.cache ? this.deps.cache.through(userId, 'bank-accounts', read) : read());
    const matching = accounts.filter(
      (a) => a.bank_account_id === input.source || a.bank_name === input.source || a.bank_code === input.source,
    );
    // Two accounts at the bank named: which one the person means is theirs to say, never the database's row order.
    if (matching.length > 1)
      throw problems.unprocessable(
        'source-ambiguous',
        `You have ${matching.length} accounts at ${input.source}: name one by its bank_account_id (GET /api/v1/bank/accounts)`,
        { bankAccountIds: matching.map((a) => a.bank_account_id) },
      );
    const [source] = matching;
    if (!source)
      throw problems.unprocessable(
        'source-not-connected',
        `${input.source} is not one of your connected accounts; verify it with /api/v1/bank/send-won first`,
      );
    if (source.currency !== input.currency)
      throw problems.unprocessable(
        'currency-mismatch',
        `${source.bank_name} holds ${source.currency}, not ${input.currency}`,
      );
    // The bank takes money from an account only with the person's consent at the bank (open banking).
    if (!source.rail_account_ref)
      throw problems.unprocessable(
        'bank-consent-required',
        `Charging from ${source.bank_name} needs your consent at the bank first: POST /api/v1/bank/consent, then open its authorization_url`,
        { consentRoute: '/api/v1/bank/consent' },
      );
    // Recorded once per charge id (a retry with the same Idempotency-Key finds it), with its charge.processing event
    // when the row is new: one statement on PostgreSQL (see insertWithEvent).
    const now = clock.date();
    await insertWithEvent(
      em,
      'charge-start',
      {
        sql:
          'insert into charges (charge_id, user_id, bank_account_id, bank_code, amount, currency, status, created_at, updated_at) ' +
          "values (?, ?, ?, ?, ?, ?, 'processing', ?, ?) on conflict (charge_id) do nothing",
        params: [chargeId, userId, source.bank_account_id, source.bank_code, amount, input.currency, now, now],
      },
      {
        type: 'charge.processing',
        resourceId: chargeId,
        userId,
        data: { chargeId, amount: amount.toString(), currency: 'KRW' },
      },
    );
    await startOnce(() =>
      this.deps.temporal.workflow.start(chargeWorkflow, {
        workflowId: chargeWorkflowId(chargeId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ chargeId, userId }],
      }),
    );
    return { charge_id: chargeId, status: 'processing' };
  }

  async view(userId: string, chargeId: string) {
    const em = this.deps.orm.em.fork();
    const charge = await em.findOne(ChargeEntity, { chargeId, userId });
    if (!charge) throw problems.notFound(`Charge ${chargeId}`);
    const account = await em.findOneOrFail(BankAccountEntity, { bankAccountId: charge.bankAccountId });
    return {
      charge_id: charge.chargeId,
      status: charge.status,
      amount: formatMoney(charge.amount, FIAT_DECIMALS[charge.currency] ?? 0, charge.currency),
      currency: charge.currency,
      source: account.bankName,
      failure_reason: charge.failureReason ?? null,
      created_at: charge.createdAt.toISOString(),
      completed_at: charge.completedAt?.toISOString() ?? null,
    };
  }

  async balances(userId: string) {
    const accounts = await this.deps.orm.em
      .fork()
      .find(LedgerAccountEntity, { userId, kind: 'user_balance' }, { orderBy: { currency: 'asc' } });
    const krw = accounts.some((a) => a.currency === 'KRW') ? [] : [{ currency: 'KRW', balance: 0n }];
    return {
      balances: [...accounts, ...krw].map((a) => {
        const decimals = FIAT_DECIMALS[a.currency] ?? 0;
        return {
          currency: a.currency,
          amount: formatDecimal(a.balance, decimals).replace(/,/g, ''),
          display: formatMoney(a.balance, decimals, a.currency),
        };
      }),
    };
  }

  /**
   * The deprecated settlement webhook: checked against its HMAC and its charge, and acknowledged. What it reports is
   * not told to the charge: a charge follows only what the bank answers to its own requests (the withdrawal and the
   * result inquiry), so a report, even a signed one, can never credit a charge the bank refused (nor fail one it paid).
   */
  async settle(rawBody: string, signature: string, report: { reference: string }) {
    const secret = this.deps.webhookSecret;
    const expected = secret ? `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}` : '';
    // Compared as fixed-length digests: a header of any length or alphabet (latin-1 bytes too) is just a wrong one.
    if (!secret || !safeEqual(signature, expected)) {
      throw problems.invalidCredential(
        'invalid-signature',
        'The X-Bank-Signature header is missing or does not match the body',
      );
    }
    const charge = await this.deps.orm.em.fork().findOne(ChargeEntity, { chargeId: report.reference });
    if (!charge) throw problems.notFound(`Charge ${report.reference}`);
    return { received: true };
  }

  private amountOf(text: string, currency: string): bigint {
    const decimals = FIAT_DECIMALS[currency];
    if (decimals === undefined)
      throw problems.unprocessable(
        'unsupported-currency',
        `Charges in ${currency} are not supported; supported: ${Object.keys(FIAT_DECIMALS).join(', ')}`,
      );
    const amount = parseAmount(text, decimals, currency);
    const max = BigInt(this.deps.chargeMaxAmountKrw);
    if (amount > max)
      throw problems.unprocessable(
        'limit-exceeded',
        `A single charge is limited to ${formatMoney(max, decimals, currency)}`,
      );
    return amount;
  }
}
