import { type TransferRequestView } from '../../sandbox/open-banking';
import { openBankingHarness, refusal, sleep, type Holder } from '../helpers/open-banking-harness';

/**
 * The open banking stand-in's settings for the institution's deposit limits (A0106, A0101, A0102), the code a repeated
 * bank_tran_id is refused with (A0326 or A0008) and deposits that land late, over real HTTP.
 */
const DEFAULTS = {
  depositLimits: { perTransferKrw: null, dailyKrw: null, monthlyKrw: null },
  duplicateCode: 'A0326',
  lateLanding: { times: 0, landAfterMs: 5000 },
};

const harness = openBankingHarness({
  accountPrefix: '2202340',
  resetSettings: DEFAULTS,
  settle: true,
  depositTexts: { wdPrintContent: '월렛출금', printContent: '월렛 출금', transferPurpose: 'TR' },
});
const {
  post,
  settings,
  openAccount,
  accountOf,
  contract,
  bankTranId,
  koreanDate,
  depositBody,
  institutionToken,
  userAccount: userToken,
  transferResult,
  transfersOf,
} = harness;

let oob: string;
/** Moves the gateway's clock, and takes an institution token there (tokens expire on the gateway's clock). */
const setClock = async (iso: string) => {
  harness.setClock(iso);
  oob = await institutionToken();
};
beforeAll(async () => {
  oob = await institutionToken();
});
// The harness has put the clock back: a token of the present.
afterEach(async () => {
  oob = await institutionToken();
});

const deposit = (to: Holder, item: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) =>
  harness.deposit(oob, to, fields, item);
const withdraw = (person: { accessToken: string; fintech: string }, fields: Record<string, unknown>) =>
  harness.withdraw(person.accessToken, {
    fintech_use_num: person.fintech,
    tran_amt: '1000',
    req_client_fintech_use_num: person.fintech,
    ...fields,
  });
/** transfer/result for one deposit (check_type 2) on the gateway's Korean day. */
const depositResult = (id: string, amount: number, date = koreanDate()) =>
  transferResult(oob, '2', [{ id, date, amount: String(amount) }]);

describe('settings', () => {
  it('starts with no deposit limits, A0326 for a repeated bank_tran_id and no late landing', async () => {
    const answer = await settings({});
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject(DEFAULTS);
  });

  it('updates only the deposit limits given, clears one with null, and refuses bad values with a 400, changing nothing', async () => {
    expect((await settings({ depositLimits: { perTransferKrw: 1000, dailyKrw: 2000 } })).body.depositLimits).toEqual({
      perTransferKrw: 1000,
      dailyKrw: 2000,
      monthlyKrw: null,
    });
    expect((await settings({ depositLimits: { monthlyKrw: 3000 } })).body.depositLimits).toEqual({
      perTransferKrw: 1000,
      dailyKrw: 2000,
      monthlyKrw: 3000,
    });
    expect((await settings({ depositLimits: { dailyKrw: null } })).body.depositLimits).toEqual({
      perTransferKrw: 1000,
      dailyKrw: null,
      monthlyKrw: 3000,
    });
    for (const [input, message] of [
      [
        { depositLimits: { perTransferKrw: 0 } },
        'depositLimits.perTransferKrw must be a positive integer (KRW) or null',
      ],
      [{ depositLimits: { dailyKrw: -5 } }, 'depositLimits.dailyKrw must be a positive integer (KRW) or null'],
      [{ depositLimits: { monthlyKrw: 1.5 } }, 'depositLimits.monthlyKrw must be a positive integer (KRW) or null'],
      [{ depositLimits: { dailyKrw: '1000' } }, 'depositLimits.dailyKrw must be a positive integer (KRW) or null'],
      [{ depositLimits: { perTransferKrw: 2 ** 53 } }, 'depositLimits.perTransferKrw must be a positive integer'],
      [{ depositLimits: { weeklyKrw: 1 } }, 'not weeklyKrw'],
      [{ depositLimits: 5 }, 'depositLimits must be an object'],
      [{ depositLimits: null }, 'depositLimits must be an object'],
      [{ duplicateCode: 'A0009' }, 'duplicateCode must be A0326 or A0008'],
      [{ lateLanding: { times: -1 } }, 'lateLanding.times must be an integer >= 0'],
      [{ lateLanding: { times: 1.5 } }, 'lateLanding.times must be an integer >= 0'],
      [{ lateLanding: { landAfterMs: 'soon' } }, 'lateLanding.landAfterMs must be an integer from 0 to'],
      [{ lateLanding: { landAfterMs: 2 ** 31 } }, 'lateLanding.landAfterMs must be an integer from 0 to'],
      [{ lateLanding: { later: 1 } }, 'lateLanding must be an object with times, landAfterMs'],
      [{ lateLanding: [] }, 'lateLanding must be an object'],
      // One bad setting refuses them all: the good ones beside it are not applied either.
      [{ duplicateCode: 'A0008', lateLanding: { times: 1 }, depositLimits: { monthlyKrw: 0 } }, 'monthlyKrw'],
    ] as const) {
      const refused = await settings(input);
      expect([refused.status, refused.body.code]).toEqual([400, 'invalid_settings']);
      expect(refused.body.message).toContain(message);
    }
    expect((await settings({})).body).toMatchObject({
      depositLimits: { perTransferKrw: 1000, dailyKrw: null, monthlyKrw: 3000 },
      duplicateCode: 'A0326',
      lateLanding: { times: 0, landAfterMs: 5000 },
    });
    expect((await settings({ duplicateCode: 'A0008', lateLanding: { times: 2 } })).body).toMatchObject({
      duplicateCode: 'A0008',
      lateLanding: { times: 2, landAfterMs: 5000 },
    });
  });
});

