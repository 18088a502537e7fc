import { randomBytes } from 'node:crypto';
import { type TransferRequestView } from '../../sandbox/open-banking';
import {
  CALLBACK,
  CLIENT_ID,
  CLIENT_SECRET,
  INSTITUTION_CODE,
  openBankingHarness,
  type Holder,
} from '../helpers/open-banking-harness';

/**
 * The open banking stand-in over real HTTP, as the bank adapter meets it: the consent screen and OAuth, user/me,
 * real-name inquiry, withdrawals, deposits, transfer results, and the gateway's in-doubt answers.
 */
const harness = openBankingHarness({ accountPrefix: '1101230', resetSettings: { reportCode: null, malformed: false } });
const {
  setClock,
  get,
  post,
  postForm,
  put,
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
  withdraw,
  deposit,
  transferResult,
  transfersOf,
} = harness;

const realName = (token: string, fields: Record<string, unknown>) =>
  post(
    '/v2.0/inquiry/real_name',
    { bank_tran_id: bankTranId(), account_holder_info_type: ' ', tran_dtime: tranDtime(), ...fields },
    token,
  );

describe('the OAuth screens and tokens', () => {
  it('refuses an authorize request from an unknown client, or not asking for a code, with a 400 page', async () => {
    const state = randomBytes(16).toString('hex');
    const unknown = await get(`/oauth/2.0/authorize?${authorizeQuery(state).replace(CLIENT_ID, 'someone-else')}`);
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    const token = await get(
      `/oauth/2.0/authorize?${authorizeQuery(state).replace('response_type=code', 'response_type=token')}`,
    );
    expect(token.status).toBe(400);
  });

  it('redirects back with a code, the scope and the very same state once the holder agrees', async () => {
    const holder = await openAccount('홍길동', '1988-01-01', 0);
    const { answer, state, location } = await consent(holder);
    expect(answer.status).toBe(302);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('code')).toMatch(/^\S{20,}$/);
    expect(location.searchParams.get('scope')).toBe('login inquiry transfer');
    expect(answer.headers.get('location')).toContain('scope=login%20inquiry%20transfer');
  });

  it('shows the form again for a name, birth date or account that does not match, and redirects a refusal with access_denied', async () => {
    const holder = await openAccount('김영희', '1990-05-05', 0);
    const wrongBirth = await consent({ ...holder, birthDate: '1990-05-06' });
    expect(wrongBirth.answer.status).toBe(200);
    expect(wrongBirth.answer.text).toContain('일치하는 계좌가 없습니다');
    expect(wrongBirth.answer.text).toContain(`value="${wrongBirth.state}"`);
    const page = await get(`/oauth/2.0/authorize?${authorizeQuery('d'.repeat(32))}`);
    const denied = await postForm('/oauth/2.0/authorize', { ...hiddenFields(page.text), action: 'deny' });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('d'.repeat(32));
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('exchanges a code once, for a 90-day user token of the person, and lists their registered accounts in user/me', async () => {
    const first = await openAccount('이순신', '1975-04-28', 0, '004');
    const second = await openAccount('이순신', '1975-04-28', 0, '090');
    const { location } = await consent(first);
    const exchange = {
      code: location.searchParams.get('code')!,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      redirect_uri: CALLBACK,
      grant_type: 'authorization_code',
    };
    const issued = await tokenRequest(exchange);
    expect(issued.status).toBe(200);
    expect(issued.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7776000,
      refresh_token: expect.any(String),
      scope: 'login inquiry transfer',
      user_seq_no: expect.stringMatching(/^\d{10}$/),
    });
    const again = await tokenRequest(exchange);
    expect(again.status).toBe(400);
    expect(again.body.rsp_code).toBe('O0004');

    // The same person registering another account keeps their user_seq_no; registering one again keeps its number.
    const withSecond = await userToken(second);
    expect(withSecond.user_seq_no).toBe(issued.body.user_seq_no);
    const firstNumber = await fintechUseNum(issued.body, first.accountNo);
    const againToken = await userToken(first);
    expect(await fintechUseNum(againToken, first.accountNo)).toBe(firstNumber);

    const me = await get(`/v2.0/user/me?user_seq_no=${issued.body.user_seq_no}`, issued.body.access_token);
    expect(me.status).toBe(200);
    expect(me.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(me.body).toMatchObject({
      api_tran_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      api_tran_dtm: expect.stringMatching(/^\d{17}$/),
      rsp_code: 'A0000',
      rsp_message: '',
      user_seq_no: issued.body.user_seq_no,
      user_name: '이순신',
      res_cnt: '2',
    });
    expect(me.body.api_tran_dtm.slice(0, 8)).toBe(koreanDate());
    expect(me.body.res_list[0]).toEqual({
      fintech_use_num: firstNumber,
      account_alias: 'KB국민은행',
      bank_code_std: '004',
      bank_code_sub: '0000000',
      bank_name: 'KB국민은행',
      savings_bank_name: '',
      account_num_masked: `${first.accountNo.slice(0, -3)}***`,
      account_seq: '',
      account_holder_name: '이순신',
      account_holder_type: 'P',
      inquiry_agree_yn: 'Y',
      inquiry_agree_dtime: expect.stringMatching(/^\d{14}$/),
      transfer_agree_yn: 'Y',
      transfer_agree_dtime: expect.stringMatching(/^\d{14}$/),
    });
    expect(firstNumber).toMatch(/^\d{24}$/);

    const someoneElse = await userToken(await openAccount('강감찬', '1948-12-22', 0));
    const foreign = await get(`/v2.0/user/me?user_seq_no=${issued.body.user_seq_no}`, someoneElse.access_token);
    expect(foreign.body.rsp_code).toBe('A0313');
  });

  it("skips the screens for auth_type 2 when the institution presents the person's live token, and refuses it without", async () => {
    const person = await userToken(await openAccount('정몽주', '1337-01-13', 0));
    const query = authorizeQuery('e'.repeat(32)).replace('auth_type=0', 'auth_type=2');
    const skipped = await fetch(`${harness.base}/oauth/2.0/authorize?${query}`, {
      redirect: 'manual',
      headers: { 'Kftc-Bfop-UserSeqNo': person.user_seq_no, 'Kftc-Bfop-AccessToken': person.access_token },
    });
    expect(skipped.status).toBe(302);
    const location = new URL(skipped.headers.get('location')!);
    expect(location.searchParams.get('code')).toBeTruthy();
    expect(location.searchParams.get('state')).toBe('e'.repeat(32));
    expect((await get(`/oauth/2.0/authorize?${query}`)).status).toBe(400);
  });

  it('issues the institution token (scope oob) with our institution code, to the right client secret in a form only', async () => {
    const issued = await tokenRequest({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'oob',
      grant_type: 'client_credentials',
    });
    expect(issued.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7776000,
      scope: 'oob',
      client_use_code: INSTITUTION_CODE,
    });
    const wrongSecret = await tokenRequest({
      client_id: CLIENT_ID,
      client_secret: 'x',
      scope: 'oob',
      grant_type: 'client_credentials',
    });
    expect([wrongSecret.status, wrongSecret.body.rsp_code]).toEqual([401, 'O0003']);
    const asJson = await post('/oauth/2.0/token', {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      scope: 'oob',
      grant_type: 'client_credentials',
    });
    expect([asJson.status, asJson.body.rsp_code]).toEqual([400, 'O0001']);
  });

  it('rotates refresh tokens: a new pair for the same person, the old refresh token refused', async () => {
    const holder = await openAccount('유관순', '1902-12-16', 0);
    const first = await userToken(holder);
    const refresh = (refreshToken: string) =>
      tokenRequest({
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        refresh_token: refreshToken,
        scope: 'login inquiry transfer',
        grant_type: 'refresh_token',
      });
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: 'Bearer', expires_in: 7776000, user_seq_no: first.user_seq_no });
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    const replayed = await refresh(first.refresh_token);
    expect([replayed.status, replayed.body.rsp_code]).toEqual([400, 'O0004']);
    const me = await get(`/v2.0/user/me?user_seq_no=${first.user_seq_no}`, second.body.access_token);
    expect(me.body.rsp_code).toBe('A0000');
    expect((await refresh(second.body.refresh_token)).status).toBe(200);
  });

  it('refuses v2.0 calls without a live token of the right kind with 401 O0002', async () => {
    const oob = await institutionToken();
    const person = await userToken(await openAccount('장영실', '1390-01-01', 0));
    expect((await get(`/v2.0/user/me?user_seq_no=${person.user_seq_no}`)).status).toBe(401);
    const withOob = await get(`/v2.0/user/me?user_seq_no=${person.user_seq_no}`, oob);
    expect([withOob.status, withOob.body.rsp_code]).toEqual([401, 'O0002']);
    const realNameAsUser = await realName(person.access_token, {
      bank_code_std: '088',
      account_num: '1101230000000',
      account_holder_info: '900101',
    });
    expect([realNameAsUser.status, realNameAsUser.body.rsp_code]).toEqual([401, 'O0002']);
    expect((await withdraw(oob, { fintech_use_num: '1'.repeat(24), tran_amt: '1' })).status).toBe(401);
    // 90 days later the token has expired.
    setClock(new Date(Date.now() + 7776001 * 1000).toISOString());
    expect((await get(`/v2.0/user/me?user_seq_no=${person.user_seq_no}`, person.access_token)).status).toBe(401);
  });
});

