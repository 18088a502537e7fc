import type { Client } from '@temporalio/client';
import { raw } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import {
  BankAccountEntity,
  BankTranIdEntity,
  LedgerAccountEntity,
  PayoutEntity,
  bankAccountNoAad,
  type BankAccount,
  type Payout,
  type User,
} from '../../db/entities';
import { InsufficientBalance, payoutsInTransitAccount, postJournal, userBalanceAccount } from '../../db/ledger';
import { appendEvent } from '../../db/events';
import { moneyInMotion } from '../../db/money-in-motion';
import type { DataEncryption } from '../../platform/data-encryption';
import { formatMoney } from '../../platform/money';
import { koreanDay } from '../../platform/korean-day';
import { clock } from '../../platform/clock';
import { payoutWorkflow } from '../../workflows/payout';
import { payoutDecisionSignal, payoutWorkflowId, type ClosureBlocker } from '../../workflows/messages';
import { problems } from '../http/problems';
import { startOnce } from '../http/start-once';
import { findPage, type KeysetOrder, type PageRequest } from '../http/pagination';
import type { BankVerificationService } from '../bank/service';
import type { SecurityNotices } from '../common/security-notices';

export interface PayoutServiceDeps {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  encryption: DataEncryption;
  verifications: BankVerificationService;
  notices: SecurityNotices;
  /** PAYOUT_MAX_AMOUNT_KRW: the largest payout a person may ask for. */
  maxAmountKrw: number;
  /** PAYOUT_DAILY_LIMIT_KRW: what a person may pay out in a Korean day (00:00 KST), payouts not failed. */
  dailyLimitKrw: number;
}

const won = (amount: bigint) => formatMoney(amount, 0, 'KRW');
const ORDER: KeysetOrder<'createdAt' | 'payoutId'> = {
  list: 'payouts',
  fields: ['createdAt', 'payoutId'],
  kinds: ['date', 'string'],
  order: 'desc',
};

export interface PayoutRequest {
  bankAccountId: string;
  amount: bigint;
  purpose: 'request' | 'closure';
}

/**
 * Payouts of won from the balance to the person's own verified bank account. The API checks the account (one of the
 * person's, named by the bank's real-name inquiry as the person), then in one transaction records the payout, moves
 * its amount from the balance to payouts in transit (the balance guard refuses what the balance does not hold, so two
 * payouts at once never spend the same won) and writes payout.processing; the workflow payout-<id> moves the money.
 */
export class PayoutService {
  constructor(private readonly deps: PayoutServiceDeps) {}

  /** The KRW balance, as the ledger holds it. */
  async balance(userId: string): Promise<bigint> {
    const account = await this.deps.orm.em
      .fork()
      .findOne(LedgerAccountEntity, { accountId: userBalanceAccount(userId, 'KRW') });
    return account?.balance ?? 0n;
  }

  /**
   * What stops a closure that the database knows of (the worker checks them again, with what is on chain, as it
   * closes): asked before a closure pays the balance out, so that a closure that cannot happen moves no money.
   */
  closureBlockers(userId: string): Promise<ClosureBlocker[]> {
    return moneyInMotion(this.deps.orm.em.fork(), userId);
  }

  /** The person's verified accounts, by id (where a closure may pay the balance back). */
  async verifiedAccounts(userId: string): Promise<string[]> {
    const accounts = await this.deps.orm.em
      .fork()
      .find(BankAccountEntity, { userId }, { orderBy: { connectedAt: 'asc' }, fields: ['bankAccountId'] });
    return accounts.map((a) => a.bankAccountId);
  }

  /** A verified account of the person's, or 422 naming where to verify one. */
  async verifiedAccount(userId: string, bankAccountId: string): Promise<BankAccount> {
    const account = await this.deps.orm.em.fork().findOne(BankAccountEntity, { bankAccountId, userId });
    if (!account)
      throw problems.unprocessable(
        'payout-account-not-verified',
        `${bankAccountId} is not one of your verified bank accounts: pay out only to an account of yours verified with 1 KRW (POST /api/v1/bank/send-won, then GET /api/v1/bank/accounts)`,
        { verifyRoute: '/api/v1/bank/send-won' },
      );
    return account;
  }

