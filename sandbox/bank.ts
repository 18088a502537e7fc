import { createHmac, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * Stand-in for a Korean bank's corporate (firm-banking) API. It keeps real balances and a transaction log per
 * account. The service holds an operating account here: 1-KRW verification deposits leave it, and charge withdrawals
 * (debits of a user's account with their consent) land in it; a withdrawal settles after a delay and is reported by a
 * signed webhook (and can be polled). Every money-moving call is idempotent by the caller's `reference`.
 */
export interface BankOptions {
  clientSecret: string;
  /** Where settled withdrawals are reported; read at each delivery, so it can be set after the API starts. */
  webhookUrl: string;
  webhookSecret: string;
  settleDelayMs?: number;
  log?: (line: string) => void;
}

export const BANKS: Record<string, string> = {
  '004': 'KB국민은행',
  '088': '신한은행',
  '020': '우리은행',
  '081': '하나은행',
  '011': 'NH농협은행',
  '003': 'IBK기업은행',
  '090': '카카오뱅크',
  '092': '토스뱅크',
};
export const OPERATING_ACCOUNT = { bankCode: '004', accountNo: '00000000000001', holder: '(주)월렛' };

interface BankTransaction {
  transactionId: string;
  at: string;
  amount: number;
  balanceAfter: number;
  remark: string;
  reference: string;
}
interface Account {
  bankCode: string;
  accountNo: string;
  holder: string;
  balance: number;
  transactions: BankTransaction[];
}
interface Withdrawal {
  withdrawalId: string;
  reference: string;
  bankCode: string;
  accountNo: string;
  amount: number;
  remark: string;
  status: 'pending' | 'completed' | 'rejected';
  reason: string | null;
  requestedAt: string;
  settledAt: string | null;
  webhookDeliveries: number;
}

const WEBHOOK_ATTEMPTS = 6;
const keyOf = (bankCode: string, accountNo: string) => `${bankCode}:${accountNo}`;

/**
 * How the bank misbehaves, for tests of the service's caution: `reportStatus` replaces the status of every withdrawal
 * answer and webhook (a status the bank's documentation does not list, e.g. CANCELLED); `malformed` makes withdrawal
 * answers something that is not a withdrawal. Money moves as usual underneath.
 */
interface Misbehaviour {
  reportStatus: string | null;
  malformed: boolean;
}
type BankRouter = Router & { settleDelayMs: number; webhooks: boolean; misbehaviour: Misbehaviour };

export function bankRouter(options: BankOptions): BankRouter {
  const accounts = new Map<string, Account>();
  const deposits = new Map<string, { depositId: string; reference: string; transactionId: string }>();
  const withdrawals = new Map<string, Withdrawal>();
  const settleTimers = new Map<string, NodeJS.Timeout>();
  const router = new Router({ prefix: '/bank/v1' }) as BankRouter;
  router.settleDelayMs = options.settleDelayMs ?? 300;
  router.webhooks = true;
  router.misbehaviour = { reportStatus: null, malformed: false };

  const open = (bankCode: string, accountNo: string, holder: string, balance: number): Account => {
    const account = { bankCode, accountNo, holder, balance, transactions: [] };
    accounts.set(keyOf(bankCode, accountNo), account);
    return account;
  };
  open(OPERATING_ACCOUNT.bankCode, OPERATING_ACCOUNT.accountNo, OPERATING_ACCOUNT.holder, 1_000_000_000);
  const operating = () => accounts.get(keyOf(OPERATING_ACCOUNT.bankCode, OPERATING_ACCOUNT.accountNo))!;
  const book = (account: Account, amount: number, remark: string, reference: string): BankTransaction => {
    account.balance += amount;
    const entry = {
      transactionId: `btx_${randomUUID()}`,
      at: new Date().toISOString(),
      amount,
      balanceAfter: account.balance,
      remark,
      reference,
    };
    account.transactions.push(entry);
    return entry;
  };
  const fail = (ctx: Context, status: number, code: string, message: string) => {
    ctx.status = status;
    ctx.body = { code, message };
  };
  const authorized = (ctx: Context) => {
    if (ctx.get('authorization') === `Bearer ${options.clientSecret}`) return true;
    fail(ctx, 401, 'unauthorized', 'client secret required');
    return false;
  };
  const body = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const positiveInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

  const deliver = async (withdrawal: Withdrawal): Promise<void> => {
    const reported = router.misbehaviour.reportStatus ?? withdrawal.status;
    const payload = JSON.stringify({
      event: 'withdrawal.settled',
      reference: withdrawal.reference,
      withdrawalId: withdrawal.withdrawalId,
      status: reported,
      reason: withdrawal.reason,
    });
    for (let attempt = 0; attempt < WEBHOOK_ATTEMPTS; attempt += 1) {
      withdrawal.webhookDeliveries += 1;
      const signature = createHmac('sha256', options.webhookSecret).update(payload).digest('hex');
      const status = await fetch(options.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-bank-signature': `sha256=${signature}` },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      }).then(
        (r) => r.status,
        () => 0,
      );
      options.log?.(`bank webhook ${withdrawal.reference} -> ${status}`);
      if (status >= 200 && status < 300) return;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  };
  const settle = (withdrawal: Withdrawal) => {
    clearTimeout(settleTimers.get(withdrawal.reference));
    settleTimers.delete(withdrawal.reference);
    if (withdrawal.status !== 'pending') return;
    const account = accounts.get(keyOf(withdrawal.bankCode, withdrawal.accountNo));
    // Balance check and both bookings happen in one synchronous step: concurrent withdrawals never overdraw.
    if (!account || account.balance < withdrawal.amount) {
      Object.assign(withdrawal, { status: 'rejected', reason: account ? 'insufficient_funds' : 'account_closed' });
    } else {
      book(account, -withdrawal.amount, withdrawal.remark, withdrawal.reference);
      book(operating(), withdrawal.amount, `${account.holder} ${withdrawal.remark}`, withdrawal.reference);
      withdrawal.status = 'completed';
    }
    withdrawal.settledAt = new Date().toISOString();
    if (router.webhooks) void deliver(withdrawal); // off: a lost webhook, only polling tells
  };

  // --- sandbox administration (tests and the embedded stack): open accounts, read balances and logs
  router.post('/_accounts', (ctx) => {
    const {
      bankCode,
      accountNo,
      holder,
      balance = 0,
    } = body(ctx) as { bankCode?: string; accountNo?: string; holder?: string; balance?: number };
    if (
      !bankCode ||
      !BANKS[bankCode] ||
      !accountNo ||
      !/^\d{10,14}$/.test(accountNo) ||
      !holder ||
      !Number.isSafeInteger(balance) ||
      balance < 0
    ) {
      return fail(
        ctx,
        400,
        'invalid_account',
        'bankCode (known), accountNo (10-14 digits), holder and balance >= 0 are required',
      );
    }
    ctx.status = 201;
    ctx.body = view(open(bankCode, accountNo, holder, balance));
  });
  const view = (a: Account) => ({
    bankCode: a.bankCode,
    bankName: BANKS[a.bankCode],
    accountNo: a.accountNo,
    holder: a.holder,
    balance: a.balance,
  });
  router.get('/_accounts/:bankCode/:accountNo', (ctx) => {
    const account = accounts.get(keyOf(ctx.params.bankCode!, ctx.params.accountNo!));
    if (!account) return fail(ctx, 404, 'account_not_found', 'no such account');
    ctx.body = { ...view(account), transactions: account.transactions };
  });
  router.get('/_operating-account', (ctx) => {
    ctx.body = { ...view(operating()), transactions: operating().transactions };
  });
  router.put('/_settings', (ctx) => {
    const { settleDelayMs, webhooks, reportStatus, malformed } = body(ctx) as {
      settleDelayMs?: number;
      webhooks?: boolean;
      reportStatus?: string | null;
      malformed?: boolean;
    };
    if (Number.isSafeInteger(settleDelayMs) && settleDelayMs! >= 0) router.settleDelayMs = settleDelayMs!;
    if (typeof webhooks === 'boolean') router.webhooks = webhooks;
    if (reportStatus === null || typeof reportStatus === 'string')
      router.misbehaviour.reportStatus = reportStatus || null;
    if (typeof malformed === 'boolean') router.misbehaviour.malformed = malformed;
    ctx.body = { settleDelayMs: router.settleDelayMs, webhooks: router.webhooks, ...router.misbehaviour };
  });
  /** Settles a pending withdrawal now instead of after the delay. */
  router.post('/_withdrawals/:reference/settle', (ctx) => {
    const withdrawal = withdrawals.get(ctx.params.reference!);
    if (!withdrawal) return fail(ctx, 404, 'withdrawal_not_found', 'no such withdrawal');
    settle(withdrawal);
    ctx.body = withdrawal;
  });

  // --- the bank's API as the service calls it
  router.post('/account-holder', (ctx) => {
    if (!authorized(ctx)) return;
    const { bankCode, accountNo } = body(ctx) as { bankCode?: string; accountNo?: string };
    const account = accounts.get(keyOf(String(bankCode), String(accountNo)));
    if (!account) return fail(ctx, 404, 'account_not_found', 'no such account');
    ctx.body = {
      bankCode: account.bankCode,
      bankName: BANKS[account.bankCode],
      accountNo: account.accountNo,
      holder: account.holder,
    };
  });

  router.post('/deposits', (ctx) => {
    if (!authorized(ctx)) return;
    const { bankCode, accountNo, amount, remark, reference } = body(ctx) as Record<string, unknown>;
    if (
      typeof reference !== 'string' ||
      !reference ||
      !positiveInteger(amount) ||
      typeof remark !== 'string' ||
      remark.length > 20
    ) {
      return fail(
        ctx,
        400,
        'invalid_request',
        'reference, amount (positive integer KRW) and remark (<= 20 characters) are required',
      );
    }
    const known = deposits.get(reference);
    if (known) {
      ctx.body = { ...known, replayed: true };
      return;
    }
    const account = accounts.get(keyOf(String(bankCode), String(accountNo)));
    if (!account) return fail(ctx, 404, 'account_not_found', 'no such account');
    if (operating().balance < amount) return fail(ctx, 422, 'insufficient_funds', 'operating account balance too low');
    book(operating(), -amount, remark, reference);
    const entry = book(account, amount, remark, reference);
    const deposit = { depositId: `dep_${randomUUID()}`, reference, transactionId: entry.transactionId };
    deposits.set(reference, deposit);
    ctx.status = 201;
    ctx.body = deposit;
  });

  router.post('/withdrawals', (ctx) => {
    if (!authorized(ctx)) return;
    const { bankCode, accountNo, amount, remark, reference } = body(ctx) as Record<string, unknown>;
    if (
      typeof reference !== 'string' ||
      !reference ||
      !positiveInteger(amount) ||
      typeof remark !== 'string' ||
      remark.length > 20
    ) {
      return fail(
        ctx,
        400,
        'invalid_request',
        'reference, amount (positive integer KRW) and remark (<= 20 characters) are required',
      );
    }
    const known = withdrawals.get(reference);
    if (known) {
      ctx.body = withdrawalView(known);
      return;
    }
    if (!accounts.has(keyOf(String(bankCode), String(accountNo))))
      return fail(ctx, 404, 'account_not_found', 'no such account');
    const withdrawal: Withdrawal = {
      withdrawalId: `wd_${randomUUID()}`,
      reference,
      bankCode: String(bankCode),
      accountNo: String(accountNo),
      amount,
      remark,
      status: 'pending',
      reason: null,
      requestedAt: new Date().toISOString(),
      settledAt: null,
      webhookDeliveries: 0,
    };
    withdrawals.set(reference, withdrawal);
    settleTimers.set(
      reference,
      setTimeout(() => settle(withdrawal), router.settleDelayMs),
    );
    ctx.status = 202;
    ctx.body = withdrawalView(withdrawal);
  });
  const withdrawalView = ({ webhookDeliveries: _d, ...w }: Withdrawal) => {
    if (router.misbehaviour.malformed) return { result: 'accepted', ref: w.reference };
    return router.misbehaviour.reportStatus ? { ...w, status: router.misbehaviour.reportStatus } : w;
  };
  router.get('/withdrawals/:reference', (ctx) => {
    if (!authorized(ctx)) return;
    const withdrawal = withdrawals.get(ctx.params.reference!);
    if (!withdrawal) return fail(ctx, 404, 'withdrawal_not_found', 'no such withdrawal');
    ctx.body = withdrawalView(withdrawal);
  });
  router.get('/_withdrawals/:reference', (ctx) => {
    const withdrawal = withdrawals.get(ctx.params.reference!);
    if (!withdrawal) return fail(ctx, 404, 'withdrawal_not_found', 'no such withdrawal');
    ctx.body = withdrawal;
  });
  return router;
}
