import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { openBankingRouter, type AccountView, type TransferRequestView } from '../../sandbox/open-banking';

/**
 * The open banking stand-in (sandbox/open-banking.ts) started in the test's own process and called over real HTTP, as
 * the bank adapter meets it: the institution's constants, the gateway's clock, the sandbox's people and accounts,
 * OAuth as a person's browser and the adapter do it, and the calls the adapter makes.
 */
export const INSTITUTION_CODE = 'M202300001';
export const CLIENT_ID = 'wallet-client-id';
export const CLIENT_SECRET = 'wallet-client-secret';
export const PASS_PHRASE = 'NONE';
export const CONTRACT = { bankCode: '004', accountNo: '99900000000001', holder: '(주)월렛' };
export const CALLBACK = 'http://127.0.0.1:3000/api/v1/bank/open-banking/callback';

export interface Holder {
  name: string;
  birthDate: string; // YYYY-MM-DD
  bankCode: string;
  accountNo: string;
}

/** The whole answer of a call the centre refused before any bank: the envelope and nothing else. */
export const refusal = (rspCode: string, rspMessage: string) => ({
  api_tran_id: expect.any(String),
  api_tran_dtm: expect.stringMatching(/^\d{17}$/),
  rsp_code: rspCode,
  rsp_message: rspMessage,
});
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface OpenBankingHarnessOptions {
  /** The first seven digits of the account numbers `openAccount` makes (six digits of a counter follow). */
  accountPrefix: string;
  /**
   * Settings put back after each test, besides `inDoubt: { times: 0 }` and `nameMismatch: '815'`, which always are.
   */
  resetSettings?: Record<string, unknown>;
  /** Settle every transfer still landing or in doubt after each test, and before the server stops. */
  settle?: boolean;
  /** What a deposit writes on the two statements, and its transfer_purpose, unless a test says otherwise. */
  depositTexts?: { wdPrintContent: string; printContent: string; transferPurpose: string };
}

/**
 * Registers the hooks that start the stand-in before the file's tests and stop it after them, and that put its clock
 * and settings back after each test; returns the helpers that call it.
 */