describe("the institution's deposit limits (이용기관 입금이체 한도)", () => {
  it('refuses a deposit over perTransferKrw with A0106 for the whole call, nothing moved; one at the limit completes', async () => {
    const target = await openAccount('김구', '1876-08-29', 0, '092');
    expect((await settings({ depositLimits: { perTransferKrw: 10_000 } })).status).toBe(200);
    const contractBefore = await contract();

    const id = bankTranId();
    const over = await deposit(target, { bank_tran_id: id, tran_amt: '10001' });
    expect(over.body).toEqual(refusal('A0106', '이용기관 입금이체 한도 초과(건당 한도)'));
    expect(await accountOf(target)).toMatchObject({ balance: 0, transactions: [] });
    expect(await contract()).toEqual(contractBefore);
    expect(await transfersOf(id)).toMatchObject([{ rspCode: 'A0106', bankRspCode: null, outcome: null }]);
    expect((await depositResult(id, 10_001)).body.rsp_code).toBe('A0310');
    // The id was claimed before the limit was checked: the call spent it.
    expect((await deposit(target, { bank_tran_id: id, tran_amt: '100' })).body.rsp_code).toBe('A0326');
    // The pass phrase and the contract account come first.
    expect((await deposit(target, { tran_amt: '10001' }, { wd_pass_phrase: 'WRONG' })).body.rsp_code).toBe('A0307');
    expect((await deposit(target, { tran_amt: '10001' }, { cntr_account_num: '12345678901' })).body.rsp_code).toBe(
      'A0322',
    );

    const atLimit = await deposit(target, { tran_amt: '10000' });
    expect(atLimit.body.rsp_code).toBe('A0000');
    expect(atLimit.body.res_list[0]).toMatchObject({ bank_rsp_code: '000', tran_amt: '10000' });
    expect((await accountOf(target)).balance).toBe(10_000);
    expect((await contract()).balance).toBe(contractBefore.balance - 10_000);
  });

  it('refuses a deposit taking the Korean day over dailyKrw with A0101, counting completed and processing deposits, not refused ones', async () => {
    // 2031-05-14 01:00 in Korea, still 2031-05-13 in UTC.
    await setClock('2031-05-13T16:00:00Z');
    const target = await openAccount('안창호', '1878-11-09', 0, '081');
    expect((await settings({ depositLimits: { dailyKrw: 50_000 } })).status).toBe(200);
    // Refused by the bank (no such account): not counted.
    const nowhere = await deposit({ ...target, accountNo: '5555555555555' }, { tran_amt: '40000' });
    expect([nowhere.body.rsp_code, nowhere.body.res_list[0].bank_rsp_code]).toEqual(['A0009', '412']);
    expect((await deposit(target, { tran_amt: '30000' })).body.rsp_code).toBe('A0000');
    // Still processing (in doubt): counted.
    await settings({ inDoubt: { times: 1, code: 'A0001', settleAfterMs: 60_000, outcome: 'completed' } });
    expect((await deposit(target, { tran_amt: '15000' })).body.rsp_code).toBe('A0001');
    const before = await accountOf(target);
    expect(before.balance).toBe(30_000);

    const id = bankTranId();
    const over = await deposit(target, { bank_tran_id: id, tran_amt: '5001' });
    expect(over.body).toEqual(refusal('A0101', '이용기관 입금이체 한도 초과(일 한도)'));
    expect(await accountOf(target)).toEqual(before);
    expect(await transfersOf(id)).toMatchObject([{ rspCode: 'A0101', bankRspCode: null, outcome: null }]);
    expect((await depositResult(id, 5001)).body.rsp_code).toBe('A0310');

    const upToTheLimit = await deposit(target, { tran_amt: '5000' });
    expect(upToTheLimit.body.rsp_code).toBe('A0000');
    expect((await accountOf(target)).balance).toBe(35_000);

    // 23:00 the same Korean day (2031-05-14 in UTC too, now): still over.
    await setClock('2031-05-14T14:00:00Z');
    expect((await deposit(target, { tran_amt: '1' })).body.rsp_code).toBe('A0101');
    // 00:00 the next Korean day (still 2031-05-14 in UTC): a new day's limit.
    await setClock('2031-05-14T15:00:00Z');
    const nextDay = await deposit(target, { tran_amt: '50000' });
    expect(nextDay.body.rsp_code).toBe('A0000');
    expect((await accountOf(target)).balance).toBe(85_000);
  });

  it('refuses a deposit taking the Korean calendar month over monthlyKrw with A0102', async () => {
    const target = await openAccount('윤동주', '1917-12-30', 0, '020');
    expect((await settings({ depositLimits: { monthlyKrw: 100_000 } })).status).toBe(200);
    // 2031-07-01 01:00 in Korea (2031-06-30 in UTC), then 2031-07-20.
    await setClock('2031-06-30T16:00:00Z');
    expect((await deposit(target, { tran_amt: '60000' })).body.rsp_code).toBe('A0000');
    await setClock('2031-07-20T03:00:00Z');
    expect((await deposit(target, { tran_amt: '40000' })).body.rsp_code).toBe('A0000');
    // 2031-07-31 23:30 in Korea.
    await setClock('2031-07-31T14:30:00Z');
    const contractBefore = await contract();
    const id = bankTranId();
    const over = await deposit(target, { bank_tran_id: id, tran_amt: '1' });
    expect(over.body).toEqual(refusal('A0102', '이용기관 입금이체 한도 초과(월 한도)'));
    expect((await accountOf(target)).balance).toBe(100_000);
    expect((await accountOf(target)).transactions).toHaveLength(2);
    expect(await contract()).toEqual(contractBefore);
    expect((await depositResult(id, 1)).body.rsp_code).toBe('A0310');
    // 2031-08-01 00:30 in Korea (still July in UTC): a new month.
    await setClock('2031-07-31T15:30:00Z');
    expect((await deposit(target, { tran_amt: '100000' })).body.rsp_code).toBe('A0000');
    expect((await accountOf(target)).balance).toBe(200_000);
  });

  it('checks the per-transfer limit before the daily one, and withdrawals against none of them', async () => {
    const target = await openAccount('유관순', '1902-12-16', 5000);
    await settings({ depositLimits: { perTransferKrw: 1000, dailyKrw: 500, monthlyKrw: 500 } });
    expect((await deposit(target, { tran_amt: '2000' })).body.rsp_code).toBe('A0106');
    expect((await deposit(target, { tran_amt: '600' })).body.rsp_code).toBe('A0101');
    await settings({ depositLimits: { dailyKrw: null } });
    expect((await deposit(target, { tran_amt: '600' })).body.rsp_code).toBe('A0102');
    expect((await accountOf(target)).balance).toBe(5000);
    const person = await userToken(target);
    expect((await withdraw(person, { tran_amt: '2000' })).body.rsp_code).toBe('A0000');
    expect((await accountOf(target)).balance).toBe(3000);
  });
});