describe('inquiry/real_name', () => {
  let oob: string;
  let holder: Holder;
  beforeAll(async () => {
    oob = await institutionToken();
    holder = await openAccount('신사임당', '1504-10-29', 0, '020');
  });

  it('confirms the holder of an account by birth date (YYMMDD) or resident number, answering every field', async () => {
    const id = bankTranId();
    const answer = await realName(oob, {
      bank_tran_id: id,
      bank_code_std: '020',
      account_num: holder.accountNo,
      account_holder_info: '041029',
    });
    expect(answer.body).toEqual({
      api_tran_id: expect.any(String),
      api_tran_dtm: expect.stringMatching(/^\d{17}$/),
      rsp_code: 'A0000',
      rsp_message: '',
      bank_tran_id: id,
      bank_tran_date: koreanDate(),
      bank_code_tran: '020',
      bank_rsp_code: '000',
      bank_rsp_message: '',
      bank_code_std: '020',
      bank_code_sub: '0000000',
      bank_name: '우리은행',
      savings_bank_name: '',
      account_num: holder.accountNo,
      account_seq: '',
      account_holder_info_type: ' ',
      account_holder_info: '041029',
      account_holder_name: '신사임당',
      account_type: '1',
    });
    const byResidentNumber = await realName(oob, {
      bank_code_std: '020',
      account_num: holder.accountNo,
      account_holder_info_type: '1',
      account_holder_info: '0410292000000',
    });
    expect([byResidentNumber.body.rsp_code, byResidentNumber.body.bank_rsp_code]).toEqual(['A0000', '000']);
  });

  it('answers A0002 with the bank code 463 for another birth date and 412 for an unknown account', async () => {
    const wrongBirth = await realName(oob, {
      bank_code_std: '020',
      account_num: holder.accountNo,
      account_holder_info: '041030',
    });
    expect(wrongBirth.body).toMatchObject({ rsp_code: 'A0002', bank_rsp_code: '463', account_holder_name: '' });
    const unknown = await realName(oob, {
      bank_code_std: '020',
      account_num: '9999999999999',
      account_holder_info: '041029',
    });
    expect(unknown.body).toMatchObject({ rsp_code: 'A0002', bank_rsp_code: '412', bank_rsp_message: '해당계좌 없음' });
  });

  it('refuses a bank_tran_id used before the same Korean day (A0326), and takes it again the next day', async () => {
    setClock('2025-03-14T14:59:00.000Z'); // 23:59 in Seoul
    const id = bankTranId();
    const fields = {
      bank_tran_id: id,
      bank_code_std: '020',
      account_num: holder.accountNo,
      account_holder_info: '041029',
    };
    expect((await realName(oob, fields)).body.bank_tran_date).toBe('20250314');
    expect((await realName(oob, fields)).body.rsp_code).toBe('A0326');
    setClock('2025-03-14T15:00:30.000Z'); // 00:00 the next day in Seoul, still the 14th in UTC
    const nextDay = await realName(oob, fields);
    expect([nextDay.body.rsp_code, nextDay.body.bank_tran_date]).toEqual(['A0000', '20250315']);
  });

  it('refuses a request not in the documented format with A0004', async () => {
    const base = { bank_code_std: '020', account_num: holder.accountNo, account_holder_info: '041029' };
    const foreignId = await realName(oob, { ...base, bank_tran_id: 'F123456789U4BC34239Z' });
    const lowerCase = await realName(oob, { ...base, bank_tran_id: `${INSTITUTION_CODE}Uabc123456` });
    const missing = await realName(oob, { ...base, account_num: undefined });
    const numeric = await realName(oob, { ...base, tran_dtime: 20250314101921 });
    const tooLong = await realName(oob, { ...base, account_num: '12345678901234567' });
    for (const answer of [foreignId, lowerCase, missing, numeric, tooLong]) {
      expect([answer.status, answer.body.rsp_code]).toEqual([200, 'A0004']);
    }
    const badInfo = await realName(oob, { ...base, account_holder_info: '19880101' });
    expect(badInfo.body.rsp_code).toBe('A0321');
  });
});

