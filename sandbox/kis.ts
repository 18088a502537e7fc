import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * Korea Investment & Securities' open API (KIS Developers) as its paper-trading domain (모의투자,
 * openapivts.koreainvestment.com:29443) answers it, under /kis: the access token (`POST /oauth2/tokenP`) and the
 * domestic stock balance inquiry (`GET /uapi/domestic-stock/v1/trading/inquire-balance`, tr_id VTTC8434R), with the
 * field names, headers, codes and rules the official samples and spec sheets publish (test/contract/fixtures/kis):
 * a token lasts 24 h, the same token is answered again within 6 h, at most one token request a minute per key
 * (EGW00133); every number a string; 20 holdings a page (tr_cont M, then D); two calls a second per key (EGW00201).
 * Gateway refusals (token, key, limits) are HTTP 500 with the rt_cd envelope, business refusals HTTP 200 with rt_cd
 * other than "0". Administration: `POST /kis/_accounts` opens a paper account and issues its key pair.
 */

export interface KisHolding {
  /** 상품번호: the 6-digit stock code. */
  pdno: string;
  name: string;
  quantity: number;
  /** 현재가 (won). */
  price: number;
  /** 매입평균가격 (won). */
  averagePrice?: number;
}

interface KisAccount {
  cano: string;
  productCode: string;
  appKey: string;
  appSecret: string;
  /** 예수금 (won). */
  deposit: number;
  holdings: KisHolding[];
  token?: { value: string; issuedAt: number; expiresAt: number };
  lastTokenRequestAt?: number;
  /** The times of this second's balance inquiries (the paper domain's 2 a second). */
  recentCalls: number[];
}

export const KIS_MOCK_TR_ID = 'VTTC8434R';
const TOKEN_SECONDS = 86_400;
const SAME_TOKEN_WITHIN_MS = 6 * 3600_000;
const TOKEN_REQUESTS_EVERY_MS = 60_000;
const CALLS_PER_SECOND = 2;
const PAGE_ROWS = 20;

