import { Contract, Wallet, type BaseWallet, getAddress, parseEther, parseUnits, type InterfaceAbi } from 'ethers';
import { getAddressDecoder } from '@solana/kit';
import type { JWK } from 'jose';
import { PinEncryptor, payoutRequest, signSlot, type TransferFields } from '@wallet-service/client';
import { loadArtifact } from '../../contracts/build';
import { registerUser, TEST_PIN, call, type RegisteredUser } from '../helpers/http';
import { connectBankAccount, openBankAccount, type SandboxAccount } from '../helpers/bank';
import { deployAccount } from '../helpers/wallet';
import type { TestStack } from '../helpers/stack';
import type { Random } from './random';

/** What the app saw of one answer: its status, problem type, and the id of what it created, if any. */
export interface Answer {
  status: number;
  type?: string;
  id?: string;
  /** The status of the resource the answer shows (a transfer answered 200 already included, say). */
  state?: string;
}

export type OperationKind =
  | 'charge'
  | 'payout'
  | 'transfer ETH'
  | 'transfer USDT (ETHEREUM)'
  | 'transfer SOL'
  | 'transfer USDT (SOLANA)'
  | 'transfer USDT to an exchange (Travel Rule)'
  | 'swap (SOLANA)'
  | 'swap (ETHEREUM)'
  | 'read';

/** One operation of one person, as the app saw it: the soak's own log, one of the reconciliation's sources. */
export interface Operation {
  seq: number;
  person: number;
  kind: OperationKind;
  key?: string;
  /** What was asked: the amount (in the request's own unit), and for transfers the token, network and recipient. */
  amount?: string;
  to?: string;
  /** The first conclusive answer (undefined: every attempt failed or timed out; the app gave up, outcome unknown). */
  answer?: Answer;
  attempts: number;
  /** Answers to the same request sent again with the same Idempotency-Key after the first conclusive one. */
  replays: Answer[];
  /** The resource's status when last polled. */
  final?: string;
  /** What stopped the app itself mid-operation (not an answer of the service). */
  error?: string;
}

/** The soak's log of money it put in: the funder's ETH and USDT, the faucet's SOL and USDT on wallet opening. */
export interface Funding {
  network: 'ETHEREUM' | 'SOLANA';
  address: string;
  token: 'ETH' | 'USDT' | 'SOL';
  /** Base units. */
  amount: bigint;
}

/** The dev faucet's grant on opening a SOLANA wallet (dev/solana-local.ts FAUCET_SOL, FAUCET_USDT). */
const FAUCET = { SOL: 2_000_000_000n, USDT: 1_000_000_000n };
/** Each person's bank balance at the start (KRW), and what the funder gives each ETHEREUM account. */
export const BANK_OPENING_KRW = 5_000_000;
const FUND_ETH = '0.5';
const FUND_USDT = '5000';