describe('transfers', () => {
  let oob: string;
  let payer: Holder;
  let person: Awaited<ReturnType<typeof userToken>>;
  let fintech: string;
  beforeAll(async () => {
    oob = await institutionToken();
    payer = await openAccount('정약용', '1762-08-05', 50_000);
    person = await userToken(payer);
    fintech = await fintechUseNum(person, payer.accountNo);
  });

  it("withdraws from the person's account into the contract account, answering every field", async () => {
    const before = await contract();
    const id = bankTranId();
    const answer = await withdraw(person.access_token, {
      bank_tran_id: id,
      fintech_use_num: fintech,
      tran_amt: '10000',
      req_client_fintech_use_num: fintech,
    });
    expect(answer.body).toEqual({
      api_tran_id: expect.any(String),
      api_tran_dtm: expect.stringMatching(/^\d{17}$/),
      rsp_code: 'A0000',
      rsp_message: '',
      dps_bank_code_std: '004',
      dps_bank_code_sub: '0000000',
      dps_bank_name: 'KB국민은행',
      dps_account_num_masked: '99900000000***',
      dps_print_content: '월렛충전',
      dps_account_holder_name: '(주)월렛',
      bank_tran_id: id,
      bank_tran_date: koreanDate(),
      bank_code_tran: '088',
      bank_rsp_code: '000',
      bank_rsp_message: '',
      fintech_use_num: fintech,
      account_alias: '신한은행',
      bank_code_std: '088',
      bank_code_sub: '0000000',
      bank_name: '신한은행',
      savings_bank_name: '',
      account_num_masked: `${payer.accountNo.slice(0, -3)}***`,
      print_content: '월렛충전',
      account_holder_name: '정약용',
      tran_amt: '10000',
      wd_limit_remain_amt: '9990000',
    });
    const account = await accountOf(payer);
    expect(account.balance).toBe(40_000);
    expect(account.transactions.at(-1)).toMatchObject({
      amount: -10_000,
      balanceAfter: 40_000,
      printContent: '월렛충전',
      bankTranId: id,
    });
    expect((await contract()).balance).toBe(before.balance + 10_000);
  });

  it('moves nothing when the account lacks the money (A0002, bank 453)', async () => {
    const before = (await accountOf(payer)).balance;
    const answer = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: String(before + 1),
      req_client_fintech_use_num: fintech,
    });
    expect(answer.body).toMatchObject({ rsp_code: 'A0002', bank_rsp_code: '453', bank_rsp_message: '예금잔액 부족' });
    expect((await accountOf(payer)).balance).toBe(before);
  });

  it("refuses another person's fintech_use_num (A0304), another contract account (A0322), a customer named twice or an amount as a number (A0004)", async () => {
    const otherAccount = await openAccount('허준', '1539-01-01', 50_000);
    const theirs = await fintechUseNum(await userToken(otherAccount), otherAccount.accountNo);
    const foreign = await withdraw(person.access_token, {
      fintech_use_num: theirs,
      tran_amt: '100',
      req_client_fintech_use_num: fintech,
    });
    expect(foreign.body.rsp_code).toBe('A0304');
    const notOurs = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: '100',
      req_client_fintech_use_num: fintech,
      cntr_account_num: '100000000001',
    });
    expect(notOurs.body.rsp_code).toBe('A0322');
    const both = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: '100',
      req_client_fintech_use_num: fintech,
      req_client_bank_code: payer.bankCode,
      req_client_account_num: payer.accountNo,
    });
    expect(both.body.rsp_code).toBe('A0004');
    const numberAmount = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: 100,
      req_client_fintech_use_num: fintech,
    });
    expect(numberAmount.body.rsp_code).toBe('A0004');
  });

  it("deposits from the contract account, the target's statement showing print_content and ours wd_print_content", async () => {
    const target = await openAccount('김구', '1876-08-29', 0, '092');
    const id = bankTranId();
    const answer = await deposit(oob, target, {}, { bank_tran_id: id });
    expect(answer.body).toMatchObject({
      rsp_code: 'A0000',
      wd_bank_code_std: '004',
      wd_bank_name: 'KB국민은행',
      wd_account_num_masked: '99900000000***',
      wd_print_content: '계좌확인',
      wd_account_holder_name: '(주)월렛',
      res_cnt: '1',
    });
    expect(answer.body.res_list[0]).toEqual({
      tran_no: '1',
      bank_tran_id: id,
      bank_tran_date: koreanDate(),
      bank_code_tran: '092',
      bank_rsp_code: '000',
      bank_rsp_message: '',
      bank_code_std: '092',
      bank_code_sub: '0000000',
      bank_name: '토스뱅크',
      savings_bank_name: '',
      account_num: target.accountNo,
      account_num_masked: `${target.accountNo.slice(0, -3)}***`,
      print_content: '월렛 123456',
      account_holder_name: '김구',
      tran_amt: '1',
      cms_num: '',
    });
    const account = await accountOf(target);
    expect(account.balance).toBe(1);
    expect(account.transactions).toEqual([
      expect.objectContaining({ amount: 1, printContent: '월렛 123456', bankTranId: id }),
    ]);
    expect((await contract()).transactions.at(-1)).toMatchObject({
      amount: -1,
      printContent: '계좌확인',
      bankTranId: id,
    });
  });

  it("answers a deposit to a wrong holder name with A0009 and the item's 815, a wrong pass phrase with A0307, moving nothing", async () => {
    const target = await openAccount('안중근', '1879-09-02', 0, '081');
    const wrongName = await deposit(oob, target, {}, { account_holder_name: '안중건' });
    expect(wrongName.body.rsp_code).toBe('A0009');
    expect(wrongName.body.res_list[0]).toMatchObject({ bank_rsp_code: '815', account_holder_name: '' });
    const wrongPhrase = await deposit(oob, target, { wd_pass_phrase: 'WRONG' });
    expect(wrongPhrase.body.rsp_code).toBe('A0307');
    const nowhere = await deposit(oob, { ...target, accountNo: '5555555555555' });
    expect([nowhere.body.rsp_code, nowhere.body.res_list[0].bank_rsp_code]).toEqual(['A0009', '412']);
    const twoItems = await deposit(oob, target, { req_cnt: '2' });
    expect(twoItems.body.rsp_code).toBe('A0004');
    expect((await accountOf(target)).balance).toBe(0);
  });

  it("answers a deposit to a wrong holder name with the centre's own A0312 when set so, moving nothing", async () => {
    expect((await put('/_settings', { nameMismatch: 'A0312' })).body).toMatchObject({ nameMismatch: 'A0312' });
    const target = await openAccount('윤봉길', '1908-06-21', 0, '081');
    const id = bankTranId();
    const wrongName = await deposit(oob, target, {}, { bank_tran_id: id, account_holder_name: '윤봉걸' });
    expect(wrongName.body).toEqual({
      api_tran_id: expect.any(String),
      api_tran_dtm: expect.stringMatching(/^\d{17}$/),
      rsp_code: 'A0312',
      rsp_message: '예금주명 불일치',
    });
    expect((await accountOf(target)).balance).toBe(0);
    expect(await transfersOf(id)).toMatchObject([{ rspCode: 'A0312', bankRspCode: null, outcome: null }]);
    // The right name still goes through; only the two documented codes are taken.
    expect((await deposit(oob, target, {}, { account_holder_name: '윤봉길' })).body.rsp_code).toBe('A0000');
    expect((await put('/_settings', { nameMismatch: 'A0311' })).status).toBe(400);
  });

  it("reports a transfer's outcome by id, date and amount (transfer/result), and A0310 when nothing matches", async () => {
    const id = bankTranId();
    const withdrawn = await withdraw(person.access_token, {
      bank_tran_id: id,
      fintech_use_num: fintech,
      tran_amt: '700',
      req_client_fintech_use_num: fintech,
    });
    const date = withdrawn.body.bank_tran_date;
    const found = await transferResult(oob, '1', [{ id, date, amount: '700' }]);
    expect(found.body).toMatchObject({ rsp_code: 'A0000', res_cnt: '1' });
    expect(found.body.res_list[0]).toMatchObject({
      tran_no: '1',
      bank_tran_id: id,
      bank_tran_date: date,
      bank_code_tran: '088',
      bank_rsp_code: '000',
      wd_bank_code_std: '088',
      wd_fintech_use_num: fintech,
      wd_print_content: '월렛충전',
      wd_account_holder_name: '정약용',
      dps_bank_code_std: '004',
      dps_fintech_use_num: '',
      dps_print_content: '월렛충전',
      dps_account_holder_name: '(주)월렛',
      tran_amt: '700',
    });
    for (const wrong of [
      { id, date, amount: '701' },
      { id, date: '20000101', amount: '700' },
      { id: bankTranId(), date, amount: '700' },
    ]) {
      expect((await transferResult(oob, '1', [wrong])).body.rsp_code).toBe('A0310');
    }
    expect((await transferResult(oob, '2', [{ id, date, amount: '700' }])).body.rsp_code).toBe('A0310');
  });
});