const alnum = (length: number) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (b) => chars[b % chars.length]).join('');
};
const pad = (text: string, length: number) => text.padEnd(length, ' ');
/** KIS writes expiries as Korean wall-clock time, 'YYYY-MM-DD HH:MM:SS'. */
const kst = (ms: number) => new Date(ms + 9 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');

export function kisRouter(options: { now?: () => number } = {}): Router {
  const now = options.now ?? Date.now;
  const accounts: KisAccount[] = [];
  const byKey = (appKey: string) => accounts.find((a) => a.appKey === appKey);
  const router = new Router({ prefix: '/kis' });
  const body = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const oauthError = (ctx: Context, code: string, description: string) => {
    ctx.status = 403;
    ctx.body = { error_description: description, error_code: code };
  };
  const uapiError = (ctx: Context, status: number, rtCd: string, code: string, message: string) => {
    ctx.status = status;
    ctx.body = { rt_cd: rtCd, msg_cd: code, msg1: message };
  };

  /** Opens a paper account (8-2 digits, starting 50 as KIS's paper accounts do) and issues its key pair. */
  router.post('/_accounts', (ctx) => {
    const { deposit = 0, holdings = [] } = body(ctx) as { deposit?: number; holdings?: KisHolding[] };
    const valid =
      Number.isSafeInteger(deposit) &&
      deposit >= 0 &&
      Array.isArray(holdings) &&
      holdings.every(
        (h) =>
          /^\d{6}$/.test(String(h.pdno)) &&
          typeof h.name === 'string' &&
          Number.isSafeInteger(h.quantity) &&
          h.quantity >= 0 &&
          Number.isSafeInteger(h.price) &&
          h.price >= 0 &&
          (h.averagePrice === undefined || (Number.isFinite(h.averagePrice) && h.averagePrice >= 0)),
      );
    if (!valid) {
      ctx.status = 400;
      ctx.body = {
        error:
          'deposit (whole won) and holdings [{pdno (6 digits), name, quantity, price, averagePrice?}] are expected',
      };
      return;
    }
    const account: KisAccount = {
      cano: `50${String(randomBytes(4).readUInt32BE(0) % 1_000_000).padStart(6, '0')}`,
      productCode: '01',
      appKey: `PS${alnum(34)}`,
      appSecret: randomBytes(135).toString('base64'),
      deposit,
      holdings,
      recentCalls: [],
    };
    accounts.push(account);
    ctx.status = 201;
    ctx.body = {
      accountNo: `${account.cano}-${account.productCode}`,
      appKey: account.appKey,
      appSecret: account.appSecret,
    };
  });

  // 접근토큰발급(P): client credentials; no rt_cd envelope; refusals are {error_description, error_code}.
  router.post('/oauth2/tokenP', (ctx) => {
    const { grant_type, appkey, appsecret } = body(ctx) as Record<string, unknown>;
    if (typeof appkey !== 'string' || !appkey) return oauthError(ctx, 'EGW00102', 'AppKey는 필수입니다.');
    if (typeof appsecret !== 'string' || !appsecret) return oauthError(ctx, 'EGW00104', 'AppSecret은 필수입니다.');
    if (grant_type !== 'client_credentials') {
      // KIS publishes no code for this; the sandbox says so in its own words.
      ctx.status = 400;
      ctx.body = { error_description: 'sandbox: grant_type must be client_credentials', error_code: 'SANDBOX' };
      return;
    }
    const account = byKey(appkey);
    if (!account) return oauthError(ctx, 'EGW00103', '유효하지 않은 AppKey입니다.');
    if (account.appSecret !== appsecret) return oauthError(ctx, 'EGW00105', '유효하지 않은 AppSecret입니다.');
    const at = now();
    if (account.lastTokenRequestAt !== undefined && at - account.lastTokenRequestAt < TOKEN_REQUESTS_EVERY_MS)
      return oauthError(ctx, 'EGW00133', '접근토큰 발급 잠시 후 다시 시도하세요(1분당 1회)');
    account.lastTokenRequestAt = at;
    if (!account.token || at - account.token.issuedAt >= SAME_TOKEN_WITHIN_MS || at >= account.token.expiresAt) {
      const claims = Buffer.from(JSON.stringify({ sub: 'token', aud: alnum(36), iat: Math.floor(at / 1000) })).toString(
        'base64url',
      );
      account.token = {
        value: `eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzUxMiJ9.${claims}.${randomBytes(64).toString('base64url')}`,
        issuedAt: at,
        expiresAt: at + TOKEN_SECONDS * 1000,
      };
    }
    ctx.body = {
      access_token: account.token.value,
      access_token_token_expired: kst(account.token.expiresAt),
      token_type: 'Bearer',
      expires_in: Math.round((account.token.expiresAt - at) / 1000),
    };
  });

  // 주식잔고조회 (v1_국내주식-006).
  router.get('/uapi/domestic-stock/v1/trading/inquire-balance', (ctx) => {
    const authorization = ctx.get('authorization');
    if (!authorization.startsWith('Bearer '))
      return uapiError(ctx, 500, '1', 'EGW00205', 'credentials_type이 유효하지 않습니다.(Bearer)');
    const token = authorization.slice('Bearer '.length);
    const account = accounts.find((a) => a.token?.value === token);
    if (!account) return uapiError(ctx, 500, '1', 'EGW00121', '유효하지 않은 token 입니다.');
    const at = now();
    if (at >= account.token!.expiresAt) return uapiError(ctx, 500, '1', 'EGW00123', '기간이 만료된 token 입니다.');
    if (!ctx.get('appkey')) return uapiError(ctx, 500, '1', 'EGW00102', 'AppKey는 필수입니다.');
    if (ctx.get('appkey') !== account.appKey)
      return uapiError(ctx, 500, '1', 'EGW00103', '유효하지 않은 AppKey입니다.');
    if (!ctx.get('appsecret')) return uapiError(ctx, 500, '1', 'EGW00104', 'AppSecret은 필수입니다.');
    if (ctx.get('appsecret') !== account.appSecret)
      return uapiError(ctx, 500, '1', 'EGW00105', '유효하지 않은 AppSecret입니다.');
    if (ctx.get('tr_id') !== KIS_MOCK_TR_ID) return uapiError(ctx, 500, '1', 'EGW00213', '모의투자 TR 이 아닙니다.');
    if (!['P', 'B'].includes(ctx.get('custtype')))
      return uapiError(ctx, 500, '1', 'EGW00208', '고객유형(custtype)이 유효하지 않습니다.');
    account.recentCalls = account.recentCalls.filter((t) => at - t < 1000);
    if (account.recentCalls.length >= CALLS_PER_SECOND)
      return uapiError(ctx, 500, '1', 'EGW00201', '초당 거래건수를 초과하였습니다.');
    account.recentCalls.push(at);

    const q = ctx.query as Record<string, string | string[] | undefined>;
    const one = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
    if (one('CANO') !== account.cano || one('ACNT_PRDT_CD') !== account.productCode)
      return uapiError(ctx, 200, '2', 'OPSQ2000', 'ERROR : INPUT INVALID_CHECK_ACNO');
    if (one('INQR_DVSN') !== '01') return uapiError(ctx, 200, '2', 'OPSQ2001', 'ERROR : INPUT INVALID_CHECK_INQR_DVSN');
    const allowed: Record<string, string[]> = {
      AFHR_FLPR_YN: ['N', 'Y', 'X'],
      OFL_YN: [''],
      UNPR_DVSN: ['01'],
      FUND_STTL_ICLD_YN: ['N', 'Y'],
      FNCG_AMT_AUTO_RDPT_YN: ['N', 'Y'],
      PRCS_DVSN: ['00', '01'],
    };
    const wrong = Object.entries(allowed).filter(([name, values]) => !values.includes(one(name) ?? '\u0000'));
    const context = ['CTX_AREA_FK100', 'CTX_AREA_NK100'].filter((name) => one(name) === undefined);
    if (wrong.length || context.length) {
      // The spec names these parameters required; KIS publishes no code for a missing one: the sandbox's own words.
      ctx.status = 400;
      ctx.body = {
        rt_cd: '1',
        msg_cd: 'SANDBOX',
        msg1: `sandbox: ${[...wrong.map(([n]) => n), ...context].join(', ')} missing or not a documented value`,
      };
      return;
    }
    // Paging: 20 rows a page; the next page's offset travels in ctx_area_nk100 with request header tr_cont N.
    const offset = ctx.get('tr_cont') === 'N' ? Number(one('CTX_AREA_NK100')?.trim() || 0) : 0;
    const rows = account.holdings.slice(offset, offset + PAGE_ROWS);
    const more = offset + PAGE_ROWS < account.holdings.length;
    const securities = account.holdings.reduce((sum, h) => sum + h.quantity * h.price, 0);
    const bought = account.holdings.reduce((sum, h) => sum + Math.round(h.quantity * (h.averagePrice ?? h.price)), 0);
    const total = account.deposit + securities;
    ctx.set('tr_id', KIS_MOCK_TR_ID);
    ctx.set('tr_cont', more ? 'M' : 'D');
    ctx.body = {
      ctx_area_fk100: pad(more ? account.cano : '', 100),
      ctx_area_nk100: pad(more ? String(offset + PAGE_ROWS) : '', 100),
      output1: rows.map((h) => {
        const average = h.averagePrice ?? h.price;
        const value = h.quantity * h.price;
        const cost = Math.round(h.quantity * average);
        const gain = value - cost;
        return {
          pdno: h.pdno,
          prdt_name: h.name,
          trad_dvsn_name: '현금',
          bfdy_buy_qty: '0',
          bfdy_sll_qty: '0',
          thdt_buyqty: '0',
          thdt_sll_qty: '0',
          hldg_qty: String(h.quantity),
          ord_psbl_qty: String(h.quantity),
          pchs_avg_pric: average.toFixed(4),
          pchs_amt: String(cost),
          prpr: String(h.price),
          evlu_amt: String(value),
          evlu_pfls_amt: String(gain),
          evlu_pfls_rt: cost ? ((gain / cost) * 100).toFixed(2) : '0.00',
          evlu_erng_rt: cost ? ((gain / cost) * 100).toFixed(8) : '0.00000000',
          loan_dt: '',
          loan_amt: '0',
          stln_slng_chgs: '0',
          expd_dt: '',
          fltt_rt: '0.00000000',
          bfdy_cprs_icdc: '0',
          item_mgna_rt_name: '',
          grta_rt_name: '',
          sbst_pric: '0',
          stck_loan_unpr: '0.0000',
        };
      }),
      output2: [
        {
          dnca_tot_amt: String(account.deposit),
          nxdy_excc_amt: String(account.deposit),
          prvs_rcdl_excc_amt: String(account.deposit),
          cma_evlu_amt: '0',
          bfdy_buy_amt: '0',
          thdt_buy_amt: '0',
          nxdy_auto_rdpt_amt: '0',
          bfdy_sll_amt: '0',
          thdt_sll_amt: '0',
          d2_auto_rdpt_amt: '0',
          bfdy_tlex_amt: '0',
          thdt_tlex_amt: '0',
          tot_loan_amt: '0',
          scts_evlu_amt: String(securities),
          tot_evlu_amt: String(total),
          nass_amt: String(total),
          fncg_gld_auto_rdpt_yn: '',
          pchs_amt_smtl_amt: String(bought),
          evlu_amt_smtl_amt: String(securities),
          evlu_pfls_smtl_amt: String(securities - bought),
          tot_stln_slng_chgs: '0',
          bfdy_tot_asst_evlu_amt: String(total),
          asst_icdc_amt: '0',
          asst_icdc_erng_rt: '0.00000000',
        },
      ],
      rt_cd: '0',
      msg_cd: '20310000',
      msg1: pad('모의투자 조회가 완료되었습니다.', 80),
    };
  });
  return router;
}