describe('a repeated bank_tran_id', () => {
  it('is refused with A0008 when set so, for a deposit and a withdrawal, the money moving once; A0326 by default', async () => {
    const target = await openAccount('이봉창', '1900-08-10', 10_000, '011');
    const person = await userToken(target);
    const id = bankTranId();
    expect((await deposit(target, { bank_tran_id: id, tran_amt: '700' })).body.rsp_code).toBe('A0000');
    expect((await deposit(target, { bank_tran_id: id, tran_amt: '700' })).body).toEqual(
      refusal('A0326', '거래고유번호(참가기관) 중복'),
    );

    expect((await settings({ duplicateCode: 'A0008' })).body.duplicateCode).toBe('A0008');
    const again = await deposit(target, { bank_tran_id: id, tran_amt: '700' });
    expect(again.body).toEqual(refusal('A0008', '중복거래 에러'));
    expect((await accountOf(target)).transactions.filter((t) => t.bankTranId === id)).toEqual([
      expect.objectContaining({ amount: 700 }),
    ]);
    expect((await transfersOf(id)).map((t) => t.rspCode)).toEqual(['A0000', 'A0326', 'A0008']);

    const withdrawalId = bankTranId();
    expect((await withdraw(person, { bank_tran_id: withdrawalId })).body.rsp_code).toBe('A0000');
    const repeated = await withdraw(person, { bank_tran_id: withdrawalId });
    expect(repeated.body).toEqual(refusal('A0008', '중복거래 에러'));
    expect((await accountOf(target)).balance).toBe(10_000 + 700 - 1000);
  });
});