describe("the gateway's misbehaviour", () => {
  let oob: string;
  let payer: Holder;
  let person: Awaited<ReturnType<typeof userToken>>;
  let fintech: string;
  beforeAll(async () => {
    oob = await institutionToken();
    payer = await openAccount('세종', '1397-05-15', 100_000, '011');
    person = await userToken(payer);
    fintech = await fintechUseNum(person, payer.accountNo);
  });

  it('answers A0001 for a withdrawal in doubt, reports A0001 until it settles, then its outcome, money moving once', async () => {
    await put('/_settings', { inDoubt: { times: 1, code: 'A0001', settleAfterMs: 60_000, outcome: 'completed' } });
    const id = bankTranId();
    const contractBefore = (await contract()).balance;
    const answer = await withdraw(person.access_token, {
      bank_tran_id: id,
      fintech_use_num: fintech,
      tran_amt: '30000',
      req_client_fintech_use_num: fintech,
    });
    expect(answer.body).toMatchObject({ rsp_code: 'A0001', bank_tran_id: '', bank_rsp_code: '' });
    expect((await accountOf(payer)).balance).toBe(100_000);
    const query = [{ id, date: koreanDate(), amount: '30000' }];
    expect((await transferResult(oob, '1', query)).body.rsp_code).toBe('A0001');
    // A retry under the same id is not a second withdrawal.
    const retried = await withdraw(person.access_token, {
      bank_tran_id: id,
      fintech_use_num: fintech,
      tran_amt: '30000',
      req_client_fintech_use_num: fintech,
    });
    expect(retried.body.rsp_code).toBe('A0326');

    expect((await post('/_transfers/settle', {})).status).toBe(200);
    const settled = await transferResult(oob, '1', query);
    expect(settled.body.rsp_code).toBe('A0000');
    expect(settled.body.res_list[0]).toMatchObject({ bank_rsp_code: '000', tran_amt: '30000' });
    expect((await accountOf(payer)).balance).toBe(70_000);
    expect((await contract()).balance).toBe(contractBefore + 30_000);
    expect(await transfersOf(id)).toEqual([
      {
        bankTranId: id,
        bankTranDate: koreanDate(),
        direction: 'withdraw',
        amount: 30000,
        rspCode: 'A0001',
        bankRspCode: '000',
        settled: true,
        outcome: 'completed',
      },
      {
        bankTranId: id,
        bankTranDate: koreanDate(),
        direction: 'withdraw',
        amount: 30000,
        rspCode: 'A0326',
        bankRspCode: null,
        settled: false,
        outcome: null,
      },
    ]);
  });

  it('settles a deposit in doubt as rejected after its delay: bank 499, nothing moved', async () => {
    await put('/_settings', { inDoubt: { times: 1, code: 'A0007', settleAfterMs: 50, outcome: 'rejected' } });
    const target = await openAccount('최무선', '1325-01-01', 0);
    const answer = await deposit(oob, target);
    expect(answer.body).toMatchObject({ rsp_code: 'A0007', res_cnt: '0', res_list: [] });
    const [sent] = (await get('/_transfers')).body.slice(-1) as TransferRequestView[];
    await new Promise((resolve) => setTimeout(resolve, 150));
    const result = await transferResult(oob, '2', [{ id: sent!.bankTranId, date: sent!.bankTranDate, amount: '1' }]);
    expect(result.body.res_list[0]).toMatchObject({ bank_rsp_code: '499', dps_account_holder_name: '최무선' });
    expect((await accountOf(target)).balance).toBe(0);
    expect((await transfersOf(sent!.bankTranId))[0]).toMatchObject({ settled: true, outcome: 'rejected' });
  });

  it('answers an undocumented rsp_code, or an undocumented shape, while the money moves', async () => {
    expect((await put('/_settings', { reportCode: 'A9999' })).body).toMatchObject({
      reportCode: 'A9999',
      malformed: false,
    });
    const reported = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: '1000',
      req_client_fintech_use_num: fintech,
    });
    expect([reported.body.rsp_code, reported.body.bank_rsp_code]).toEqual(['A9999', '000']);
    await put('/_settings', { reportCode: null, malformed: true });
    const balance = (await accountOf(payer)).balance;
    const malformed = await withdraw(person.access_token, {
      fintech_use_num: fintech,
      tran_amt: '1000',
      req_client_fintech_use_num: fintech,
    });
    expect(malformed.body).toEqual({ result: 'accepted' });
    expect((await accountOf(payer)).balance).toBe(balance - 1000);
    expect((await put('/_settings', { inDoubt: { code: 'A0000' } })).status).toBe(400);
  });
});
