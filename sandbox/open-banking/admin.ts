import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  DUPLICATE_CODES,
  IN_DOUBT_CODES,
  NAME_MISMATCH_CODES,
  type DuplicateCode,
  type InDoubtCode,
  type NameMismatchCode,
} from './codes';
import { BANKS, type Account, type Ledger } from './ledger';
import type { OpenBankingSettings, TransferBook, TransferRequest } from './transfer-book';

/** A transfer call as GET /kftc/_transfers shows it: what arrived, what it was answered, and how it settled. */
export interface TransferRequestView {
  bankTranId: string;
  bankTranDate: string;
  direction: 'withdraw' | 'deposit';
  amount: number | null;
  /** The rsp_code answered (null: a malformed answer on purpose). */
  rspCode: string | null;
  /** The bank's outcome; null when the call never reached a bank or is still in doubt. */
  bankRspCode: string | null;
  /** Whether the bank is done with it; false while in doubt and for calls refused before any bank. */
  settled: boolean;
  outcome: 'completed' | 'rejected' | null;
}

export interface AdminDeps {
  ledger: Ledger;
  contract: Account;
  book: TransferBook;
}

const viewOf = ({ transfer, ...request }: TransferRequest): TransferRequestView => ({
  ...request,
  bankRspCode: transfer?.bankRspCode ?? null,
  settled: transfer ? transfer.state !== 'processing' : false,
  outcome: transfer && transfer.state !== 'processing' ? transfer.state : null,
});

const fail = (ctx: Context, status: number, code: string, message: string) => {
  ctx.status = status;
  ctx.body = { code, message };
};
const bodyOf = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
const isDate = (text: unknown): text is string =>
  typeof text === 'string' &&
  /^\d{4}-\d{2}-\d{2}$/.test(text) &&
  new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);

/**
 * Sandbox administration, not part of KFTC's protocol (paths start with `_`): open accounts as people hold them at
 * their banks, read balances and statements, list every transfer call, and set how the gateway misbehaves.
 */
