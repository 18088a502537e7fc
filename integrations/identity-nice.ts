import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { expectAnswer, ProviderUnavailable, requestProvider, type ProviderHttpOptions } from './provider-http';

/**
 * NICE평가정보's identity verification (본인확인, the "NICE API" standard window, 통합형): its published protocol as
 * NICE's development guide (API_본인확인(통합형)개발가이드) and its samples give it, read from public implementations
 * (docs/providers.md names them):
 *   1. an institution token (기관토큰): POST /digital/niceid/oauth/oauth/token, Basic client_id:client_secret,
 *      grant_type=client_credentials&scope=default; valid for 50 years, asked once per process;
 *   2. per verification, a crypto token (암호화 토큰): POST /digital/niceid/api/v1.0/common/crypto/token with
 *      `bearer base64(access_token:unix seconds:client_id)` and the product's ProductID, for a request date-time and
 *      number; it answers the site code, a token_version_id and the token_val the keys derive from;
 *   3. the request (requestno, returnurl, sitecode, ...) as JSON, AES-128-CBC under those keys (enc_data) with an
 *      HMAC-SHA256 over it (integrity_value); the app's browser posts them with token_version_id to NICE's window;
 *   4. the person verifies there (phone, card, certificate); NICE sends the browser back to returnurl with
 *      token_version_id, enc_data and integrity_value: the result, EUC-KR JSON under the same keys, with CI, DI, name,
 *      birth date, gender, nationality and phone.
 */

/** The published gateway codes (dataHeader.GW_RSLT_CD): 1200 is success; 1800 a token or a clock off by 3 minutes. */
export const GATEWAY_OK = '1200';

const DataHeader = Type.Object({ GW_RSLT_CD: Type.String(), GW_RSLT_MSG: Type.Optional(Type.String()) });

export const InstitutionTokenAnswer = Type.Object({
  dataHeader: DataHeader,
  dataBody: Type.Optional(
    Type.Object({
      access_token: Type.String({ minLength: 1 }),
      token_type: Type.String(),
      expires_in: Type.Union([Type.Number(), Type.String()]),
      scope: Type.String(),
    }),
  ),
});

export const CryptoTokenAnswer = Type.Object({
  dataHeader: DataHeader,
  dataBody: Type.Optional(
    Type.Object({
      /** P000 success; any other an error (EAPIxxxx with res_msg). */
      rsp_cd: Type.String(),
      res_msg: Type.Optional(Type.String()),
      /** 0000 issued; 0001 a required input missing; 0003 not a member for this; 0099 other. */
      result_cd: Type.Optional(Type.String()),
      site_code: Type.Optional(Type.String()),
      token_version_id: Type.Optional(Type.String()),
      token_val: Type.Optional(Type.String()),
      /** Seconds the token is valid. */
      period: Type.Optional(Type.Union([Type.Number(), Type.String()])),
    }),
  ),
});

/** The keys of one verification, derived from the crypto token (NICE's guide: the same for one token_version_id). */
export interface NiceKeys {
  key: Buffer;
  iv: Buffer;
  hmacKey: Buffer;
}

/**
 * base64(SHA-256(req_dtim + req_no + token_val)), each trimmed; its first 16 characters are the AES key, its last 16 the
 * IV, its first 32 the HMAC key (the characters' bytes, not the digest's).
 */
export function niceKeys(reqDtim: string, reqNo: string, tokenVal: string): NiceKeys {
  const value = createHash('sha256')
    .update(reqDtim.trim() + reqNo.trim() + tokenVal.trim())
    .digest('base64');
  return {
    key: Buffer.from(value.slice(0, 16), 'latin1'),
    iv: Buffer.from(value.slice(value.length - 16), 'latin1'),
    hmacKey: Buffer.from(value.slice(0, 32), 'latin1'),
  };
}

/** enc_data: AES-128-CBC with PKCS#7 padding, base64. */
export function niceEncrypt(keys: NiceKeys, plain: Buffer): string {
  const cipher = createCipheriv('aes-128-cbc', keys.key, keys.iv);
  return Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
}

