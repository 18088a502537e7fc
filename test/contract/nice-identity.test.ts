import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import iconv from 'iconv-lite';
import { NiceIdentityClient, openNiceReturn, niceKeys } from '../../integrations/identity-nice';
import { passResultOf } from '../../api/registration/identity-windows';
import { ProviderUnavailable } from '../../integrations/provider-http';

/**
 * The NICE adapter against NICE's published protocol (API_본인확인(통합형)개발가이드, as its samples implement it;
 * docs/providers.md): the requests it sends as the guide writes them, its answers as the guide shows them, and the
 * cryptography checked with another implementation (the openssl command: SHA-256, AES-128-CBC, HMAC-SHA256) rather
 * than with our own code.
 */
const CLIENT_ID = '1a2b3c4d-0000-4000-8000-000000000001';
const CLIENT_SECRET = 'nice-client-secret';
const ACCESS_TOKEN = '8cd4ea7f-7a6b-4a46-9bd6-1f3b1d0f4d4e';
const TOKEN_VAL = 'hUQQeSiH7lJAZ0n2KkfS0Q==';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const openssl = (args: string[], input: Buffer | string) => execFileSync('openssl', args, { input });

describe('NICE 본인확인 (standard window): the adapter against the published protocol', () => {
  let server: Server;
  let baseUrl: string;
  const seen: Seen[] = [];
  /** The gateway's next answers by path (the guide's shapes); a test may change them. */
  let answers: Record<string, { status: number; body: unknown }>;
  const published = () => ({
    '/digital/niceid/oauth/oauth/token': {
      status: 200,
      body: {
        dataHeader: { GW_RSLT_CD: '1200', GW_RSLT_MSG: '오류 없음' },
        dataBody: { access_token: ACCESS_TOKEN, token_type: 'bearer', expires_in: 1.57698305e9, scope: 'default' },
      },
    },
    '/digital/niceid/api/v1.0/common/crypto/token': {
      status: 200,
      body: {
        dataHeader: { GW_RSLT_CD: '1200', GW_RSLT_MSG: '오류 없음' },
        dataBody: {
          rsp_cd: 'P000',
          result_cd: '0000',
          site_code: 'BV123456',
          token_version_id: '2026120312000012345678',
          token_val: TOKEN_VAL,
          period: 3600,
        },
      },
    },
  });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        seen.push({ method: req.method!, path: req.url!, headers: req.headers, body });
        const answer = answers[req.url!] ?? { status: 404, body: {} };
        res.writeHead(answer.status, { 'content-type': 'application/json;charset=utf-8' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
    answers = published();
  });
  const client = () =>
    new NiceIdentityClient({
      baseUrl,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      productId: '2101979031',
      windowUrl: 'https://nice.checkplus.co.kr/CheckPlusSafeModel/service.cb',
      timeoutMs: 5000,
    });

  it('asks the institution token once, as the guide writes it: Basic client_id:client_secret, a form body', async () => {
    const nice = client();
    await nice.openWindow('nice0001', 'https://wallet.example/v1/auth/pass/nice/return');
    await nice.openWindow('nice0002', 'https://wallet.example/v1/auth/pass/nice/return');
    const tokens = seen.filter((s) => s.path === '/digital/niceid/oauth/oauth/token');
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.method).toBe('POST');
    expect(tokens[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(tokens[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
    );
    expect(Object.fromEntries(new URLSearchParams(tokens[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      scope: 'default',
    });
  });

  it("asks a crypto token with bearer base64(access_token:unix seconds:client_id), the ProductID, and the guide's body", async () => {
    const before = Math.floor(Date.now() / 1000);
    await client().openWindow('nice0003', 'https://wallet.example/r');
    const crypto = seen.find((s) => s.path === '/digital/niceid/api/v1.0/common/crypto/token')!;
    expect(crypto.headers['content-type']).toBe('application/json');
    expect(crypto.headers.productid).toBe('2101979031');
    const [scheme, value] = crypto.headers.authorization!.split(' ');
    expect(scheme).toBe('bearer');
    const [token, seconds, clientId] = Buffer.from(value!, 'base64').toString('utf8').split(':');
    expect([token, clientId]).toEqual([ACCESS_TOKEN, CLIENT_ID]);
    expect(Number(seconds)).toBeGreaterThanOrEqual(before);
    expect(Number(seconds)).toBeLessThanOrEqual(before + 5);
    const body = JSON.parse(crypto.body) as { dataHeader: unknown; dataBody: Record<string, string> };
    expect(body.dataHeader).toEqual({ CNTY_CD: 'ko' });
    expect(body.dataBody).toEqual({ req_dtim: expect.stringMatching(/^\d{14}$/), req_no: 'nice0003', enc_mode: '1' });
  });

  it("encrypts the request as openssl does under the guide's keys (SHA-256 of req_dtim+req_no+token_val), with its HMAC", async () => {
    const window = await client().openWindow('nice0004', 'https://wallet.example/v1/auth/pass/nice/return');
    const { req_dtim: reqDtim } = (
      JSON.parse(seen.find((s) => s.path.endsWith('/crypto/token'))!.body) as { dataBody: Record<string, string> }
    ).dataBody;
    // The keys, by openssl: base64 of the SHA-256 digest; key = its first 16 characters, iv = its last 16, hmac = 32.
    const seed = openssl(['dgst', '-sha256', '-binary'], `${reqDtim}nice0004${TOKEN_VAL}`).toString('base64');
    const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');
    const plain = openssl(
      ['enc', '-d', '-aes-128-cbc', '-K', hex(seed.slice(0, 16)), '-iv', hex(seed.slice(-16)), '-a', '-A'],
      window.fields.enc_data,
    );
    expect(JSON.parse(plain.toString('utf8'))).toEqual({
      requestno: 'nice0004',
      returnurl: 'https://wallet.example/v1/auth/pass/nice/return',
      sitecode: 'BV123456',
      methodtype: 'get',
    });
    const mac = openssl(['dgst', '-sha256', '-binary', '-hmac', seed.slice(0, 32)], window.fields.enc_data);
    expect(window.fields.integrity_value).toBe(mac.toString('base64'));
    expect(window).toMatchObject({
      url: 'https://nice.checkplus.co.kr/CheckPlusSafeModel/service.cb',
      fields: { m: 'service', token_version_id: '2026120312000012345678' },
      siteCode: 'BV123456',
    });
  });

  it("opens a result openssl encrypted in EUC-KR, as NICE returns it, and reads it as the callback's fields", () => {
    const reqDtim = '20261203120000';
    const seed = openssl(['dgst', '-sha256', '-binary'], `${reqDtim}nice0005${TOKEN_VAL}`).toString('base64');
    const hex = (text: string) => Buffer.from(text, 'latin1').toString('hex');
    const result = {
      resultcode: '0000',
      requestno: 'nice0005',
      enctime: '20261203120105',
      sitecode: 'BV123456',
      responseno: 'NICE1234567890',
      authtype: 'M',
      name: '홍길동',
      utf8_name: encodeURIComponent('홍길동'),
      birthdate: '19900115',
      gender: '1',
      nationalinfo: '0',
      mobileco: '1',
      mobileno: '01012345678',
      ci: 'A'.repeat(88),
      di: 'B'.repeat(64),
    };
    const encData = openssl(
      ['enc', '-aes-128-cbc', '-K', hex(seed.slice(0, 16)), '-iv', hex(seed.slice(-16)), '-a', '-A'],
      iconv.encode(JSON.stringify(result), 'euc-kr'),
    ).toString('utf8');
    const integrity = openssl(['dgst', '-sha256', '-binary', '-hmac', seed.slice(0, 32)], encData).toString('base64');
    const keys = niceKeys(reqDtim, 'nice0005', TOKEN_VAL);
    const opened = openNiceReturn(keys, { enc_data: encData, integrity_value: integrity })!;
    expect(opened).toMatchObject({ name: '홍길동', birthdate: '19900115', ci: 'A'.repeat(88) });
    expect(passResultOf(opened)).toEqual({
      passRequestId: 'nice0005',
      success: true,
      ci: 'A'.repeat(88),
      di: 'B'.repeat(64),
      name: '홍길동',
      birthDate: '1990-01-15',
      gender: 'M',
      nationality: 'KR',
      phone: '01012345678',
    });
    // A foreigner (nationalinfo 1) has no country in NICE's result; a failure carries nothing but its request number.
    expect(passResultOf({ ...opened, nationalinfo: '1', gender: '0' })).toMatchObject({
      nationality: undefined,
      gender: 'F',
    });
    expect(passResultOf({ ...opened, resultcode: '0001' })).toEqual({ passRequestId: 'nice0005', success: false });
    // One character of enc_data changed, or an integrity value of another key: nothing opens.
    expect(openNiceReturn(keys, { enc_data: `B${encData.slice(1)}`, integrity_value: integrity })).toBeUndefined();
    expect(
      openNiceReturn(niceKeys(reqDtim, 'nice0006', TOKEN_VAL), { enc_data: encData, integrity_value: integrity }),
    ).toBeUndefined();
  });

  it("refuses the gateway's and the crypto token's published failure codes, asking the institution token again after 1800", async () => {
    const nice = client();
    answers['/digital/niceid/api/v1.0/common/crypto/token'] = {
      status: 200,
      body: { dataHeader: { GW_RSLT_CD: '1800', GW_RSLT_MSG: '잘못된 토큰' } },
    };
    await expect(nice.openWindow('nice0007', 'https://wallet.example/r')).rejects.toThrow(ProviderUnavailable);
    answers = published();
    answers['/digital/niceid/api/v1.0/common/crypto/token'] = {
      status: 200,
      body: { dataHeader: { GW_RSLT_CD: '1200' }, dataBody: { rsp_cd: 'EAPI2500', res_msg: '맵핑정보 없음' } },
    };
    await expect(nice.openWindow('nice0008', 'https://wallet.example/r')).rejects.toThrow(/EAPI2500/);
    answers['/digital/niceid/api/v1.0/common/crypto/token'] = {
      status: 200,
      body: { dataHeader: { GW_RSLT_CD: '1200' }, dataBody: { rsp_cd: 'P000', result_cd: '0001' } },
    };
    await expect(nice.openWindow('nice0009', 'https://wallet.example/r')).rejects.toThrow(/0001/);
    // The token was asked again after the 1800, once.
    expect(seen.filter((s) => s.path.endsWith('/oauth/token'))).toHaveLength(2);
    answers['/digital/niceid/oauth/oauth/token'] = { status: 401, body: { dataHeader: { GW_RSLT_CD: '1801' } } };
    await expect(client().openWindow('nice0010', 'https://wallet.example/r')).rejects.toThrow(/1801/);
    answers['/digital/niceid/oauth/oauth/token'] = { status: 200, body: { unexpected: true } };
    await expect(client().openWindow('nice0011', 'https://wallet.example/r')).rejects.toThrow(/institution token/);
  });
});