export interface Person {
  index: number;
  user: RegisteredUser;
  bank: SandboxAccount;
  bankAccountId: string;
  owner: BaseWallet;
  evmAccount: string;
  solanaWallet: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** When the app refreshes its tokens (access tokens last 15 minutes). */
const TOKEN_REFRESH_MS = 10 * 60_000;

/** The JSON answer of /api/v1 (its envelope unwrapped) or /v1. */
const unwrap = (body: any) => body?.data ?? body?.error ?? body;

const idOf = (body: any): string | undefined =>
  body?.charge_id ?? body?.payout_id ?? body?.transfer_id ?? body?.swapId ?? undefined;

/** Problems that say "try again with the same key" rather than "no". */
const RETRYABLE_CONFLICT = new Set(['/problems/idempotency-request-in-progress']);

/**
 * The app's HTTP: the same request with the same Idempotency-Key until a conclusive answer, through cut connections,
 * timeouts, 5xx and 429 (honouring Retry-After, within reason), for at most `giveUpMs`; undefined if none came.
 */
export async function send(
  apiUrl: string,
  path: string,
  init: {
    method?: string;
    json?: unknown;
    key?: string;
    token?: string;
    headers?: Record<string, string>;
    giveUpMs?: number;
  },
  onAttempt: () => void = () => {},
): Promise<{ answer?: Answer; body?: any }> {
  const deadline = Date.now() + (init.giveUpMs ?? 120_000);
  let backoff = 250;
  while (Date.now() < deadline) {
    onAttempt();
    const headers: Record<string, string> = { ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    if (init.key) headers['idempotency-key'] = init.key;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    let retryAfterMs = backoff;
    try {
      const response = await fetch(`${apiUrl}${path}`, {
        method: init.method ?? (init.json !== undefined ? 'POST' : 'GET'),
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let parsed: any;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      const body = unwrap(parsed);
      const type = typeof body?.type === 'string' ? (body.type as string) : undefined;
      const conclusive =
        response.status < 500 && response.status !== 429 && !(response.status === 409 && RETRYABLE_CONFLICT.has(type!));
      if (conclusive) {
        return { answer: { status: response.status, type, id: idOf(body), state: body?.status }, body };
      }
      const header = Number(response.headers.get('retry-after'));
      if (header > 0) retryAfterMs = Math.min(header * 1000, 3000);
    } catch {
      /* cut, refused or timed out: the same request again */
    }
    await sleep(retryAfterMs);
    backoff = Math.min(backoff * 2, 3000);
  }
  return {};
}

/**
 * Makes a person as an app's user becomes one, before the faults start: registration with a PIN, a bank account at
 * the sandbox bank connected (1 KRW verification, consent), an ETHEREUM smart account funded by the soak's funder,
 * a SOLANA wallet funded by the dev faucet.
 */
export async function makePerson(
  stack: TestStack,
  apiUrl: string,
  index: number,
  funding: Funding[],
  fund: <T>(work: () => Promise<T>) => Promise<T>,
): Promise<Person> {
  const endpoints = { apiUrl, sandboxUrl: stack.sandboxUrl };
  const user = await registerUser(endpoints, undefined, { pin: TEST_PIN });
  const bank = await openBankAccount(stack, user.person, BANK_OPENING_KRW);
  const connected = await connectBankAccount(endpoints, user, bank);
  const owner = Wallet.createRandom();
  const evmAccount = await deployAccount(endpoints, user, owner, 'ETHEREUM');
  const chain = stack.chains[0]!;
  // One funding at a time (the funder's nonces), each step checked on chain before the next.
  await fund(async () => {
    const token = new Contract(chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, chain.funder);
    const steps = [
      () => chain.funder.sendTransaction({ to: evmAccount, value: parseEther(FUND_ETH) }),
      () => token.getFunction('mint')(evmAccount, parseUnits(FUND_USDT, 6)),
    ];
    for (const step of steps) {
      for (let tries = 0; ; tries += 1) {
        try {
          await (await step()).wait();
          break;
        } catch (error) {
          // A nonce the provider read a block behind: read again and send again (nothing was sent under it).
          if ((error as { code?: string }).code !== 'NONCE_EXPIRED' || tries >= 5) throw error;
          await sleep(500);
        }
      }
    }
  });
  funding.push(
    { network: 'ETHEREUM', address: evmAccount, token: 'ETH', amount: parseEther(FUND_ETH) },
    { network: 'ETHEREUM', address: evmAccount, token: 'USDT', amount: parseUnits(FUND_USDT, 6) },
  );
  const opened = await call(`${apiUrl}/v1/wallet/networks/SOLANA/wallet`, {
    method: 'POST',
    headers: { authorization: `Bearer ${user.accessToken}` },
  });
  if (opened.status !== 201) throw new Error(`opening a SOLANA wallet answered ${opened.status}`);
  const solanaWallet = opened.body.address as string;
  funding.push(
    { network: 'SOLANA', address: solanaWallet, token: 'SOL', amount: FAUCET.SOL },
    { network: 'SOLANA', address: solanaWallet, token: 'USDT', amount: FAUCET.USDT },
  );
  return { index, user, bank, bankAccountId: connected.bank_account_id, owner, evmAccount, solanaWallet };
}

/** Where a transfer goes: another person of the soak (the money stays in our records) or an address outside. */
export interface Recipients {
  evm: string[];
  solana: string[];
  /** Outside addresses transfers went to, per network: their balances are checked too. */
  outside: { ETHEREUM: Set<string>; SOLANA: Set<string> };
}

const WEIGHTS: ReadonlyArray<readonly [OperationKind, number]> = [
  ['charge', 20],
  ['payout', 12],
  ['transfer ETH', 10],
  ['transfer USDT (ETHEREUM)', 8],
  ['transfer SOL', 10],
  ['transfer USDT (SOLANA)', 6],
  ['transfer USDT to an exchange (Travel Rule)', 3],
  ['swap (SOLANA)', 8],
  ['swap (ETHEREUM)', 6],
  ['read', 6],
];

/** A fresh outside address from the person's stream (the same seed: the same addresses). */
const outsideEvm = (random: Random): string =>
  getAddress(`0x${Array.from({ length: 40 }, () => random.int(0, 15).toString(16)).join('')}`);
const outsideSolana = (random: Random): string =>
  getAddressDecoder().decode(Uint8Array.from({ length: 32 }, () => random.int(0, 255))) as string;

/** Access tokens last 15 minutes: the app trades its refresh token for new ones (kept on the person). */
export async function refreshTokens(apiUrl: string, person: Person): Promise<string> {
  const refreshed = await send(apiUrl, '/v1/auth/token', {
    json: { grantType: 'refresh_token', refreshToken: person.user.refreshToken },
    headers: { 'x-device-id': person.user.deviceId },
    giveUpMs: 60_000,
  });
  if (refreshed.answer?.status !== 200)
    throw new Error(`person ${person.index}: the token refresh answered ${JSON.stringify(refreshed.answer)}`);
  person.user.accessToken = refreshed.body.accessToken;
  person.user.refreshToken = refreshed.body.refreshToken;
  return person.user.accessToken;
}

/**
 * One simulated person's app: until `until`, a think time, then an operation drawn from the weights above, sent as an
 * app sends it (an Idempotency-Key, retries with it, polling), sometimes sent again with the same key to see the same
 * answer come back.
 */
export async function livePerson(options: {
  person: Person;
  random: Random;
  apiUrl: string;
  sandboxUrl: string;
  until: number;
  recipients: Recipients;
  log: Operation[];
  nextSeq: () => number;
}): Promise<void> {
  const { person, random, apiUrl, until, recipients, log } = options;
  let token = person.user.accessToken;
  let tokenAt = Date.now();
  const pins = new PinEncryptor(async () => {
    const key = await send(apiUrl, '/api/v1/pin/public-key', { giveUpMs: 60_000 });
    if (!key.body?.jwk) throw new Error('the PIN key could not be read');
    return key.body.jwk as JWK;
  });
  while (Date.now() < until) {
    await sleep(random.int(200, 2500));
    if (Date.now() >= until) break;
    if (Date.now() - tokenAt > TOKEN_REFRESH_MS) {
      token = await refreshTokens(apiUrl, person);
      tokenAt = Date.now();
    }
    const kind = random.weighted(WEIGHTS);
    const op: Operation = { seq: options.nextSeq(), person: person.index, kind, attempts: 0, replays: [] };
    log.push(op);
    try {
      await operate(op);
    } catch (error) {
      // The app itself failed (a read at the sandbox it needed, say): noted, and it goes on.
      op.error = String(error);
    }
  }

  async function operate(op: Operation): Promise<void> {
    const { kind } = op;
    const attempt = () => {
      op.attempts += 1;
    };
    const resend = async (path: string, json: unknown) => {
      // Now and then the app sends the same request again (a double tap, a retry after a lost answer).
      if (op.answer && random.chance(0.2)) {
        const again = await send(apiUrl, path, { json, key: op.key, token, giveUpMs: 60_000 });
        if (again.answer) op.replays.push(again.answer);
      }
    };
    const poll = async (path: string, finals: string[]) => {
      if (!op.answer?.id || op.answer.status >= 300) return;
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        const seen = await send(apiUrl, path.replace(':id', op.answer.id), { token, giveUpMs: 20_000 });
        op.final = seen.body?.status ?? op.final;
        if (op.final && finals.includes(op.final)) return;
        await sleep(1000);
      }
    };
    /** An executable quote's id for an exact input on the network, or undefined (a balance too low, the DEX down). */
    const quoteId = async (networkId: string, source: string, target: string, amount: string) => {
      const quote = await send(apiUrl, '/v1/exchange/quote', {
        token,
        json: { source, target, networkId, direction: 'exactInput', amount },
        giveUpMs: 30_000,
      });
      return quote.body?.executable ? (quote.body.quoteId as string | undefined) : undefined;
    };
    /** A transfer sent with the PIN bound to it and its key, sent again now and then, polled to its end. */
    const transfer = async (fields: TransferFields) => {
      const json = { ...fields, pin: await pins.forTransfer(TEST_PIN, fields, op.key) };
      op.answer = (await send(apiUrl, '/api/v1/transfer/crypto/execute', { json, key: op.key, token }, attempt)).answer;
      await resend('/api/v1/transfer/crypto/execute', json);
      await poll('/api/v1/transfer/crypto/:id', ['finalized', 'failed']);
    };
    switch (kind) {
      case 'charge': {
        op.key = random.uuid();
        op.amount = String(random.int(1, 50) * 1000);
        const json = { source: person.bankAccountId, amount: op.amount, currency: 'KRW' };
        op.answer = (await send(apiUrl, '/api/v1/charge/execute', { json, key: op.key, token }, attempt)).answer;
        await resend('/api/v1/charge/execute', json);
        await poll('/api/v1/charge/:id', ['completed', 'failed']);
        break;
      }
      case 'payout': {
        const balance = await send(apiUrl, '/api/v1/balance', { token, giveUpMs: 20_000 });
        const krw = Number(
          (balance.body?.balances ?? []).find((b: { currency: string }) => b.currency === 'KRW')?.amount ?? 0,
        );
        // Now and then more than the balance: the refusal must leave everything as it was.
        const amount = random.chance(0.1) ? krw + 1000 : Math.min(krw, random.int(1, 30) * 1000);
        if (amount <= 0) {
          log.splice(log.indexOf(op), 1); // nothing to pay out yet: the person does something else
          break;
        }
        op.key = random.uuid();
        op.amount = String(amount);
        const fields = { bank_account_id: person.bankAccountId, amount: op.amount, currency: 'KRW' };
        const json = { ...fields, pin: await pins.encrypt(TEST_PIN, { request: payoutRequest(fields) }) };
        op.answer = (await send(apiUrl, '/api/v1/payouts', { json, key: op.key, token }, attempt)).answer;
        await resend('/api/v1/payouts', json);
        await poll('/api/v1/payouts/:id', ['completed', 'failed', 'needs_review']);
        break;
      }
      case 'transfer ETH':
      case 'transfer USDT (ETHEREUM)':
      case 'transfer SOL':
      case 'transfer USDT (SOLANA)': {
        const solana = kind === 'transfer SOL' || kind === 'transfer USDT (SOLANA)';
        const tokenSymbol = kind === 'transfer ETH' ? 'ETH' : kind === 'transfer SOL' ? 'SOL' : 'USDT';
        const others = (solana ? recipients.solana : recipients.evm).filter(
          (a) => a !== (solana ? person.solanaWallet : person.evmAccount),
        );
        let to: string;
        if (random.chance(0.6) && others.length) to = random.pick(others);
        else {
          to = solana ? outsideSolana(random) : outsideEvm(random);
          recipients.outside[solana ? 'SOLANA' : 'ETHEREUM'].add(to);
        }
        op.to = to;
        op.amount =
          tokenSymbol === 'ETH'
            ? (random.int(1, 20) / 1000).toString()
            : tokenSymbol === 'SOL'
              ? (random.int(1, 50) / 1000).toString()
              : String(random.int(1, solana ? 20 : 50));
        op.key = random.uuid();
        const fields: TransferFields = {
          to_address: to,
          network: solana ? 'SOLANA' : 'ETHEREUM',
          token: tokenSymbol,
          amount: op.amount,
        };
        await transfer(fields);
        break;
      }
      case 'transfer USDT to an exchange (Travel Rule)': {
        // Over 1,000,000 won to an account at the sandbox's Hanbit exchange: the Travel Rule applies (TRP to Hanbit,
        // which approves when the beneficiary's name matches), the transfer waits for its answer.
        const to = outsideEvm(random);
        const beneficiary = `수취인${person.index}${random.int(0, 999)}`;
        const hosted = await call(`${options.sandboxUrl}/trp/_accounts/vasp-hanbit/ETHEREUM/${to}`, {
          method: 'PUT',
          json: { beneficiaryName: beneficiary, behaviour: 'approve', callbackDelayMs: 200 },
        });
        recipients.outside.ETHEREUM.add(to);
        op.to = to;
        op.amount = String(random.int(720, 780));
        op.key = random.uuid();
        const fields: TransferFields = {
          to_address: to,
          network: 'ETHEREUM',
          token: 'USDT',
          amount: op.amount,
          beneficiary_name: beneficiary,
          travel_address: hosted.body.travelAddress,
        };
        await transfer(fields);
        break;
      }
      case 'swap (ETHEREUM)': {
        const ethToUsdt = random.chance(0.5);
        const amount = ethToUsdt ? (random.int(1, 20) / 1000).toString() : String(random.int(1, 30));
        const quoted = await quoteId('ETHEREUM', ethToUsdt ? 'ETH' : 'USDT', ethToUsdt ? 'USDT' : 'ETH', amount);
        const prepared = quoted
          ? await send(apiUrl, '/v1/exchange/swaps/prepare', { token, json: { quoteId: quoted }, giveUpMs: 30_000 })
          : undefined;
        const slot = prepared?.answer?.status === 200 ? prepared.body.items?.[0] : undefined;
        if (!slot) {
          log.splice(log.indexOf(op), 1); // no executable quote or no operation to sign: no swap asked
          break;
        }
        op.amount = `${amount} ${ethToUsdt ? 'ETH' : 'USDT'}`;
        op.key = random.uuid();
        const json = { signing: { items: [signSlot(slot, person.owner)] } };
        op.answer = (await send(apiUrl, '/v1/exchange/swaps', { json, key: op.key, token }, attempt)).answer;
        await resend('/v1/exchange/swaps', json);
        await poll('/v1/exchange/swaps/:id', ['completed', 'failed']);
        break;
      }
      case 'swap (SOLANA)': {
        const solToUsdt = random.chance(0.5);
        const amount = solToUsdt ? (random.int(1, 50) / 1000).toString() : String(random.int(1, 10));
        const quoted = await quoteId('SOLANA', solToUsdt ? 'SOL' : 'USDT', solToUsdt ? 'USDT' : 'SOL', amount);
        if (!quoted) {
          log.splice(log.indexOf(op), 1); // no executable quote (a balance too low, the DEX down): no swap asked
          break;
        }
        op.amount = `${amount} ${solToUsdt ? 'SOL' : 'USDT'}`;
        op.key = random.uuid();
        const json = { quoteId: quoted, pin: await pins.forSwap(TEST_PIN, quoted, op.key) };
        op.answer = (await send(apiUrl, '/v1/exchange/swaps', { json, key: op.key, token }, attempt)).answer;
        await resend('/v1/exchange/swaps', json);
        await poll('/v1/exchange/swaps/:id', ['completed', 'failed']);
        break;
      }
      case 'read': {
        op.answer = (await send(apiUrl, '/api/v1/transactions', { token, giveUpMs: 20_000 }, attempt)).answer;
        break;
      }
    }
  }
}
