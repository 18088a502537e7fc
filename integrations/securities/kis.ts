import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import { PROVIDER_REJECTED } from '../../platform/failures';
import type { ProviderTransport } from '../../platform/provider-settings';
import {
  ProviderAnswerInvalid,
  ProviderUnavailable,
  expectAnswer,
  requestProvider,
  type ProviderHttpOptions,
} from '../provider-http';
import type { SecuritiesAppKey, SecuritiesBroker, SecuritiesHoldings } from './broker';

/**
 * Korea Investment & Securities' open API (KIS Developers, https://apiportal.koreainvestment.com): the person's app
 * key and secret, issued by KIS for one of their accounts, open an access token (`POST /oauth2/tokenP`, client
 * credentials), and the domestic stock balance inquiry (주식잔고조회, `GET /uapi/domestic-stock/v1/trading/
 * inquire-balance`, transaction id TTTC8434R; VTTC8434R on the paper-trading domain) answers the account's total.
 * Field names, headers and codes as the official samples (github.com/koreainvestment/open-trading-api) and the spec
 * sheets publish them; test/contract/fixtures/kis/SOURCES.md says which is which.
 *
 * What it proves: KIS accepted this key pair for this account. It does not name the holder (no field of either answer
 * identifies a person), so it proves possession of the key, not whose account it is; KIS sends the holder a KakaoTalk
 * notice at every token issued on a real account.
 */

/** 실전 (real) and 모의 (paper trading: separate keys, accounts and domain). */
export type KisEnvironment = 'real' | 'mock';
export const KIS_DOMAINS: Record<KisEnvironment, string> = {
  real: 'https://openapi.koreainvestment.com:9443',
  mock: 'https://openapivts.koreainvestment.com:29443',
};
/** 주식잔고조회's transaction id on each domain. */
export const KIS_BALANCE_TR_ID: Record<KisEnvironment, string> = { real: 'TTTC8434R', mock: 'VTTC8434R' };
export const KIS_FIRM = { code: '243', name: '한국투자증권' } as const;
export const KIS_BALANCE_PATH = '/uapi/domestic-stock/v1/trading/inquire-balance';

/** A token's answer (인증-001): no rt_cd envelope. */
const TokenAnswer = Type.Object({
  access_token: Type.String({ pattern: '^[\\x21-\\x7e]{1,4096}$' }),
  token_type: Type.String(),
  expires_in: Type.Number({ minimum: 1 }),
  access_token_token_expired: Type.Optional(Type.String()),
});
const Won = Type.String({ pattern: '^-?\\d+(\\.0+)?$' });
/** 주식잔고조회's answer, as much of it as we read: output2 is the account's summary (the same on every page). */
export const KisBalanceAnswer = Type.Object({
  rt_cd: Type.Literal('0'),
  msg_cd: Type.String(),
  msg1: Type.String(),
  output1: Type.Array(Type.Object({ pdno: Type.String(), hldg_qty: Type.String(), evlu_amt: Type.String() })),
  output2: Type.Array(Type.Object({ dnca_tot_amt: Won, scts_evlu_amt: Won, tot_evlu_amt: Won, nass_amt: Won }), {
    minItems: 1,
  }),
});

/** The person's credentials or account refused: the request's fault, never retried. */
const OAUTH_REFUSALS = new Set(['EGW00102', 'EGW00103', 'EGW00104', 'EGW00105']);
/** An account the key was not issued for (or whose HTS id changed since), as KIS's ledger answers it. */
const ACCOUNT_REFUSALS = new Set(['OPSQ2000', 'IGW00002', 'APTR0058', '90070000', '40910000']);
/** The token: invalid, not found, expired. Issued again once. */
const TOKEN_REFUSALS = new Set(['EGW00121', 'EGW00122', 'EGW00123']);
/** Too many calls a second (the key's own limit; the ledger's 120 TPS on this inquiry): waited out, a few times. */
const RATE_LIMITS = new Set(['EGW00201', 'EGW00215']);
/** How many times a rate-limited inquiry is tried again, and how long is waited before each (KIS allows 20/s, paper 2/s). */
const RATE_LIMIT_RETRIES = 3;
const RATE_LIMIT_WAIT_MS = 600;
/** Tokens kept per key pair (24 h each, renewed 10 minutes early): KIS issues one a minute per key at most. */
const MAX_TOKENS = 1_000;
const RENEW_BEFORE_MS = 10 * 60_000;