  /**
   * Accepts a payout under `payoutId` (derived from the Idempotency-Key: a retry finds the same payout and moves
   * nothing again), then starts its workflow.
   */
  async start(
    user: User,
    payoutId: string,
    request: PayoutRequest,
    options: { startWorkflow?: boolean } = {},
  ): Promise<{ payout: Payout; balance: bigint }> {
    // A closure runs the payout as its own child workflow (account-closure-<userId>), not started here.
    const start = options.startWorkflow ?? true;
    const { orm, encryption } = this.deps;
    const known = await orm.em.fork().findOne(PayoutEntity, { payoutId });
    if (known) {
      if (
        known.userId !== user.id ||
        known.bankAccountId !== request.bankAccountId ||
        (request.purpose === 'request' && known.amount !== request.amount)
      )
        throw problems.unprocessable(
          'idempotency-key-reused',
          'This Idempotency-Key was already used with a different request',
        );
      // Started again only while it is not final (a lost start; a run that ended is not run again).
      if (start && (known.status === 'processing' || known.status === 'needs_review')) await this.startWorkflow(known);
      return { payout: known, balance: await this.balance(user.id) };
    }
    if (request.purpose === 'request') this.checkAmount(request.amount);
    const account = await this.verifiedAccount(user.id, request.bankAccountId);
    // Asked again now: the account must still be held in the person's verified name and birth date.
    await this.deps.verifications.holderOf(
      user,
      account.bankCode,
      encryption.openText(account.accountNoSealed, bankAccountNoAad(user.id)),
    );
    const payout = await this.deps.notices.around(
      { userId: user.id, eventType: 'payout.processing', resourceId: payoutId },
      (eventId) => this.accept(user.id, payoutId, account, request, eventId),
    );
    if (start) await this.startWorkflow(payout);
    return { payout, balance: await this.balance(user.id) };
  }

  private checkAmount(amount: bigint): void {
    const max = BigInt(this.deps.maxAmountKrw);
    if (amount > max)
      throw problems.unprocessable('payout-limit-exceeded', `A payout is limited to ${won(max)}`, {
        limit: max.toString(),
      });
  }

  /** The payout, its journal and its event, in one transaction under the balance's row lock. */
  private async accept(
    userId: string,
    payoutId: string,
    account: BankAccount,
    request: PayoutRequest,
    eventId: string,
  ): Promise<Payout> {
    const balanceId = userBalanceAccount(userId, 'KRW');
    return this.deps.orm.em.fork().transactional(async (tx) => {
      // The balance's row first: payouts at once are counted against the day one after the other.
      const locked = await tx.nativeUpdate(LedgerAccountEntity, { accountId: balanceId }, { balance: raw('balance') });
      const balance = locked ? (await tx.findOneOrFail(LedgerAccountEntity, { accountId: balanceId })).balance : 0n;
      if (request.purpose === 'request') {
        const day = koreanDay();
        const today = await tx.find(
          PayoutEntity,
          { userId, purpose: 'request', status: { $ne: 'failed' }, createdAt: { $gte: day.from, $lt: day.to } },
          { fields: ['amount'] },
        );
        const used = today.reduce((sum, p) => sum + p.amount, 0n);
        const limit = BigInt(this.deps.dailyLimitKrw);
        if (used + request.amount > limit)
          throw problems.unprocessable(
            'payout-daily-limit-exceeded',
            `Payouts are limited to ${won(limit)} a day; ${won(used)} paid out today, ${won(limit > used ? limit - used : 0n)} left until ${day.to.toISOString()}`,
            { limit: limit.toString(), used: used.toString(), resetsAt: day.to.toISOString() },
          );
      }
      if (request.amount > balance) throw insufficient(balance, request.amount);
      const now = clock.date();
      const payout = tx.create(PayoutEntity, {
        payoutId,
        userId,
        bankAccountId: account.bankAccountId,
        bankCode: account.bankCode,
        amount: request.amount,
        currency: 'KRW',
        purpose: request.purpose,
        status: 'processing',
        bankStatus: null,
        failureReason: null,
        failureCode: null,
        createdAt: now,
        updatedAt: now,
        completedAt: null,
      });
      await tx.flush();
      try {
        await postJournal(tx, {
          journalId: `payout:${payoutId}`,
          kind: 'payout',
          userId,
          reference: payoutId,
          legs: [
            {
              accountId: balanceId,
              kind: 'user_balance',
              userId,
              currency: 'KRW',
              amount: -request.amount,
            },
            {
              accountId: payoutsInTransitAccount('KRW'),
              kind: 'payouts_in_transit',
              currency: 'KRW',
              amount: request.amount,
            },
          ],
        });
      } catch (error) {
        if (error instanceof InsufficientBalance) throw insufficient(balance, request.amount);
        throw error;
      }
      await appendEvent(tx, {
        eventId,
        type: 'payout.processing',
        resourceId: payoutId,
        userId,
        data: {
          payoutId,
          amount: request.amount.toString(),
          currency: 'KRW',
          bankAccountId: account.bankAccountId,
          purpose: request.purpose,
        },
      });
      return payout;
    });
  }

