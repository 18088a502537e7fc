import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import iconv from 'iconv-lite';
import {
  niceDecrypt,
  niceEncrypt,
  niceIntegrity,
  niceIntegrityHolds,
  niceKeys,
  type NiceKeys,
  type NiceRequest,
} from '../integrations/identity-nice';
import type { IdentityAgency } from './identity-provider';

/**
 * Stand-in for NICE평가정보's identity verification (본인확인, the standard window), speaking its published protocol
 * (integrations/identity-nice.ts names it): the institution token, the crypto token, the window that takes the
 * encrypted request, and the browser's return to the request's returnurl with the result encrypted under the same
 * keys, in EUC-KR. Where a real window asks the person for their phone and the code sent to it, this one shows a form
 * for who they are (name, birth date, phone, ...), which the tests and the walk-throughs fill in
 * (`npm run -s sandbox:verify`); the result is what NICE's result carries, CI and DI included.
 */
export interface NiceSandboxOptions {
  clientId: string;
  clientSecret: string;
  /** The product of 본인확인 (통합형). */
  productId?: string;
  /** The site code NICE gives us (회원사 사이트코드). */
  siteCode?: string;
  agency?: IdentityAgency;
  now?: () => number;
}

interface CryptoToken {
  keys: NiceKeys;
  siteCode: string;
  expiresAt: number;
}

interface WindowSession {
  tokenVersionId: string;
  request: NiceRequest;
  expiresAt: number;
}

