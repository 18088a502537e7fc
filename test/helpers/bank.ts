import { createWalletClient, idempotencyKey, withRetries } from '@wallet-service/client';
import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { bearer } from './wallet';

export interface BankTransaction {
  amount: number;
  remark: string;
  reference: string;
}
export interface SandboxAccount {
  bankCode: string;
  accountNo: string;
}

let accountSeq = 0;

/** Opens an account at the sandbox bank (as the user would have at their bank). */
export async function openBankAccount(
  stack: Pick<TestStack, 'sandboxUrl'>,
  holder: string,
  balance: number,
  bankCode = '004',
): Promise<SandboxAccount> {
  const accountNo = `${Date.now()}${accountSeq++}`.slice(-13).padStart(13, '1');
  const opened = await call(`${stack.sandboxUrl}/bank/v1/_accounts`, {
    json: { bankCode, accountNo, holder, balance },
  });
  if (opened.status !== 201) throw new Error(`opening a sandbox account failed: ${opened.status}`);
  return { bankCode, accountNo };
}

/** The sandbox bank's view of an account: balance and transaction log. */
export async function bankAccountLog(
  stack: Pick<TestStack, 'sandboxUrl'>,
  account: SandboxAccount,
): Promise<{ balance: number; transactions: BankTransaction[] }> {
  return (await call(`${stack.sandboxUrl}/bank/v1/_accounts/${account.bankCode}/${account.accountNo}`)).body;
}

/** Calls an /api/v1 endpoint as the user and unwraps its {status, data | error} envelope. */
export async function callApi(
  stack: Pick<TestStack, 'apiUrl'>,
  path: string,
  user: RegisteredUser,
  init: { json?: unknown; key?: string; method?: string } = {},
) {
  const headers: Record<string, string> = { ...bearer(user) };
  if (init.key) headers['idempotency-key'] = init.key;
  const answer = await call(`${stack.apiUrl}${path}`, { method: init.method, headers, json: init.json });
  return {
    status: answer.status,
    body: answer.body?.data ?? answer.body?.error ?? answer.body,
    headers: answer.headers,
  };
}

/**
 * Sends 1 KRW, reads the code in the deposit text as the user would in their bank app, and confirms it: through the
 * typed client, as an app does (used by the bank, charge and webhook suites).
 */
export async function connectBankAccount(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  account: SandboxAccount,
) {
  const api = createWalletClient({ baseUrl: stack.apiUrl, accessToken: user.accessToken });
  const key = idempotencyKey();
  const sent = await withRetries(() =>
    api.POST('/api/v1/bank/send-won', {
      params: { header: { 'idempotency-key': key } },
      body: { bank_code: account.bankCode, account_no: account.accountNo },
    }),
  );
  if (!sent.data) throw new Error(`send-won failed: ${sent.response.status} ${JSON.stringify(sent.error)}`);
  const deposit = (await bankAccountLog(stack, account)).transactions.at(-1)!;
  const confirmed = await api.POST('/api/v1/bank/send-won/confirm', {
    body: { verification_id: sent.data.data.verification_id, code: deposit.remark.slice(2) },
  });
  if (!confirmed.data)
    throw new Error(`confirm failed: ${confirmed.response.status} ${JSON.stringify(confirmed.error)}`);
  return confirmed.data.data.bank_account;
}
