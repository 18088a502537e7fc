import { createWalletClient, idempotencyKey, withRetries } from '@wallet-service/client';
import type { Booking } from '../../sandbox/open-banking';
import { wellBehaved } from '../../sandbox/open-banking/transfer-book';
import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { bearer } from './wallet';

export type BankTransaction = Booking;
export interface SandboxAccount {
  bankCode: string;
  accountNo: string;
}
/**
 * Who holds an account at the sandbox's banks: the name and birth date (YYYY-MM-DD) the real-name inquiry checks; the
 * phone the bank's consent screens authenticate them with (the identity agency's CI for it).
 */
export interface AccountHolder {
  name: string;
  birthDate: string;
  phone?: string;
}

let accountSeq = 0;

/** Opens an account at a sandbox bank (as the person would hold one at their bank). */
export async function openBankAccount(
  stack: Pick<TestStack, 'sandboxUrl'>,
  holder: AccountHolder,
  balance: number,
  bankCode = '004',
): Promise<SandboxAccount> {
  const accountNo = `${Date.now()}${accountSeq++}`.slice(-13).padStart(13, '1');
  const opened = await call(`${stack.sandboxUrl}/kftc/_accounts`, {
    json: { bankCode, accountNo, holder: holder.name, birthDate: holder.birthDate, balance },
  });
  if (opened.status !== 201)
    throw new Error(`opening a sandbox account failed: ${opened.status} ${JSON.stringify(opened.body)}`);
  return { bankCode, accountNo };
}

/** The sandbox bank's view of an account: balance and statement (what each booking prints). */
export async function bankAccountLog(
  stack: Pick<TestStack, 'sandboxUrl'>,
  account: SandboxAccount,
): Promise<{ balance: number; transactions: BankTransaction[] }> {
  return (await call(`${stack.sandboxUrl}/kftc/_accounts/${account.bankCode}/${account.accountNo}`)).body;
}

/** Our contracted account at the sandbox bank: where charges land, what 1 KRW deposits and refunds leave. */
export async function contractAccountLog(
  stack: Pick<TestStack, 'sandboxUrl'>,
): Promise<{ balance: number; transactions: BankTransaction[] }> {
  return (await call(`${stack.sandboxUrl}/kftc/_contract-account`)).body;
}

/** Puts the sandbox's centre back as it is when nothing is wrong: no fault, its settings as it starts. */
export async function restoreCentre(stack: Pick<TestStack, 'sandboxUrl'>): Promise<void> {
  await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  await bankSettings(stack, wellBehaved());
}

/** Sets how the sandbox's open banking centre misbehaves (PUT /kftc/_settings). */
export const bankSettings = (stack: Pick<TestStack, 'sandboxUrl'>, settings: object) =>
  call(`${stack.sandboxUrl}/kftc/_settings`, { method: 'PUT', json: settings });

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
 * A consent started by the user and completed at the bank's consent page by `person` (the user themselves unless said)
 * naming their account: where the bank sends the browser back (the API's return route, with code and state).
 */
export async function consentAtBankPage(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: { accessToken: string },
  person: AccountHolder,
  account: SandboxAccount,
  options: { returnUri?: string; action?: 'approve' | 'deny' } = {},
): Promise<string> {
  const started = await callApi(stack, '/api/v1/bank/consent', user as RegisteredUser, {
    json: options.returnUri ? { return_uri: options.returnUri } : {},
  });
  if (started.status !== 200)
    throw new Error(`consent start failed: ${started.status} ${JSON.stringify(started.body)}`);
  const authorize = new URL(started.body.authorization_url as string);
  const form = new URLSearchParams(authorize.searchParams);
  form.set('name', person.name);
  form.set('birth_date', person.birthDate.replace(/-/g, ''));
  form.set('phone', person.phone ?? '');
  form.set('bank_code', account.bankCode);
  form.set('account_num', account.accountNo);
  form.set('action', options.action ?? 'approve');
  const page = await fetch(authorize, { method: 'POST', body: form, redirect: 'manual' });
  const back = page.headers.get('location');
  if (page.status !== 302 || !back)
    throw new Error(`the bank's consent page answered ${page.status}: ${await page.text()}`);
  return back;
}

/**
 * The person's consent at the bank, as a browser does it: the API's authorization address, the bank's consent page
 * (the person names themselves and the account), its redirect to the API's return route, whose answer is the consent.
 */
export async function consentAtBank(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: { accessToken: string; person: AccountHolder },
  account: SandboxAccount,
  options: { returnUri?: string; action?: 'approve' | 'deny' } = {},
): Promise<{ status: number; body: any; location?: string }> {
  const back = await consentAtBankPage(stack, user, user.person, account, options);
  const returned = await fetch(back, { redirect: 'manual' });
  const text = await returned.text();
  const body = returned.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
  return {
    status: returned.status,
    body: body?.data ?? body?.error ?? body,
    location: returned.headers.get('location') ?? undefined,
  };
}

/**
 * Sends 1 KRW, reads the code in the deposit's statement line as the user would in their bank app, and confirms it,
 * through the typed client as an app does; then (unless `consent: false`) consents at the bank, so the account is a
 * charge source (used by the bank, charge and webhook suites).
 */
export async function connectBankAccount(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  account: SandboxAccount,
  options: { consent?: boolean } = {},
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
    body: { verification_id: sent.data.data.verification_id, code: deposit.printContent.slice(2) },
  });
  if (!confirmed.data)
    throw new Error(`confirm failed: ${confirmed.response.status} ${JSON.stringify(confirmed.error)}`);
  if (options.consent !== false) {
    const consent = await consentAtBank(stack, user, account);
    if (consent.status !== 200 || consent.body.status !== 'active')
      throw new Error(`consent failed: ${consent.status} ${JSON.stringify(consent.body)}`);
  }
  return confirmed.data.data.bank_account;
}
