import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import { openBankingRouter } from '../../sandbox/open-banking';
import { KftcOpenBanking, wonOnTheWire } from '../../integrations/bank/kftc';
import * as A from '../../integrations/bank/kftc-answers';
import { BankConsentRefused } from '../../integrations/bank/rail';
import { bankDate } from '../../integrations/bank/kftc-tran-ids';
import { memoryBook } from '../helpers/bank-tran-ids';
import { expectAnswer } from '../../integrations/provider-http';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, 'fixtures/kftc', name), 'utf8'));
/** A JSON value's shape: its keys, each with its value's type (strings, numbers, objects, arrays of shapes). */
const shape = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(shape)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : typeof value;

const INSTITUTION = 'M202300001';
const CONTRACT = { bankCode: '004', accountNo: '100000000001', holder: '(주)월렛' };
const PASS_PHRASE = '790d56ed6b821a69';
const PERSON = { name: '홍길동', birthDate: '1988-01-01', bankCode: '004', accountNo: '1101230000678' };

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * The open banking adapter against the sandbox's emulation of the KFTC API, over HTTP: the requests it sends (held to
 * the published examples' keys and types, fixtures/kftc/SOURCES.md), what it reads of every answer the flows handle,
 * and the in-doubt paths (A0001, A0007, A0017, an error answer, no answer): a reference is sent once, then asked about.
 */