const refused = (message: string, code: string): ApplicationFailure =>
  ApplicationFailure.create({ type: PROVIDER_REJECTED, nonRetryable: true, message, details: [{ code }, 403] });

/** `12345678-01` or `1234567801`: CANO (종합계좌번호, 8 digits) and ACNT_PRDT_CD (계좌상품코드, 2 digits). */
export function splitKisAccount(accountNo: string): { cano: string; productCode: string } {
  const match = /^(\d{8})-?(\d{2})$/.exec(accountNo);
  if (!match)
    throw new Error(`a KIS account number is 8 digits and 2 (12345678-01), not ${accountNo.length} characters`);
  return { cano: match[1]!, productCode: match[2]! };
}

export class KisOpenApi implements SecuritiesBroker {
  readonly firm = KIS_FIRM;
  private readonly http: ProviderHttpOptions;
  private readonly trId: string;
  private readonly now: () => number;
  /** Tokens by key pair (a SHA-256 of key and secret: the secret is not kept here), oldest first. */
  private readonly tokens = new Map<string, { token: string; renewAt: number }>();
  private readonly issuing = new Map<string, Promise<string>>();

  constructor(options: {
    apiUrl: string;
    environment: KisEnvironment;
    transport: ProviderTransport;
    now?: () => number;
  }) {
    this.http = {
      baseUrl: options.apiUrl,
      timeoutMs: options.transport.timeoutMs,
      tls: options.transport.tls,
      readServerErrors: true,
      maxAnswerBytes: 256 * 1024,
    };
    this.trId = KIS_BALANCE_TR_ID[options.environment];
    this.now = options.now ?? Date.now;
  }