export function niceDecrypt(keys: NiceKeys, encData: string): Buffer {
  const decipher = createDecipheriv('aes-128-cbc', keys.key, keys.iv);
  return Buffer.concat([decipher.update(Buffer.from(encData, 'base64')), decipher.final()]);
}

/** integrity_value: base64(HMAC-SHA256(hmac key, the enc_data text)). */
export const niceIntegrity = (keys: NiceKeys, encData: string): string =>
  createHmac('sha256', keys.hmacKey).update(encData, 'latin1').digest('base64');

export function niceIntegrityHolds(keys: NiceKeys, encData: string, integrityValue: string): boolean {
  const expected = Buffer.from(niceIntegrity(keys, encData));
  const given = Buffer.from(integrityValue);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** YYYYMMDDHHmmss in Korea's time, as NICE's samples write req_dtim. */
export function niceDateTime(at: Date): string {
  const kst = new Date(at.getTime() + 9 * 3600_000).toISOString();
  return kst.slice(0, 19).replace(/[-T:]/g, '');
}

/** The request the browser carries to NICE's window, encrypted (the guide's fields; popupyn, authtype left out). */
export interface NiceRequest {
  requestno: string;
  returnurl: string;
  sitecode: string;
  /** How NICE returns the browser: `get` always (a POST may be turned into a GET by the browser's policy). */
  methodtype: 'get' | 'post';
  receivedata?: string;
}

/** The decrypted result, as NICE's guide names its fields (values are strings). */
export interface NiceResult {
  resultcode: string;
  requestno: string;
  enctime?: string;
  sitecode?: string;
  responseno?: string;
  authtype?: string;
  name?: string;
  /** The name, UTF-8 and URL-encoded. */
  utf8_name?: string;
  /** YYYYMMDD. */
  birthdate?: string;
  /** 0 female, 1 male. */
  gender?: string;
  /** 0 Korean national, 1 foreigner. */
  nationalinfo?: string;
  /** 1 SKT, 2 KT, 3 LGU+, 5-7 their MVNOs. */
  mobileco?: string;
  mobileno?: string;
  ci?: string;
  di?: string;
  receivedata?: string;
}

/** The result's bytes are EUC-KR (the guide; its samples decode them so); a name is also given as UTF-8 URL-encoded. */
export function readNiceResult(plain: Buffer): NiceResult {
  const parsed = JSON.parse(new TextDecoder('euc-kr').decode(plain)) as Record<string, unknown>;
  if (typeof parsed.resultcode !== 'string' || typeof parsed.requestno !== 'string')
    throw new Error('the result has no resultcode or requestno');
  const strings = Object.fromEntries(
    Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return strings as unknown as NiceResult;
}

/** What one verification needs to read its result, kept until the browser returns. */
export interface NiceWindow {
  /** NICE's window, where the app's browser posts `fields`. */
  url: string;
  fields: { m: 'service'; token_version_id: string; enc_data: string; integrity_value: string };
  siteCode: string;
  tokenVersionId: string;
  /** base64(SHA-256(...)) of the keys (sealed where it is kept). */
  keySeed: { reqDtim: string; reqNo: string; tokenVal: string };
  /** When the crypto token stops being valid (its period). */
  expiresAt: Date;
}

export interface NiceOptions {
  /** The API gateway, https://svc.niceapi.co.kr:22001. */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The product code of 본인확인 (통합형), 2101979031 in NICE's samples. */
  productId: string;
  /** The standard window: https://nice.checkplus.co.kr/CheckPlusSafeModel/service.cb. */
  windowUrl: string;
  timeoutMs: number;
  http?: Omit<ProviderHttpOptions, 'baseUrl' | 'timeoutMs' | 'headers'>;
  now?: () => Date;
}

/** NICE's API client: the institution token (once), a crypto token and an encrypted request per verification. */
export class NiceIdentityClient {
  private accessToken?: Promise<string>;
  private readonly now: () => Date;

  constructor(private readonly options: NiceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  private http(headers: Record<string, string>): ProviderHttpOptions {
    return { ...this.options.http, baseUrl: this.options.baseUrl, timeoutMs: this.options.timeoutMs, headers };
  }

  /** The institution token: asked once (valid for 50 years); a failed ask is asked again next time. */
  institutionToken(): Promise<string> {
    this.accessToken ??= this.askInstitutionToken().catch((error: unknown) => {
      this.accessToken = undefined;
      throw error;
    });
    return this.accessToken;
  }

  private async askInstitutionToken(): Promise<string> {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    const { status, body } = await requestProvider<unknown>(
      this.http({ authorization: `Basic ${basic}` }),
      'POST',
      '/digital/niceid/oauth/oauth/token',
      new URLSearchParams({ grant_type: 'client_credentials', scope: 'default' }),
    );
    const answer = expectAnswer(InstitutionTokenAnswer, body, 'the institution token');
    if (status !== 200 || answer.dataHeader.GW_RSLT_CD !== GATEWAY_OK || !answer.dataBody)
      throw new ProviderUnavailable(
        `NICE refused the institution token: ${answer.dataHeader.GW_RSLT_CD} ${answer.dataHeader.GW_RSLT_MSG ?? ''}`,
      );
    return answer.dataBody.access_token;
  }

  /**
   * A verification's window: a crypto token for it, and the request encrypted under its keys. `requestNo` is ours
   * (at most 30 characters) and comes back in the result.
   */
  async openWindow(requestNo: string, returnUrl: string): Promise<NiceWindow> {
    const at = this.now();
    const reqDtim = niceDateTime(at);
    const reqNo = requestNo;
    const token = await this.institutionToken();
    const bearer = Buffer.from(`${token}:${Math.floor(at.getTime() / 1000)}:${this.options.clientId}`).toString(
      'base64',
    );
    const { body } = await requestProvider<unknown>(
      this.http({
        authorization: `bearer ${bearer}`,
        client_id: this.options.clientId,
        ProductID: this.options.productId,
      }),
      'POST',
      '/digital/niceid/api/v1.0/common/crypto/token',
      { dataHeader: { CNTY_CD: 'ko' }, dataBody: { req_dtim: reqDtim, req_no: reqNo, enc_mode: '1' } },
    );
    const answer = expectAnswer(CryptoTokenAnswer, body, 'the crypto token');
    const data = answer.dataBody;
    if (answer.dataHeader.GW_RSLT_CD !== GATEWAY_OK || !data || data.rsp_cd !== 'P000' || data.result_cd !== '0000') {
      // The token may have been revoked: the next verification asks for a new one.
      if (answer.dataHeader.GW_RSLT_CD === '1800') this.accessToken = undefined;
      throw new ProviderUnavailable(
        `NICE refused the crypto token: ${answer.dataHeader.GW_RSLT_CD}/${data?.rsp_cd ?? '-'}/${data?.result_cd ?? '-'}`,
      );
    }
    if (!data.site_code || !data.token_version_id || !data.token_val)
      throw new ProviderUnavailable('NICE issued a crypto token without its site code, version or value');
    const keys = niceKeys(reqDtim, reqNo, data.token_val);
    const request: NiceRequest = {
      requestno: requestNo,
      returnurl: returnUrl,
      sitecode: data.site_code,
      methodtype: 'get',
    };
    const encData = niceEncrypt(keys, Buffer.from(JSON.stringify(request), 'utf8'));
    const period = Number(data.period ?? 3600);
    return {
      url: this.options.windowUrl,
      fields: {
        m: 'service',
        token_version_id: data.token_version_id,
        enc_data: encData,
        integrity_value: niceIntegrity(keys, encData),
      },
      siteCode: data.site_code,
      tokenVersionId: data.token_version_id,
      keySeed: { reqDtim, reqNo, tokenVal: data.token_val },
      expiresAt: new Date(at.getTime() + (Number.isFinite(period) && period > 0 ? period : 3600) * 1000),
    };
  }
}

/** The browser's return, checked and decrypted: the integrity value first, then the result's own request number. */
export function openNiceReturn(
  keys: NiceKeys,
  ret: { enc_data: string; integrity_value: string },
): NiceResult | undefined {
  if (!niceIntegrityHolds(keys, ret.enc_data, ret.integrity_value)) return undefined;
  try {
    return readNiceResult(niceDecrypt(keys, ret.enc_data));
  } catch {
    return undefined;
  }
}