describe('KFTC open banking adapter against the sandbox', () => {
  const seen: Seen[] = [];
  /**
   * The next answers to give instead of the emulator's, by path ending (a 503, a hang, a body), or after it processed
   * the request (`processed`: what the centre did stands, the answer is this body).
   */
  const faults: Array<{ path: string; status?: number; body?: unknown; hangMs?: number; processed?: boolean }> = [];
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ['json', 'form'] }));
  app.use(async (ctx, next) => {
    seen.push({ method: ctx.method, path: ctx.path, headers: ctx.headers, body: (ctx.request as any).body });
    const fault = faults.findIndex((f) => ctx.path.endsWith(f.path));
    if (fault >= 0) {
      const [f] = faults.splice(fault, 1);
      if (f!.hangMs) {
        await new Promise((r) => setTimeout(r, f!.hangMs));
        return next(); // processed late, after the client gave up
      }
      if (f!.processed) await next();
      ctx.status = f!.status ?? 200;
      ctx.body = f!.body ?? { error: 'injected' };
      return;
    }
    await next();
  });
  app.use(
    openBankingRouter({
      clientId: 'wallet-app',
      clientSecret: 'wallet-app-secret',
      institutionCode: INSTITUTION,
      contractAccount: CONTRACT,
      depositPassPhrase: PASS_PHRASE,
    }).routes(),
  );
  let server: Server;
  let base: string;
  let book: ReturnType<typeof memoryBook>;
  let bank: KftcOpenBanking;
  let token: string;
  let accountRef: string;
  const requester = { name: PERSON.name, memberId: 'MEMBER0000000000001' };
  const redirectUri = 'https://wallet.example/api/v1/bank/consent/callback';

  const admin = (path: string, json?: unknown) =>
    fetch(`${base}/kftc${path}`, {
      method: json ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json' },
      body: json ? JSON.stringify(json) : undefined,
    }).then((r) => r.json() as Promise<any>);
  const settings = (json: unknown) =>
    fetch(`${base}/kftc/_settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
  const adapter = (timeoutMs = 2000, notReceivedAfterMs = 3 * timeoutMs) =>
    new KftcOpenBanking({
      apiUrl: `${base}/kftc`,
      clientId: 'wallet-app',
      clientSecret: 'wallet-app-secret',
      institutionCode: INSTITUTION,
      contract: {
        accountNum: CONTRACT.accountNo,
        accountType: 'N',
        holderName: CONTRACT.holder,
        bankCode: CONTRACT.bankCode,
        depositPassPhrase: PASS_PHRASE,
      },
      transport: { timeoutMs },
      tranIds: book,
      notReceivedAfterMs,
    });
  /** The person at the consent page, as a browser posts it: the code the centre redirects back with. */
  const consentCode = async (url: string, person = PERSON): Promise<string> => {
    const form = new URLSearchParams(new URL(url).searchParams);
    for (const [k, v] of Object.entries({
      name: person.name,
      birth_date: person.birthDate.replace(/-/g, ''),
      bank_code: person.bankCode,
      account_num: person.accountNo,
      action: 'approve',
    }))
      form.set(k, v);
    const page = await fetch(url, { method: 'POST', body: form, redirect: 'manual' });
    return new URL(page.headers.get('location')!).searchParams.get('code')!;
  };
  const last = (path: string) => [...seen].reverse().find((s) => s.path.endsWith(path))!;
  const calls = (path: string) => seen.filter((s) => s.path.endsWith(path));
  const balance = async () => (await admin(`/_accounts/${PERSON.bankCode}/${PERSON.accountNo}`)).balance as number;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await admin('/_accounts', { ...PERSON, holder: PERSON.name, balance: 1_000_000 });
    book = memoryBook();
    bank = adapter();
    const grant = await bank.completeConsent({
      code: await consentCode(bank.consentUrl({ state: 'S'.repeat(32), redirectUri })),
      redirectUri,
    });
    token = grant.tokens.accessToken;
    accountRef = grant.accounts[0]!.accountRef;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });
  afterEach(async () => {
    faults.length = 0;
    await settings({
      inDoubt: { times: 0 },
      reportCode: null,
      malformed: false,
      nameMismatch: '815',
      depositLimits: { perTransferKrw: null, dailyKrw: null, monthlyKrw: null },
      duplicateCode: 'A0326',
    });
  });

  describe('consent and tokens', () => {
    it('sends the person to the authorize page with the published parameters', () => {
      const url = new URL(bank.consentUrl({ state: 'x'.repeat(32), redirectUri }));
      expect(url.pathname).toBe('/kftc/oauth/2.0/authorize');
      expect(Object.fromEntries(url.searchParams)).toEqual({
        response_type: 'code',
        client_id: 'wallet-app',
        redirect_uri: redirectUri,
        scope: 'login inquiry transfer',
        state: 'x'.repeat(32),
        auth_type: '0',
      });
    });

    it('exchanges the code with a form of the published fields, and lists the consented account with its fintech_use_num', async () => {
      const fresh = adapter();
      const grant = await fresh.completeConsent({
        code: await consentCode(fresh.consentUrl({ state: 'T'.repeat(32), redirectUri })),
        redirectUri,
      });
      const exchange = last('/oauth/2.0/token');
      expect(exchange.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      expect(Object.keys(exchange.body).sort()).toEqual(
        ['client_id', 'client_secret', 'code', 'grant_type', 'redirect_uri'].sort(),
      );
      expect(exchange.body.grant_type).toBe('authorization_code');
      expect(grant.userRef).toMatch(/^\d{10}$/);
      expect([grant.personName, grant.personCi]).toEqual([PERSON.name, expect.stringMatching(/^[A-Za-z0-9+/]{86}==$/)]);
      expect(grant.accounts).toEqual([
        {
          accountRef: expect.stringMatching(/^\d{24}$/),
          bankCode: '004',
          bankName: 'KB국민은행',
          accountNoMasked: expect.stringMatching(/^\d+\*+$/),
          holderName: PERSON.name,
          withdrawalsAgreed: true,
        },
      ]);
      expect(grant.tokens.accessExpiresAt.getTime()).toBeGreaterThan(Date.now() + 89 * 24 * 3600_000);
      expect(last('/v2.0/user/me').headers.authorization).toBe(`Bearer ${grant.tokens.accessToken}`);
    });

    it("reads the captured user/me answer: the person's name and CI, each account's fintech_use_num", () => {
      const me = expectAnswer(A.UserMe, fixture('user-me-response.json'), 'user/me');
      expect(me.user_ci).toMatch(/^[A-Za-z0-9+/]{86}==$/);
      expect([me.user_name, me.res_list![0]!.fintech_use_num, me.res_list![0]!.account_num_masked]).toEqual([
        '홍길동',
        '120211385488932395653894',
        '20230821***',
      ]);
    });

    it('reads the published token answers (a person token, the institution token)', () => {
      expect(expectAnswer(A.UserToken, fixture('user-token-response.json'), 'token').user_seq_no).toBe('1100770530');
      expect(expectAnswer(A.InstitutionToken, fixture('oob-token-response.json'), 'token').client_use_code).toBe(
        '2018003000',
      );
    });

    it('renews a consent with its refresh token once: the spent refresh token is refused after', async () => {
      const fresh = adapter();
      const grant = await fresh.completeConsent({
        code: await consentCode(fresh.consentUrl({ state: 'U'.repeat(32), redirectUri })),
        redirectUri,
      });
      const renewed = await fresh.refreshConsent(grant.tokens.refreshToken);
      expect(renewed.refreshToken).not.toBe(grant.tokens.refreshToken);
      expect(last('/oauth/2.0/token').body).toMatchObject({
        grant_type: 'refresh_token',
        scope: 'login inquiry transfer',
      });
      await expect(fresh.refreshConsent(grant.tokens.refreshToken)).rejects.toBeInstanceOf(BankConsentRefused);
    });

    it('asks for the institution token once (client credentials, scope oob) and uses it for inquiries', async () => {
      const fresh = adapter();
      const before = calls('/oauth/2.0/token').length;
      await fresh.accountHolder({ reference: 'rn-1', ...PERSON });
      await fresh.accountHolder({ reference: 'rn-2', ...PERSON });
      const asked = calls('/oauth/2.0/token').slice(before);
      expect(asked.map((c) => [c.body.grant_type, c.body.scope])).toEqual([['client_credentials', 'oob']]);
    });
  });

  describe('real-name inquiry', () => {
    it('sends the published request (strings only, the birth date as YYMMDD under type SPACE) and reads the holder', async () => {
      const answer = await bank.accountHolder({ reference: 'rn-3', ...PERSON });
      expect(answer).toEqual({ found: true, bankName: 'KB국민은행', holderName: PERSON.name });
      const sent = last('/v2.0/inquiry/real_name');
      expect(shape(sent.body)).toEqual(shape(fixture('real-name-request.json')));
      expect(sent.body).toMatchObject({
        bank_tran_id: expect.stringMatching(new RegExp(`^${INSTITUTION}U[0-9A-Z]{9}$`)),
        account_holder_info_type: ' ',
        account_holder_info: '880101',
        tran_dtime: expect.stringMatching(/^\d{14}$/),
      });
    });

    it('tells an unknown account (412) from a holder born another day (463)', async () => {
      expect(await bank.accountHolder({ reference: 'rn-4', ...PERSON, accountNo: '9999999999' })).toEqual({
        found: false,
        reason: 'no_such_account',
        code: '412',
      });
      expect(await bank.accountHolder({ reference: 'rn-5', ...PERSON, birthDate: '1990-05-05' })).toEqual({
        found: false,
        reason: 'holder_mismatch',
        code: '463',
      });
    });
  });

  describe('withdrawals', () => {
    const withdraw = (reference: string, amount = 1000n, consent: { token?: string } = { token }, via = bank) =>
      via.withdraw({
        reference,
        accountRef,
        accessToken: async () => consent.token,
        amount,
        memo: '월렛 충전',
        requester,
      });

    it("sends the published request's fields as strings, with the person's token, and reads the published answer", async () => {
      expect(await withdraw('w-1', 1500n)).toEqual({ status: 'completed', amount: 1500n });
      const sent = last('/transfer/withdraw/fin_num');
      expect(sent.headers.authorization).toBe(`Bearer ${token}`);
      // The published example names the requesting customer by bank and account number; the specification's table
      // allows req_client_fintech_use_num instead (one or the other), which is what we hold.
      const published = [...Object.keys(fixture('withdraw-request.spec-sample.json')), 'req_client_fintech_use_num'];
      for (const [key, value] of Object.entries(sent.body)) {
        expect(published).toContain(key);
        expect(typeof value).toBe('string');
      }
      expect(sent.body).toMatchObject({ tran_amt: '1500', transfer_purpose: 'RC', fintech_use_num: accountRef });
      expect(sent.body.req_client_fintech_use_num).toBe(accountRef);
      expect(sent.body.req_client_account_num).toBeUndefined(); // one or the other, never both
      // Every field of the example but the customer's account (named by fintech_use_num) and a sub-merchant (none).
      expect(Object.keys(fixture('withdraw-request.spec-sample.json')).filter((k) => !(k in sent.body))).toEqual([
        'req_client_bank_code',
        'req_client_account_num',
        'sub_frnc_name',
        'sub_frnc_num',
        'sub_frnc_business_num',
      ]);
      // The final recipient of a charge: our contracted account (an assumption, docs/providers.md).
      expect(sent.body).toMatchObject({
        recv_client_name: CONTRACT.holder,
        recv_client_bank_code: CONTRACT.bankCode,
        recv_client_account_num: CONTRACT.accountNo,
      });
      const answer = expectAnswer(A.Withdrawal, fixture('withdraw-response.json'), 'withdraw');
      expect(A.centreOutcome(answer.rsp_code, answer.rsp_message)).toBeUndefined();
      expect(A.bankOutcome(answer.bank_rsp_code!, 10000n, '')).toEqual({ status: 'completed', amount: 10000n });
    });

    it('reads a refusal: insufficient balance (453), a fintech_use_num not the person’s (A0304)', async () => {
      expect(await withdraw('w-2', 5_000_000n)).toMatchObject({
        status: 'rejected',
        reason: 'insufficient_funds',
        code: '453',
      });
      const foreign = await bank.withdraw({
        reference: 'w-3',
        accountRef: '9'.repeat(24),
        accessToken: async () => token,
        amount: 1000n,
        memo: '월렛 충전',
        requester,
      });
      expect(foreign).toMatchObject({ status: 'rejected', reason: 'consent_required', code: 'A0304' });
    });

    it.each(['A0001', 'A0007', 'A0017'])(
      'keeps a withdrawal answered %s in doubt, asks transfer/result (the published request) and never sends it twice',
      async (code) => {
        const before = await balance();
        await settings({ inDoubt: { times: 1, code, settleAfterMs: 300, outcome: 'completed' } });
        const reference = `w-doubt-${code}`;
        expect(await withdraw(reference, 700n)).toMatchObject({ status: 'in_doubt' });
        expect(await withdraw(reference, 700n)).toMatchObject({ status: 'in_doubt' }); // still processing
        const asked = last('/v2.0/transfer/result').body;
        expect(shape(asked)).toEqual(shape(fixture('transfer-result-request.json')));
        expect(asked.req_list[0]).toEqual({
          tran_no: '1',
          org_bank_tran_id: book.entries.get(reference)!.bankTranId,
          org_bank_tran_date: bankDate(),
          org_tran_amt: '700',
        });
        await new Promise((r) => setTimeout(r, 400));
        expect(await withdraw(reference, 700n)).toEqual({ status: 'completed', amount: 700n });
        const sent = calls('/transfer/withdraw/fin_num').filter(
          (c) => c.body.bank_tran_id === book.entries.get(reference)!.bankTranId,
        );
        expect(sent).toHaveLength(1);
        expect(await balance()).toBe(before - 700);
      },
    );

    it('keeps a withdrawal answered 503 in doubt, and sends it again under a new id only once the centre has had no record of it for the wait', async () => {
      const before = await balance();
      const patient = adapter(500, 1500);
      faults.push({ path: '/transfer/withdraw/fin_num', status: 503 });
      expect(await withdraw('w-503', 800n, { token }, patient)).toMatchObject({ status: 'in_doubt' });
      const first = book.entries.get('w-503')!.bankTranId;
      // A gateway's 503 may come after the centre passed the request on: no record yet is not "never".
      expect(await withdraw('w-503', 800n, { token }, patient)).toMatchObject({ status: 'in_doubt' });
      expect(book.entries.get('w-503')!.bankTranId).toBe(first);
      await new Promise((r) => setTimeout(r, 1600));
      expect(await withdraw('w-503', 800n, { token }, patient)).toEqual({ status: 'completed', amount: 800n });
      expect(book.entries.get('w-503')!.earlier.map((e) => e.bankTranId)).toEqual([first]);
      expect(await balance()).toBe(before - 800);
    });

    it('waits out a withdrawal that timed out: it arrived late and is found under its first id, sent once', async () => {
      const before = await balance();
      faults.push({ path: '/transfer/withdraw/fin_num', hangMs: 1500 });
      const slow = adapter(500, 1500);
      expect(await withdraw('w-late', 900n, { token }, slow)).toMatchObject({ status: 'in_doubt' });
      const first = book.entries.get('w-late')!.bankTranId;
      expect(await withdraw('w-late', 900n, { token }, slow)).toMatchObject({ status: 'in_doubt' });
      await new Promise((r) => setTimeout(r, 1600));
      expect(await withdraw('w-late', 900n, { token }, slow)).toEqual({ status: 'completed', amount: 900n });
      expect(book.entries.get('w-late')!.bankTranId).toBe(first);
      expect(await balance()).toBe(before - 900);
    });

    it('takes a withdrawal found under an earlier id and a newer one both for an operator, never a result', async () => {
      // The original arrives after the wait was over and the withdrawal went again: both moved money.
      const patient = adapter(300, 900);
      faults.push({ path: '/transfer/withdraw/fin_num', hangMs: 2500 });
      expect(await withdraw('w-twice', 400n, { token }, patient)).toMatchObject({ status: 'in_doubt' });
      await new Promise((r) => setTimeout(r, 1000));
      expect(await withdraw('w-twice', 400n, { token }, patient)).toEqual({ status: 'completed', amount: 400n });
      await new Promise((r) => setTimeout(r, 1800));
      expect(await withdraw('w-twice', 400n, { token }, patient)).toMatchObject({
        status: 'unknown',
        reason: expect.stringContaining('for an operator'),
      });
    });

    it('sends a withdrawal once however many attempts run at once: one claims the id, the others are in doubt', async () => {
      const before = await balance();
      const outcomes = await Promise.all(Array.from({ length: 4 }, () => withdraw('w-racing', 300n)));
      expect(outcomes.filter((o) => o.status === 'completed')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'in_doubt')).toHaveLength(3);
      expect(
        calls('/transfer/withdraw/fin_num').filter(
          (c) => c.body.bank_tran_id === book.entries.get('w-racing')!.bankTranId,
        ),
      ).toHaveLength(1);
      expect(await balance()).toBe(before - 300);
      expect(await withdraw('w-racing', 300n)).toEqual({ status: 'completed', amount: 300n });
    });

    it('finds a withdrawal booked on the next day (sent across midnight) and keeps the day the bank gave', async () => {
      expect(await withdraw('w-midnight', 250n)).toEqual({ status: 'completed', amount: 250n });
      const yesterday = new Date(Date.now() - 24 * 3600_000);
      book.entries.get('w-midnight')!.tranDate = bankDate(yesterday.getTime());
      expect(await withdraw('w-midnight', 250n)).toEqual({ status: 'completed', amount: 250n });
    });

    it('sends again a withdrawal that never arrived, once the wait is over, under a new id kept with the old', async () => {
      const before = await balance();
      await book.assign('w-lost', { direction: 'withdrawal', amount: 600n }, () => `${INSTITUTION}ULOST00001`);
      await book.claim('w-lost', `${INSTITUTION}ULOST00001`);
      book.entries.get('w-lost')!.sentAt = new Date(Date.now() - 3 * 60_000);
      expect(await withdraw('w-lost', 600n)).toEqual({ status: 'completed', amount: 600n });
      expect(book.entries.get('w-lost')!.bankTranId).not.toBe(`${INSTITUTION}ULOST00001`);
      expect(book.entries.get('w-lost')!.earlier).toEqual([
        { bankTranId: `${INSTITUTION}ULOST00001`, tranDate: bankDate() },
      ]);
      expect(await balance()).toBe(before - 600);
    });

    it('keeps a withdrawal answered A0008 (a duplicate) in doubt, and finds by transfer/result that its send moved the money', async () => {
      const before = await balance();
      const duplicate = {
        api_tran_id: 'x',
        api_tran_dtm: '20260101000000000',
        rsp_code: 'A0008',
        rsp_message: '중복거래',
      };
      faults.push({ path: '/transfer/withdraw/fin_num', processed: true, body: duplicate });
      expect(await withdraw('w-A0008', 650n)).toMatchObject({ status: 'in_doubt' });
      expect(await withdraw('w-A0008', 650n)).toEqual({ status: 'completed', amount: 650n });
      const id = book.entries.get('w-A0008')!.bankTranId;
      expect(calls('/transfer/withdraw/fin_num').filter((c) => c.body.bank_tran_id === id)).toHaveLength(1);
      expect(await balance()).toBe(before - 650);
      // Answered with an error status, it is in doubt too, never a refusal.
      faults.push({ path: '/transfer/withdraw/fin_num', status: 400, body: duplicate });
      expect(await withdraw('w-A0008-400', 100n)).toMatchObject({ status: 'in_doubt' });
      expect(A.centreOutcome('A0008', '중복거래')).toMatchObject({ status: 'in_doubt' });
    });

    it('reads a refusal the centre answers with an error status, and a bank code it does not list as unknown', async () => {
      faults.push({
        path: '/transfer/withdraw/fin_num',
        status: 400,
        body: {
          api_tran_id: 'x',
          api_tran_dtm: '20260101000000000',
          rsp_code: 'A0004',
          rsp_message: '요청전문 포맷에러',
        },
      });
      expect(await withdraw('w-400', 100n)).toMatchObject({ status: 'rejected', code: 'A0004' });
      expect(A.bankOutcome('999', 100n, '')).toMatchObject({ status: 'unknown' });
      expect(A.bankOutcome('500', 100n, '')).toMatchObject({ status: 'unknown' });
      expect(A.bankOutcome('453', 100n, '')).toMatchObject({ status: 'rejected', reason: 'insufficient_funds' });
    });

    it('refuses without asking the bank a new withdrawal with no token, yet still asks about one sent before', async () => {
      expect(await withdraw('w-no-token', 100n, {})).toMatchObject({
        status: 'rejected',
        reason: 'consent_required',
      });
      const unsent = book.entries.get('w-no-token')!;
      expect(unsent.sentAt).toBeNull();
      expect(calls('/transfer/withdraw/fin_num').some((c) => c.body.bank_tran_id === unsent.bankTranId)).toBe(false);
      await withdraw('w-then', 200n);
      expect(await withdraw('w-then', 200n, {})).toEqual({ status: 'completed', amount: 200n });
    });

    it('reads an undocumented code or a malformed answer as unknown, never as a result', async () => {
      await settings({ reportCode: 'A9999' });
      expect(await withdraw('w-odd', 300n)).toMatchObject({
        status: 'unknown',
        reason: expect.stringContaining('A9999'),
      });
      await settings({ reportCode: null, malformed: true });
      expect(await withdraw('w-malformed', 300n)).toMatchObject({ status: 'unknown' });
      // Asked again once the centre answers as documented: the money moved for both.
      await settings({ malformed: false });
      expect(await withdraw('w-odd', 300n)).toEqual({ status: 'completed', amount: 300n });
      expect(await withdraw('w-malformed', 300n)).toEqual({ status: 'completed', amount: 300n });
    });
  });

  describe('deposits', () => {
    const deposit = (reference: string, holderName = PERSON.name) =>
      bank.deposit({
        reference,
        bankCode: PERSON.bankCode,
        accountNo: PERSON.accountNo,
        holderName,
        amount: 1n,
        memo: '월렛1234',
        purpose: 'verification',
        requester,
      });

    it("sends the official request's fields (from the contracted account, named and checked) and prints the memo", async () => {
      expect(await deposit('d-1')).toEqual({ status: 'completed', amount: 1n });
      const sent = last('/transfer/deposit/acnt_num');
      const official = fixture('deposit-fin-num-request.official.json');
      for (const key of Object.keys(sent.body)) expect(Object.keys(official)).toContain(key);
      expect(sent.body).toMatchObject({
        cntr_account_num: CONTRACT.accountNo,
        wd_pass_phrase: PASS_PHRASE,
        name_check_option: 'on',
        req_cnt: '1',
      });
      expect(sent.body.req_list[0]).toMatchObject({
        account_holder_name: PERSON.name,
        print_content: '월렛1234',
        tran_amt: '1',
        transfer_purpose: 'AU',
      });
      const statement = await admin(`/_accounts/${PERSON.bankCode}/${PERSON.accountNo}`);
      expect(statement.transactions.at(-1)).toMatchObject({ amount: 1, printContent: '월렛1234' });
      for (const name of ['deposit-fin-num-response.json', 'deposit-acnt-num-response.json']) {
        const answer = expectAnswer(A.Deposit, fixture(name), 'deposit');
        expect(A.bankOutcome(answer.res_list![0]!.bank_rsp_code, 10000n, '')).toMatchObject({ status: 'completed' });
      }
    });

    it('reads a refusal per item: a holder of another name (815)', async () => {
      expect(await deposit('d-2', '김다른')).toMatchObject({
        status: 'rejected',
        reason: 'holder_mismatch',
        code: '815',
      });
    });

    it("reads the centre's own refusal of a holder of another name (A0312), nothing moved", async () => {
      const before = await balance();
      await settings({ nameMismatch: 'A0312' });
      expect(await deposit('d-A0312', '김다른')).toMatchObject({
        status: 'rejected',
        reason: 'holder_mismatch',
        code: 'A0312',
      });
      expect(last('/transfer/deposit/acnt_num').body.req_list[0].account_holder_name).toBe('김다른');
      expect(await balance()).toBe(before);
    });

    /** A payout of the person's balance: a remittance (TR), never sent again on its own. */
    const payout = (reference: string, amount: bigint, bankAdapter = bank) =>
      bankAdapter.deposit({
        reference,
        bankCode: PERSON.bankCode,
        accountNo: PERSON.accountNo,
        holderName: PERSON.name,
        amount,
        memo: '월렛 출금',
        purpose: 'payout',
        requester,
        sendAgain: false,
      });

    it("sends a payout as the official example sends a refund (TR, the holder's name checked), printed on both statements", async () => {
      const before = await balance();
      expect(await payout('p-1', 20_000n)).toEqual({ status: 'completed', amount: 20_000n });
      const sent = last('/transfer/deposit/acnt_num');
      const official = fixture('deposit-fin-num-request.official.json');
      for (const key of Object.keys(sent.body)) expect(Object.keys(official)).toContain(key);
      for (const key of Object.keys(sent.body.req_list[0]))
        expect([...Object.keys(official.req_list[0]), 'bank_code_std', 'account_num', 'account_holder_name']).toContain(
          key,
        );
      expect(sent.body).toMatchObject({ name_check_option: 'on', wd_print_content: '월렛 출금', req_cnt: '1' });
      expect(sent.body.req_list[0]).toMatchObject({
        transfer_purpose: official.req_list[0].transfer_purpose,
        print_content: '월렛 출금',
        tran_amt: '20000',
        account_holder_name: PERSON.name,
        req_client_bank_code: PERSON.bankCode,
        req_client_account_num: PERSON.accountNo,
      });
      expect(await balance()).toBe(before + 20_000);
      const ours = await admin('/_contract-account');
      expect(ours.transactions.at(-1)).toMatchObject({ amount: -20_000, printContent: '월렛 출금' });
    });

    it("reads the institution's own deposit limits (A0106 per transfer, A0101 a day, A0102 a month) as what they are, nothing moved", async () => {
      const before = await balance();
      for (const [limits, code, reason] of [
        [{ perTransferKrw: 1000 }, 'A0106', 'institution_per_transfer_limit'],
        [{ perTransferKrw: null, dailyKrw: 1000 }, 'A0101', 'institution_daily_limit'],
        [{ dailyKrw: null, monthlyKrw: 1000 }, 'A0102', 'institution_monthly_limit'],
      ] as const) {
        await settings({ depositLimits: limits });
        expect(await payout(`p-${code}`, 5_000n)).toMatchObject({ status: 'rejected', reason, code });
      }
      await settings({ depositLimits: { monthlyKrw: null } });
      expect(await balance()).toBe(before);
    });

    it('keeps a payout that never reached the centre in doubt past the wait: marked not received, never sent again', async () => {
      const before = await balance();
      const patient = adapter(500, 1500);
      faults.push({ path: '/transfer/deposit/acnt_num', status: 503 });
      expect(await payout('p-503', 700n, patient)).toMatchObject({ status: 'in_doubt' });
      expect(await payout('p-503', 700n, patient)).toMatchObject({ status: 'in_doubt' });
      expect((await payout('p-503', 700n, patient)) as object).not.toHaveProperty('notReceived');
      await new Promise((r) => setTimeout(r, 1600));
      expect(await payout('p-503', 700n, patient)).toMatchObject({ status: 'in_doubt', notReceived: true });
      expect(calls('/transfer/deposit/acnt_num').filter((c) => c.body.req_list?.[0]?.tran_amt === '700')).toHaveLength(
        1,
      );
      expect(book.entries.get('p-503')!.earlier).toEqual([]);
      expect(await balance()).toBe(before);
    });

    it('keeps a payout answered A0008 (a duplicate) in doubt, and finds by transfer/result that its send paid', async () => {
      const before = await balance();
      await settings({ duplicateCode: 'A0008' });
      faults.push({
        path: '/transfer/deposit/acnt_num',
        processed: true,
        body: { rsp_code: 'A0008', rsp_message: '중복거래 에러', api_tran_id: 'x', api_tran_dtm: '20261202000000000' },
      });
      expect(await payout('p-A0008', 600n)).toMatchObject({ status: 'in_doubt' });
      expect(await payout('p-A0008', 600n)).toEqual({ status: 'completed', amount: 600n });
      expect(await balance()).toBe(before + 600);
      await settings({ duplicateCode: 'A0326' });
    });
  });

  it('sends amounts as the API types them: a string of whole won, 1 to 999,999,999,999', () => {
    expect(wonOnTheWire(1n)).toBe('1');
    expect(wonOnTheWire(999_999_999_999n)).toBe('999999999999');
    expect(() => wonOnTheWire(0n)).toThrow();
    expect(() => wonOnTheWire(1_000_000_000_000n)).toThrow();
  });
});