  async holdingsByAppKey(input: SecuritiesAppKey): Promise<SecuritiesHoldings> {
    const { cano, productCode } = splitKisAccount(input.accountNo);
    const pair = createHash('sha256').update(`${input.appKey}\u0000${input.appSecret}`).digest('base64url');
    let reissued = false;
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.token(pair, input);
      const { status, body } = await requestProvider<unknown>(
        this.http,
        'GET',
        `${KIS_BALANCE_PATH}?${balanceQuery(cano, productCode)}`,
        undefined,
        {
          'content-type': 'application/json; charset=utf-8',
          authorization: `Bearer ${token}`,
          appkey: input.appKey,
          appsecret: input.appSecret,
          tr_id: this.trId,
          custtype: 'P',
          tr_cont: '',
        },
      );
      const envelope = codeOf(body);
      if (status === 200 && envelope?.rt_cd === '0') {
        const answer = expectAnswer(KisBalanceAnswer, body, 'a KIS balance inquiry');
        const total = answer.output2[0]!.tot_evlu_amt.replace(/\.0+$/, '');
        return {
          firmCode: KIS_FIRM.code,
          firmName: KIS_FIRM.name,
          accounts: [{ accountNo: `${cano}-${productCode}`, totalKrw: BigInt(total) }],
        };
      }
      if (!envelope) {
        if (status >= 500) throw new ProviderUnavailable(`KIS answered ${status} to a balance inquiry`, { status });
        throw new ProviderAnswerInvalid(
          `KIS answered ${status} to a balance inquiry without its rt_cd envelope`,
          JSON.stringify(body) ?? '',
        );
      }
      const code = envelope.msg_cd;
      if (TOKEN_REFUSALS.has(code) && !reissued) {
        this.forget(pair, token);
        reissued = true;
        continue;
      }
      if (RATE_LIMITS.has(code) && attempt < RATE_LIMIT_RETRIES) {
        await sleep(RATE_LIMIT_WAIT_MS * (attempt + 1));
        continue;
      }
      if (ACCOUNT_REFUSALS.has(code) || OAUTH_REFUSALS.has(code))
        throw refused(`KIS refused the account for this app key (${code})`, code);
      // Any other code (maintenance, the paper domain's hours, one KIS added since): not the person's key's fault.
      throw new ProviderUnavailable(`KIS answered ${status} (${code}) to a balance inquiry`, { status });
    }
  }

  /** The key pair's token: kept until 10 minutes before it expires; one issue at a time per key pair. */
  private async token(pair: string, input: SecuritiesAppKey): Promise<string> {
    const kept = this.tokens.get(pair);
    if (kept && this.now() < kept.renewAt) return kept.token;
    let pending = this.issuing.get(pair);
    if (!pending) {
      pending = this.issue(pair, input).finally(() => this.issuing.delete(pair));
      this.issuing.set(pair, pending);
    }
    return pending;
  }

  private forget(pair: string, token: string): void {
    if (this.tokens.get(pair)?.token === token) this.tokens.delete(pair);
  }

  private async issue(pair: string, input: SecuritiesAppKey): Promise<string> {
    const { status, body } = await requestProvider<unknown>(this.http, 'POST', '/oauth2/tokenP', {
      grant_type: 'client_credentials',
      appkey: input.appKey,
      appsecret: input.appSecret,
    });
    if (status !== 200) {
      const code = tokenRefusalCodeOf(body);
      if (OAUTH_REFUSALS.has(code)) throw refused(`KIS refused the app key (${code})`, code);
      if (code === 'EGW00133')
        throw new ProviderUnavailable('KIS issues one token a minute per app key (EGW00133): try again in a minute', {
          status,
        });
      throw new ProviderUnavailable(`KIS answered ${status}${code ? ` (${code})` : ''} to a token request`, { status });
    }
    const answer = expectAnswer(TokenAnswer, body, 'a KIS token');
    if (answer.token_type.toLowerCase() !== 'bearer')
      throw new ProviderAnswerInvalid(`KIS issued a ${answer.token_type} token, not Bearer`, JSON.stringify(body));
    if (this.tokens.size >= MAX_TOKENS) this.tokens.delete(this.tokens.keys().next().value!);
    this.tokens.set(pair, {
      token: answer.access_token,
      renewAt: this.now() + Math.max(answer.expires_in * 1000 - RENEW_BEFORE_MS, 0),
    });
    return answer.access_token;
  }
}

/**
 * The code of a refused token request. Every published refusal is `{"error_description":"…","error_code":"EGW00133"}`;
 * `msg_cd`, the /uapi envelope's code, is read when `error_code` is absent, in case the gateway answers a token request
 * in that form too (no such answer was found published): a wrong key must not pass for an outage.
 */
function tokenRefusalCodeOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const { error_code, msg_cd } = body as Record<string, unknown>;
  if (typeof error_code === 'string') return error_code;
  return typeof msg_cd === 'string' ? msg_cd : '';
}

/** The /uapi envelope's codes (`rt_cd` "0" is success, anything else a failure named by `msg_cd`), when the answer has them. */
function codeOf(body: unknown): { rt_cd: string; msg_cd: string } | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const { rt_cd, msg_cd } = body as Record<string, unknown>;
  return typeof rt_cd === 'string' && typeof msg_cd === 'string' ? { rt_cd, msg_cd } : undefined;
}

/**
 * The inquiry's query, in the order of KIS's own Postman sample (J_주식잔고조회): the first page, today's trades
 * included, balances by loan date (INQR_DVSN 01: 02 is refused since 2026-02-10).
 */
export function balanceQuery(cano: string, productCode: string): string {
  return new URLSearchParams([
    ['CANO', cano],
    ['ACNT_PRDT_CD', productCode],
    ['AFHR_FLPR_YN', 'N'],
    ['OFL_YN', ''],
    ['INQR_DVSN', '01'],
    ['UNPR_DVSN', '01'],
    ['FUND_STTL_ICLD_YN', 'N'],
    ['FNCG_AMT_AUTO_RDPT_YN', 'N'],
    ['PRCS_DVSN', '00'],
    ['CTX_AREA_FK100', ''],
    ['CTX_AREA_NK100', ''],
  ]).toString();
}