  /** Starts payout-<id> (once: a run already started is left alone). */
  startWorkflow(payout: Payout): Promise<void> {
    return startOnce(() =>
      this.deps.temporal.workflow.start(payoutWorkflow, {
        workflowId: payoutWorkflowId(payout.payoutId),
        taskQueue: this.deps.taskQueue,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ payoutId: payout.payoutId, userId: payout.userId }],
      }),
    );
  }

  /**
   * An operator's decision on a payout the centre has no record of: signalled to its workflow, which asks the centre
   * again before it acts (a send that landed since completes the payout, whatever was decided). Only a payout in
   * review for `not_received` takes one (409 otherwise: an undocumented answer waits for the bank to say more).
   */
  async decide(payoutId: string, operator: string, body: { action: 'resend' | 'reverse'; reason: string }) {
    const payout = await this.deps.orm.em.fork().findOne(PayoutEntity, { payoutId });
    if (!payout) throw problems.notFound(`Payout ${payoutId}`);
    if (payout.status !== 'needs_review' || payout.bankStatus !== 'not_received')
      throw problems.conflict(
        'payout-not-decidable',
        `This payout is ${payout.status}${payout.bankStatus ? ` (the bank: ${payout.bankStatus})` : ''}: only a payout the centre has no record of takes a decision`,
      );
    // The decision names the send the operator decided on: if the payout was sent again since, it is not taken.
    const sent = await this.deps.orm.em.fork().findOneOrFail(BankTranIdEntity, { reference: `payout:${payoutId}` });
    await this.deps.temporal.workflow.getHandle(payoutWorkflowId(payoutId)).signal(payoutDecisionSignal, {
      action: body.action,
      reason: body.reason.trim(),
      decidedBy: operator,
      bankTranId: sent.bankTranId,
    });
    return { payout_id: payoutId, decision: body.action, signalled: true };
  }

  /** A payout by id (one this service recorded). */
  payout(payoutId: string): Promise<Payout> {
    return this.deps.orm.em.fork().findOneOrFail(PayoutEntity, { payoutId });
  }

  async view(userId: string, payoutId: string) {
    const payout = await this.deps.orm.em.fork().findOne(PayoutEntity, { payoutId, userId });
    if (!payout) throw problems.notFound(`Payout ${payoutId}`);
    return (await this.views([payout]))[0]!;
  }

  async list(userId: string, page: PageRequest) {
    const found = await findPage<Payout, 'createdAt' | 'payoutId'>(
      this.deps.orm.em.fork(),
      PayoutEntity,
      { userId },
      ORDER,
      page,
      { defaultLimit: 20 },
    );
    return { payouts: await this.views(found.items), next_cursor: found.nextCursor, has_more: found.hasMore };
  }

  private async views(payouts: Payout[]) {
    const accounts = new Map(
      (
        await this.deps.orm.em
          .fork()
          .find(BankAccountEntity, { bankAccountId: { $in: [...new Set(payouts.map((p) => p.bankAccountId))] } })
      ).map((a) => [a.bankAccountId, a]),
    );
    return payouts.map((p) => ({
      payout_id: p.payoutId,
      status: p.status,
      amount: won(p.amount),
      currency: p.currency,
      bank_account_id: p.bankAccountId,
      bank_name: accounts.get(p.bankAccountId)?.bankName ?? p.bankCode,
      account_no: accounts.get(p.bankAccountId)?.maskedAccountNo ?? '',
      purpose: p.purpose,
      failure_reason: p.failureReason ?? null,
      failure_code: p.failureCode ?? null,
      created_at: p.createdAt.toISOString(),
      completed_at: p.completedAt?.toISOString() ?? null,
    }));
  }
}

const insufficient = (balance: bigint, amount: bigint) =>
  problems.unprocessable('insufficient-balance', `Your balance holds ${won(balance)}; this payout is ${won(amount)}`, {
    balance: balance.toString(),
  });