export function openBankingHarness({
  accountPrefix,
  resetSettings = {},
  settle = false,
  depositTexts = { wdPrintContent: '계좌확인', printContent: '월렛 123456', transferPurpose: 'AU' },
}: OpenBankingHarnessOptions) {
  let server: Server;
  let base: string;
  /** The gateway's clock: the system's, moved by `setClock` for Korean days and months and expiry rules. */
  let clockOffsetMs = 0;
  const setClock = (iso: string) => {
    clockOffsetMs = Date.parse(iso) - Date.now();
  };

  beforeAll(async () => {
    const koa = new Koa();
    koa.use(bodyParser({ enableTypes: ['json', 'form'] }));
    const router = openBankingRouter({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      institutionCode: INSTITUTION_CODE,
      contractAccount: CONTRACT,
      depositPassPhrase: PASS_PHRASE,
      now: () => new Date(Date.now() + clockOffsetMs),
    });
    koa.use(router.routes()).use(router.allowedMethods());
    server = koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kftc`;
  });
  afterAll(async () => {
    if (settle) await post('/_transfers/settle', {}); // nothing left landing or in doubt
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(async () => {
    clockOffsetMs = 0;
    if (settle) await post('/_transfers/settle', {});
    const reset = await settings({ inDoubt: { times: 0 }, nameMismatch: '815', ...resetSettings });
    expect(reset.status).toBe(200);
  });

  // --- HTTP
  const read = async (response: Response) => {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
    };
  };
  const get = async (path: string, token?: string) =>
    read(await fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }));
  const post = async (path: string, json: unknown, token?: string, signal?: AbortSignal) =>
    read(
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=UTF-8',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(json),
        signal,
      }),
    );
  const postForm = async (path: string, form: Record<string, string>) =>
    read(await fetch(`${base}${path}`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' }));
  const put = async (path: string, json: unknown) =>
    read(
      await fetch(`${base}${path}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(json),
      }),
    );
  const settings = (json: unknown) => put('/_settings', json);

  // --- the sandbox's people and accounts
  let accountSeq = 0;
  async function openAccount(name: string, birthDate: string, balance: number, bankCode = '088'): Promise<Holder> {
    const accountNo = `${accountPrefix}${String(accountSeq++).padStart(6, '0')}`;
    const opened = await post('/_accounts', { bankCode, accountNo, holder: name, birthDate, balance });
    expect(opened.status).toBe(201);
    return { name, birthDate, bankCode, accountNo };
  }
  const accountOf = async (h: Pick<Holder, 'bankCode' | 'accountNo'>): Promise<AccountView> =>
    (await get(`/_accounts/${h.bankCode}/${h.accountNo}`)).body;
  const contract = async (): Promise<AccountView> => (await get('/_contract-account')).body;

  let tranSeq = 0;
  /** Our institution code, U (made by the institution) and 9 upper-case letters or digits. */
  const bankTranId = () => `${INSTITUTION_CODE}U${(tranSeq++).toString(36).toUpperCase().padStart(9, '0')}`;
  /** yyyyMMdd in Korean time on the gateway's clock, computed apart from the emulator's own formatting. */
  const koreanDate = (at = new Date(Date.now() + clockOffsetMs)) =>
    new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Seoul', year: 'numeric', month: '2-digit', day: '2-digit' })
      .format(at)
      .replaceAll('-', '');
  /** yyyyMMddHHmmss on the gateway's Korean day. */
  const tranDtime = () => `${koreanDate()}101921`;

  // --- OAuth as the adapter and a person's browser do it
  const authorizeQuery = (state: string) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: CALLBACK,
      scope: 'login inquiry transfer',
      state,
      auth_type: '0',
    }).toString();
  const hiddenFields = (html: string) =>
    Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [
        name!,
        value!.replaceAll('&amp;', '&'),
      ]),
    );
  /** The person opens the consent screen, types who they are and which account, and agrees; the redirect back. */
  async function consent(holder: Holder, state = randomBytes(16).toString('hex')) {
    const page = await get(`/oauth/2.0/authorize?${authorizeQuery(state)}`);
    expect(page.status).toBe(200);
    const typed = {
      name: holder.name,
      birth_date: holder.birthDate.replaceAll('-', ''),
      bank_code: holder.bankCode,
      account_num: holder.accountNo,
    };
    const answer = await postForm('/oauth/2.0/authorize', { ...hiddenFields(page.text), ...typed, action: 'approve' });
    return { answer, state, location: new URL(answer.headers.get('location') ?? 'about:blank') };
  }
  const tokenRequest = (form: Record<string, string>) => postForm('/oauth/2.0/token', form);
  async function userToken(holder: Holder) {
    const { location } = await consent(holder);
    const issued = await tokenRequest({
      code: location.searchParams.get('code')!,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: CALLBACK,
      grant_type: 'authorization_code',
    });
    expect(issued.status).toBe(200);
    return issued.body as { access_token: string; refresh_token: string; user_seq_no: string };
  }
  async function institutionToken(): Promise<string> {
    const issued = await tokenRequest({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'oob',
      grant_type: 'client_credentials',
    });
    expect(issued.status).toBe(200);
    return issued.body.access_token;
  }
  const fintechUseNum = async (token: { access_token: string; user_seq_no: string }, accountNo: string) => {
    const me = await get(`/v2.0/user/me?user_seq_no=${token.user_seq_no}`, token.access_token);
    const masked = `${accountNo.slice(0, -3)}***`;
    return (me.body.res_list as { fintech_use_num: string; account_num_masked: string }[]).find(
      (a) => a.account_num_masked === masked,
    )!.fintech_use_num;
  };
  /** The holder's user token and the fintech_use_num of their account: what a withdrawal from it needs. */
  async function userAccount(holder: Holder) {
    const token = await userToken(holder);
    return { accessToken: token.access_token, fintech: await fintechUseNum(token, holder.accountNo) };
  }

  // --- the calls the adapter makes
  const withdraw = (token: string, fields: Record<string, unknown>) =>
    post(
      '/v2.0/transfer/withdraw/fin_num',
      {
        bank_tran_id: bankTranId(),
        cntr_account_type: 'N',
        cntr_account_num: CONTRACT.accountNo,
        dps_print_content: '월렛충전',
        wd_print_content: '월렛충전',
        tran_dtime: tranDtime(),
        req_client_name: '홍길동',
        req_client_num: 'WALLETUSER0001',
        transfer_purpose: 'RC',
        ...fields,
      },
      token,
    );
  const depositBody = (to: Holder, fields: Record<string, unknown> = {}, item: Record<string, unknown> = {}) => ({
    cntr_account_type: 'N',
    cntr_account_num: CONTRACT.accountNo,
    wd_pass_phrase: PASS_PHRASE,
    wd_print_content: depositTexts.wdPrintContent,
    name_check_option: 'on',
    tran_dtime: tranDtime(),
    req_cnt: '1',
    req_list: [
      {
        tran_no: '1',
        bank_tran_id: bankTranId(),
        bank_code_std: to.bankCode,
        account_num: to.accountNo,
        account_holder_name: to.name,
        print_content: depositTexts.printContent,
        tran_amt: '1',
        req_client_name: to.name,
        req_client_bank_code: to.bankCode,
        req_client_account_num: to.accountNo,
        req_client_num: 'WALLETUSER0001',
        transfer_purpose: depositTexts.transferPurpose,
        ...item,
      },
    ],
    ...fields,
  });
  const deposit = (
    token: string,
    to: Holder,
    fields: Record<string, unknown> = {},
    item: Record<string, unknown> = {},
  ) => post('/v2.0/transfer/deposit/acnt_num', depositBody(to, fields, item), token);
  const transferResult = (token: string, checkType: '1' | '2', items: { id: string; date: string; amount: string }[]) =>
    post(
      '/v2.0/transfer/result',
      {
        check_type: checkType,
        tran_dtime: tranDtime(),
        req_cnt: String(items.length),
        req_list: items.map((item, i) => ({
          tran_no: String(i + 1),
          org_bank_tran_id: item.id,
          org_bank_tran_date: item.date,
          org_tran_amt: item.amount,
        })),
      },
      token,
    );
  const transfersOf = async (id: string): Promise<TransferRequestView[]> =>
    ((await get('/_transfers')).body as TransferRequestView[]).filter((t) => t.bankTranId === id);

  return {
    /** The stand-in's address, `http://127.0.0.1:<port>/kftc`, once the server has started. */
    get base() {
      return base;
    },
    setClock,
    get,
    post,
    postForm,
    put,
    settings,
    openAccount,
    accountOf,
    contract,
    bankTranId,
    koreanDate,
    tranDtime,
    authorizeQuery,
    hiddenFields,
    consent,
    tokenRequest,
    userToken,
    institutionToken,
    fintechUseNum,
    userAccount,
    withdraw,
    depositBody,
    deposit,
    transferResult,
    transfersOf,
  };
}