describe('a deposit landing late', () => {
  it('is not answered before landAfterMs, unknown to transfer/result until then, and lands once, money moving then', async () => {
    const target = await openAccount('홍범도', '1868-10-12', 0, '090');
    const landAfterMs = 1500;
    expect((await settings({ lateLanding: { times: 1, landAfterMs } })).body.lateLanding).toEqual({
      times: 1,
      landAfterMs,
    });
    const contractBefore = (await contract()).balance;
    const id = bankTranId();
    const sentAt = Date.now();
    // The caller's own timeout ends the call first.
    const call = post(
      '/v2.0/transfer/deposit/acnt_num',
      depositBody(target, {}, { bank_tran_id: id, tran_amt: '4200' }),
      oob,
      AbortSignal.timeout(300),
    );
    await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });

    // Meanwhile: listed as it arrived, unanswered; nothing moved; transfer/result does not know it.
    expect(await transfersOf(id)).toEqual([
      {
        bankTranId: id,
        bankTranDate: koreanDate(),
        direction: 'deposit',
        amount: 4200,
        rspCode: null,
        bankRspCode: null,
        settled: false,
        outcome: null,
      },
    ]);
    expect((await depositResult(id, 4200)).body.rsp_code).toBe('A0310');
    expect(await accountOf(target)).toMatchObject({ balance: 0, transactions: [] });
    expect((await contract()).balance).toBe(contractBefore);
    // Counted down: the next deposit is answered at once.
    expect((await settings({})).body.lateLanding).toEqual({ times: 0, landAfterMs });
    const other = await openAccount('지청천', '1888-02-15', 0);
    expect((await deposit(other, { tran_amt: '1' })).body.rsp_code).toBe('A0000');
    expect((await depositResult(id, 4200)).body.rsp_code).toBe('A0310');

    // Then it lands: found, completed, on the payee's statement once.
    let found = await depositResult(id, 4200);
    while (found.body.rsp_code === 'A0310' && Date.now() - sentAt < landAfterMs + 3000) {
      await sleep(50);
      found = await depositResult(id, 4200);
    }
    expect(found.body.rsp_code).toBe('A0000');
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(landAfterMs - 20);
    expect(found.body.res_list[0]).toMatchObject({
      bank_tran_id: id,
      bank_rsp_code: '000',
      dps_account_holder_name: '홍범도',
      tran_amt: '4200',
    });
    const statement = await accountOf(target);
    expect(statement.balance).toBe(4200);
    expect(statement.transactions).toEqual([expect.objectContaining({ amount: 4200, bankTranId: id })]);
    expect((await contract()).balance).toBe(contractBefore - 4200 - 1);
    expect(await transfersOf(id)).toMatchObject([{ rspCode: 'A0000', bankRspCode: '000', outcome: 'completed' }]);
    // Landing once: later calls to settle move nothing more.
    await post('/_transfers/settle', {});
    expect((await accountOf(target)).transactions).toHaveLength(1);
  });

  it('answers a call still open as usual once it lands', async () => {
    const target = await openAccount('김좌진', '1889-12-16', 0);
    await settings({ lateLanding: { times: 1, landAfterMs: 400 } });
    const id = bankTranId();
    const sentAt = Date.now();
    const answer = await deposit(target, { bank_tran_id: id, tran_amt: '900' });
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(400 - 20);
    expect(answer.body).toMatchObject({ rsp_code: 'A0000', res_cnt: '1' });
    expect(answer.body.res_list[0]).toMatchObject({ bank_tran_id: id, bank_rsp_code: '000', tran_amt: '900' });
    expect((await accountOf(target)).transactions).toEqual([expect.objectContaining({ amount: 900, bankTranId: id })]);
  });

  it('lands at once on POST /kftc/_transfers/settle, answering the call still open', async () => {
    const target = await openAccount('이회영', '1867-04-21', 0);
    await settings({ lateLanding: { times: 1, landAfterMs: 120_000 } });
    const id = bankTranId();
    const call = deposit(target, { bank_tran_id: id, tran_amt: '300' });
    let listed = await transfersOf(id);
    for (let tries = 0; listed.length === 0 && tries < 100; tries++) {
      await sleep(20);
      listed = await transfersOf(id);
    }
    expect(listed).toMatchObject([{ rspCode: null, settled: false }]);
    expect((await depositResult(id, 300)).body.rsp_code).toBe('A0310');

    const settled = await post('/_transfers/settle', {});
    expect((settled.body as TransferRequestView[]).filter((t) => t.bankTranId === id)).toMatchObject([
      { settled: true, outcome: 'completed', bankRspCode: '000' },
    ]);
    const answer = await call;
    expect(answer.body.rsp_code).toBe('A0000');
    expect((await depositResult(id, 300)).body.rsp_code).toBe('A0000');
    expect((await accountOf(target)).transactions).toEqual([expect.objectContaining({ amount: 300, bankTranId: id })]);
  }, 20_000);
});