const header = (code: string, message: string) => ({ GW_RSLT_CD: code, GW_RSLT_MSG: message });
const PRODUCT = '2101979031';
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function niceRouter(options: NiceSandboxOptions): Router {
  const now = options.now ?? Date.now;
  const productId = options.productId ?? PRODUCT;
  const siteCode = options.siteCode ?? 'BV000001';
  const accessTokens = new Set<string>();
  const cryptoTokens = new Map<string, CryptoToken>();
  const sessions = new Map<string, WindowSession>();
  const router = new Router();

  router.post('/digital/niceid/oauth/oauth/token', (ctx) => {
    const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
    const form = (ctx.request as unknown as { body?: Record<string, string> }).body ?? {};
    if (ctx.get('authorization') !== `Basic ${basic}`) {
      ctx.status = 401;
      ctx.body = { dataHeader: header('1801', '잘못된 클라이언트 정보') };
      return;
    }
    if (form.grant_type !== 'client_credentials' || form.scope !== 'default') {
      ctx.status = 400;
      ctx.body = { dataHeader: header('1400', '잘못된 요청') };
      return;
    }
    const accessToken = randomBytes(18).toString('hex');
    accessTokens.add(accessToken);
    ctx.body = {
      dataHeader: header('1200', '오류 없음'),
      // 50 years, as NICE issues it.
      dataBody: { access_token: accessToken, token_type: 'bearer', expires_in: 50 * 365 * 24 * 3600, scope: 'default' },
    };
  });

  router.post('/digital/niceid/api/v1.0/common/crypto/token', (ctx) => {
    const auth = ctx.get('authorization');
    const [token, seconds, clientId] = auth.toLowerCase().startsWith('bearer ')
      ? Buffer.from(auth.slice(7), 'base64').toString('utf8').split(':')
      : [];
    if (!token || !accessTokens.has(token) || clientId !== options.clientId) {
      ctx.status = 401;
      ctx.body = { dataHeader: header('1800', '잘못된 토큰') };
      return;
    }
    // The gateway's rule: the header's time within 3 minutes of NICE's.
    if (!/^\d+$/.test(seconds ?? '') || Math.abs(Number(seconds) * 1000 - now()) > 180_000) {
      ctx.status = 401;
      ctx.body = { dataHeader: header('1800', 'current_time_stamp 가 실제 시간과 3분 이상 차이') };
      return;
    }
    if ((ctx.get('productid') || '') !== productId) {
      ctx.status = 403;
      ctx.body = { dataHeader: header('1705', '허용되지 않은 상품코드') };
      return;
    }
    const body = (ctx.request as unknown as { body?: Record<string, Record<string, string>> }).body ?? {};
    const data = body.dataBody ?? {};
    if (!body.dataHeader || !body.dataBody) {
      ctx.body = { dataHeader: header('1500', '데이터 형식 오류') };
      return;
    }
    if (!/^\d{14}$/.test(data.req_dtim ?? '') || !data.req_no || data.req_no.length > 30 || data.enc_mode !== '1') {
      ctx.body = { dataHeader: header('1200', '오류 없음'), dataBody: { rsp_cd: 'P000', result_cd: '0001' } };
      return;
    }
    const tokenVersionId = `${data.req_dtim}${randomBytes(3).toString('hex')}`;
    const tokenVal = randomBytes(24).toString('base64');
    const period = 3600;
    cryptoTokens.set(tokenVersionId, {
      keys: niceKeys(data.req_dtim!, data.req_no, tokenVal),
      siteCode,
      expiresAt: now() + period * 1000,
    });
    ctx.body = {
      dataHeader: header('1200', '오류 없음'),
      dataBody: {
        rsp_cd: 'P000',
        result_cd: '0000',
        site_code: siteCode,
        token_version_id: tokenVersionId,
        token_val: tokenVal,
        period,
      },
    };
  });

  /** The standard window: the encrypted request checked and opened, then the person's step. */
  router.post('/CheckPlusSafeModel/service.cb', (ctx) => {
    const form = (ctx.request as unknown as { body?: Record<string, string> }).body ?? {};
    const token = cryptoTokens.get(form.token_version_id ?? '');
    const refuse = (why: string) => {
      ctx.status = 400;
      ctx.type = 'text/html';
      ctx.body = `<!doctype html><p>본인확인 요청 오류: ${escapeHtml(why)}</p>`;
    };
    if (form.m !== 'service') return refuse('m');
    if (!token || token.expiresAt < now()) return refuse('token_version_id');
    if (!form.enc_data || !form.integrity_value || !niceIntegrityHolds(token.keys, form.enc_data, form.integrity_value))
      return refuse('integrity_value');
    let request: NiceRequest;
    try {
      request = JSON.parse(niceDecrypt(token.keys, form.enc_data).toString('utf8')) as NiceRequest;
    } catch {
      return refuse('enc_data');
    }
    if (!request.requestno || request.requestno.length > 30 || !/^https?:\/\//.test(request.returnurl ?? ''))
      return refuse('requestno / returnurl');
    if (request.sitecode !== token.siteCode) return refuse('sitecode');
    const session = randomBytes(16).toString('hex');
    sessions.set(session, { tokenVersionId: form.token_version_id!, request, expiresAt: token.expiresAt });
    ctx.type = 'text/html';
    ctx.body = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>NICE 본인확인 (sandbox)</title></head><body>
<h1>휴대폰 본인확인 (sandbox)</h1>
<form method="post" action="/CheckPlusSafeModel/sandbox/verify">
<input type="hidden" name="session" value="${session}">
<label>이름 <input name="name" required></label>
<label>생년월일 <input name="birthDate" placeholder="1990-01-15" required></label>
<label>휴대폰 <input name="phone" placeholder="01012345678" required></label>
<label>주민등록번호 <input name="residentNumber"></label>
<label>성별 <select name="gender"><option value="1">남</option><option value="0">여</option></select></label>
<label>내외국인 <select name="nationalinfo"><option value="0">내국인</option><option value="1">외국인</option></select></label>
<label>통신사 <select name="mobileco"><option value="1">SKT</option><option value="2">KT</option><option value="3">LGU+</option></select></label>
<label>결과 <select name="outcome"><option value="success">인증</option><option value="failure">인증 불일치</option></select></label>
<button type="submit">확인</button>
</form></body></html>`;
  });

  /** The person has verified (or not): the browser goes back to returnurl with the result, encrypted. */
  router.post('/CheckPlusSafeModel/sandbox/verify', (ctx) => {
    const form = (ctx.request as unknown as { body?: Record<string, string> }).body ?? {};
    const session = sessions.get(form.session ?? '');
    if (!session || session.expiresAt < now()) {
      ctx.status = 400;
      ctx.body = 'session';
      return;
    }
    sessions.delete(form.session!);
    const token = cryptoTokens.get(session.tokenVersionId)!;
    const name = (form.name ?? '').trim();
    const birthdate = (form.birthDate ?? '').replace(/\D/g, '');
    const phone = (form.phone ?? '').replace(/\D/g, '');
    const residentNumber = (form.residentNumber ?? '').replace(/\D/g, '');
    // CI belongs to the person, not the phone (as the carrier and NICE know them by resident number); DI is per site.
    const ci = createHash('sha512')
      .update(residentNumber ? `rrn|${residentNumber}` : `${name}|${birthdate}`)
      .digest('base64');
    const di = createHash('sha256').update(`di|${token.siteCode}|${ci}`).digest('base64');
    const verified = form.outcome !== 'failure' && !!name && /^\d{8}$/.test(birthdate) && /^01\d{8,9}$/.test(phone);
    const now_ = new Date(now() + 9 * 3600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');
    const result = verified
      ? {
          resultcode: '0000',
          requestno: session.request.requestno,
          enctime: now_,
          sitecode: token.siteCode,
          responseno: `SB${randomBytes(8).toString('hex').toUpperCase()}`,
          authtype: 'M',
          name,
          utf8_name: encodeURIComponent(name),
          birthdate,
          gender: form.gender === '0' ? '0' : '1',
          nationalinfo: form.nationalinfo === '1' ? '1' : '0',
          mobileco: ['1', '2', '3', '5', '6', '7'].includes(form.mobileco ?? '') ? form.mobileco : '1',
          mobileno: phone,
          ci,
          di,
          ...(session.request.receivedata ? { receivedata: session.request.receivedata } : {}),
        }
      : {
          resultcode: '0001',
          requestno: session.request.requestno,
          enctime: now_,
          sitecode: token.siteCode,
          ...(session.request.receivedata ? { receivedata: session.request.receivedata } : {}),
        };
    if (verified) options.agency?.remember({ name, birthDate: birthdate, phone }, ci);
    // The result's text is EUC-KR, as NICE's is.
    const encData = niceEncrypt(token.keys, iconv.encode(JSON.stringify(result), 'euc-kr'));
    const back = {
      token_version_id: session.tokenVersionId,
      enc_data: encData,
      integrity_value: niceIntegrity(token.keys, encData),
    };
    if (session.request.methodtype === 'post') {
      ctx.type = 'text/html';
      ctx.body = `<!doctype html><body onload="document.forms[0].submit()"><form method="post" action="${escapeHtml(session.request.returnurl)}">${Object.entries(
        back,
      )
        .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
        .join('')}</form></body>`;
      return;
    }
    const url = new URL(session.request.returnurl);
    for (const [k, v] of Object.entries(back)) url.searchParams.set(k, v);
    ctx.redirect(url.toString());
  });

  return router;
}