export function mountAdmin(router: Router, { ledger, contract, book }: AdminDeps): void {
  router.post('/_accounts', (ctx) => {
    const { bankCode, accountNo, holder, birthDate, balance = 0 } = bodyOf(ctx);
    if (
      typeof bankCode !== 'string' ||
      !BANKS[bankCode] ||
      typeof accountNo !== 'string' ||
      !/^\d{10,14}$/.test(accountNo) ||
      typeof holder !== 'string' ||
      !holder.trim() ||
      holder.length > 20 ||
      !isDate(birthDate) ||
      !Number.isSafeInteger(balance) ||
      (balance as number) < 0
    ) {
      const message = 'bankCode (known), accountNo (10-14 digits), holder, birthDate (YYYY-MM-DD) and balance >= 0';
      return fail(ctx, 400, 'invalid_account', message);
    }
    // Opening an account again would wipe its statement, which tests read to see money moved once.
    if (ledger.find(bankCode, accountNo)) return fail(ctx, 409, 'account_exists', 'this account is already open');
    const opened = ledger.open({
      bankCode,
      accountNo,
      holder: holder.trim(),
      birthDate: birthDate.replaceAll('-', ''),
      balance: balance as number,
    });
    ctx.status = 201;
    ctx.body = ledger.view(opened);
  });
  router.get('/_accounts/:bankCode/:accountNo', (ctx) => {
    const account = ledger.find(ctx.params.bankCode!, ctx.params.accountNo!);
    if (!account) return fail(ctx, 404, 'account_not_found', 'no such account');
    ctx.body = ledger.view(account);
  });
  router.get('/_contract-account', (ctx) => {
    ctx.body = ledger.view(contract);
  });

  router.get('/_transfers', (ctx) => {
    ctx.body = book.requests().map(viewOf);
  });
  /** Lands every deposit landing late and settles every in-doubt transfer now, instead of after its delay. */
  router.post('/_transfers/settle', (ctx) => {
    book.settleAll();
    ctx.body = book.requests().map(viewOf);
  });

  router.put('/_settings', (ctx) => {
    const problem = applySettings(book.settings, bodyOf(ctx));
    if (problem) return fail(ctx, 400, 'invalid_settings', problem);
    ctx.body = book.settings;
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_DELAY_MS = 2_147_483_647;
const DEPOSIT_LIMIT_KEYS = ['perTransferKrw', 'dailyKrw', 'monthlyKrw'] as const;
const LATE_LANDING_KEYS = ['times', 'landAfterMs'] as const;
/** A key of `given` not among `keys` (a misspelt setting), if any. */
const unknownKey = (given: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(given).find((key) => !keys.includes(key));

/**
 * depositLimits as given merged over the current ones (a key left out stays, null clears one), or what is wrong with
 * it.
 */
function nextDepositLimits(
  current: OpenBankingSettings['depositLimits'],
  given: unknown,
): OpenBankingSettings['depositLimits'] | string {
  if (given === undefined) return current;
  const shape = `depositLimits must be an object with ${DEPOSIT_LIMIT_KEYS.join(', ')} (each optional)`;
  if (!isObject(given)) return shape;
  const unknown = unknownKey(given, DEPOSIT_LIMIT_KEYS);
  if (unknown !== undefined) return `${shape}, not ${unknown}`;
  const next = { ...current };
  for (const key of DEPOSIT_LIMIT_KEYS) {
    const value = given[key];
    if (value === undefined) continue;
    if (value !== null && (!Number.isSafeInteger(value) || (value as number) <= 0))
      return `depositLimits.${key} must be a positive integer (KRW) or null`;
    next[key] = value as number | null;
  }
  return next;
}

/** Applies the settings given (each optional) after checking them all; what is wrong, if anything. */
function applySettings(settings: OpenBankingSettings, input: Record<string, unknown>): string | undefined {
  const { inDoubt, reportCode, malformed, nameMismatch, depositLimits, duplicateCode, lateLanding } = input;
  if (inDoubt !== undefined && (typeof inDoubt !== 'object' || inDoubt === null)) return 'inDoubt must be an object';
  const given = (inDoubt ?? {}) as Partial<Record<keyof OpenBankingSettings['inDoubt'], unknown>>;
  const next = {
    times: given.times ?? settings.inDoubt.times,
    code: given.code ?? settings.inDoubt.code,
    settleAfterMs: given.settleAfterMs ?? settings.inDoubt.settleAfterMs,
    outcome: given.outcome ?? settings.inDoubt.outcome,
  } as OpenBankingSettings['inDoubt'];
  if (!Number.isSafeInteger(next.times) || next.times < 0) return 'inDoubt.times must be an integer >= 0';
  if (!IN_DOUBT_CODES.includes(next.code as InDoubtCode)) return `inDoubt.code must be ${IN_DOUBT_CODES.join(', ')}`;
  if (!Number.isSafeInteger(next.settleAfterMs) || next.settleAfterMs < 0)
    return 'inDoubt.settleAfterMs must be an integer >= 0';
  if (next.outcome !== 'completed' && next.outcome !== 'rejected')
    return 'inDoubt.outcome must be completed or rejected';
  if (reportCode !== undefined && reportCode !== null && (typeof reportCode !== 'string' || !reportCode))
    return 'reportCode must be a code or null';
  if (malformed !== undefined && typeof malformed !== 'boolean') return 'malformed must be true or false';
  if (nameMismatch !== undefined && !NAME_MISMATCH_CODES.includes(nameMismatch as NameMismatchCode))
    return `nameMismatch must be ${NAME_MISMATCH_CODES.join(' or ')}`;
  const limits = nextDepositLimits(settings.depositLimits, depositLimits);
  if (typeof limits === 'string') return limits;
  if (duplicateCode !== undefined && !DUPLICATE_CODES.includes(duplicateCode as DuplicateCode))
    return `duplicateCode must be ${DUPLICATE_CODES.join(' or ')}`;
  if (lateLanding !== undefined && (!isObject(lateLanding) || unknownKey(lateLanding, LATE_LANDING_KEYS) !== undefined))
    return `lateLanding must be an object with ${LATE_LANDING_KEYS.join(', ')} (each optional)`;
  const late = {
    times: lateLanding?.times ?? settings.lateLanding.times,
    landAfterMs: lateLanding?.landAfterMs ?? settings.lateLanding.landAfterMs,
  } as OpenBankingSettings['lateLanding'];
  if (!Number.isSafeInteger(late.times) || late.times < 0) return 'lateLanding.times must be an integer >= 0';
  if (!Number.isSafeInteger(late.landAfterMs) || late.landAfterMs < 0 || late.landAfterMs > MAX_DELAY_MS)
    return `lateLanding.landAfterMs must be an integer from 0 to ${MAX_DELAY_MS}`;
  settings.inDoubt = next;
  if (reportCode !== undefined) settings.reportCode = reportCode as string | null;
  if (malformed !== undefined) settings.malformed = malformed;
  if (nameMismatch !== undefined) settings.nameMismatch = nameMismatch as NameMismatchCode;
  settings.depositLimits = limits;
  if (duplicateCode !== undefined) settings.duplicateCode = duplicateCode as DuplicateCode;
  settings.lateLanding = late;
  return undefined;
}
