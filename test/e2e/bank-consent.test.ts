import { randomUUID } from 'node:crypto';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, residentNumberFor, type RegisteredUser } from '../helpers/http';
import { waitFor } from '../helpers/processes';
import {
  bankAccountLog,
  callApi,
  connectBankAccount,
  consentAtBank,
  consentAtBankPage,
  openBankAccount,
  type SandboxAccount,
} from '../helpers/bank';
import { BankAccountEntity, BankConsentEntity, EventEntity, bankConsentAad } from '../../db/entities';

/**
 * Open banking takes money from a person's account only with their consent at the centre (its OAuth authorization,
 * which gives a token and a fintech_use_num per account): the routes an app starts it with and the centre returns to,
 * what a charge answers before it, and what happens when the bank ends it or its token nears its end.
 */
describe('consent at the bank to charges', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases().at(-1)!);
  });
  afterAll(async () => {
    await stack?.stop();
  });
  afterEach(async () => {
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
  });

  const charge = (user: RegisteredUser, amount: string, source = 'KB국민은행') =>
    callApi(stack, '/api/v1/charge/execute', user, {
      json: { source, amount, currency: 'KRW' },
      key: randomUUID(),
    });
  const chargeOutcome = async (user: RegisteredUser, chargeId: string) => {
    let view: { status: string; failure_reason: string | null } = { status: 'processing', failure_reason: null };
    await waitFor(
      async () => {
        view = (await callApi(stack, `/api/v1/charge/${chargeId}`, user)).body;
        return view.status !== 'processing';
      },
      60_000,
      `charge ${chargeId}`,
    );
    return view;
  };
  const connected = async (balance = 100_000): Promise<{ user: RegisteredUser; account: SandboxAccount }> => {
    const user = await registerUser(stack);
    const account = await openBankAccount(stack, user.person, balance);
    await connectBankAccount(stack, user, account, { consent: false });
    return { user, account };
  };

  it('answers a charge before the consent with a problem naming the consent route, then charges once it is given', async () => {
    const { user, account } = await connected();
    const early = await charge(user, '5000');
    expect(early.status).toBe(422);
    expect(early.body).toMatchObject({
      type: '/problems/bank-consent-required',
      consentRoute: '/api/v1/bank/consent',
      detail: expect.stringContaining('POST /api/v1/bank/consent'),
    });
    expect((await callApi(stack, '/api/v1/bank/consent', user)).body).toEqual({
      consent_id: null,
      status: 'none',
      accounts: [],
      failure: null,
    });

    // The app sends the person to the centre and asks to have them back at its own address.
    const given = await consentAtBank(stack, user, account, { returnUri: 'wallet://bank/consent' });
    expect(given.status).toBe(302);
    const back = new URL(given.location!);
    expect(`${back.protocol}//${back.host}${back.pathname}`).toBe('wallet://bank/consent');
    expect(back.searchParams.get('status')).toBe('active');
    const consentId = back.searchParams.get('consent_id')!;
    const view = (await callApi(stack, '/api/v1/bank/consent', user)).body;
    const [bankAccount] = (await callApi(stack, '/api/v1/bank/accounts', user)).body.accounts;
    expect(view).toEqual({
      consent_id: consentId,
      status: 'active',
      accounts: [
        {
          bank_code: '004',
          bank_name: 'KB국민은행',
          account_no: expect.stringMatching(/\*/),
          withdrawals_agreed: true,
          bank_account_id: bankAccount.bank_account_id,
        },
      ],
      failure: null,
    });
    // The person's token is kept sealed, never as sent.
    const row = await stack.orm.em.fork().findOneOrFail(BankConsentEntity, { consentId });
    expect(row.accessTokenSealed).toBeTruthy();
    expect(row.accessTokenSealed).not.toContain('.');
    expect(stack.encryption.openText(row.accessTokenSealed!, bankConsentAad(user.userId)).split('.')).toHaveLength(3);
    expect(await stack.orm.em.fork().count(EventEntity, { type: 'bank_consent.granted', resourceId: consentId })).toBe(
      1,
    );

    const started = await charge(user, '5000');
    expect(started.status).toBe(202);
    expect(await chargeOutcome(user, started.body.charge_id)).toMatchObject({ status: 'completed' });
    expect((await bankAccountLog(stack, account)).balance).toBe(100_001 - 5000);
  });

  it('links an account connected after the consent, and keeps a denied consent from linking anything', async () => {
    const user = await registerUser(stack);
    const account = await openBankAccount(stack, user.person, 50_000);
    const denied = await consentAtBank(stack, user, account, { action: 'deny' });
    expect([denied.status, denied.body.status]).toEqual([200, 'failed']);
    expect(denied.body.failure).toContain('access_denied');

    const given = await consentAtBank(stack, user, account);
    expect([given.status, given.body.status]).toEqual([200, 'active']);
    expect(given.body.accounts[0].bank_account_id).toBeNull(); // not connected (1 KRW) yet
    const connectedAccount = await connectBankAccount(stack, user, account, { consent: false });
    expect((await callApi(stack, '/api/v1/bank/consent', user)).body.accounts[0].bank_account_id).toBe(
      connectedAccount.bank_account_id,
    );
    const started = await charge(user, '3000');
    expect(await chargeOutcome(user, started.body.charge_id)).toMatchObject({ status: 'completed' });

    // A second account at that bank whose number differs only in the digits the bank hides: the listing could be
    // either, so neither charges (a wrong pick would take money from an account the person did not choose).
    const twin = {
      bankCode: account.bankCode,
      accountNo: `${account.accountNo.slice(0, -3)}${account.accountNo.endsWith('999') ? '998' : '999'}`,
    };
    await call(`${stack.sandboxUrl}/kftc/_accounts`, {
      json: { ...twin, holder: user.person.name, birthDate: user.person.birthDate, balance: 10_000 },
    });
    await connectBankAccount(stack, user, twin, { consent: false });
    const linkedNow = await stack.orm.em.fork().find(BankAccountEntity, { userId: user.userId });
    expect(linkedNow.map((a) => a.railAccountRef)).toEqual([null, null]);
    const named = await charge(user, '1000', connectedAccount.bank_account_id);
    expect([named.status, named.body.type]).toEqual([422, '/problems/bank-consent-required']);
    // Consenting to both lists two accounts the bank shows alike: still neither is linked.
    const both = await consentAtBank(stack, user, twin);
    expect(both.body.accounts.map((a: { bank_account_id: string | null }) => a.bank_account_id)).toEqual([null, null]);
  });

  it('refuses a return address not registered, a state it never gave, and a consent returned twice', async () => {
    const { user, account } = await connected();
    const foreign = await callApi(stack, '/api/v1/bank/consent', user, {
      json: { return_uri: 'https://attacker.example/steal' },
    });
    expect([foreign.status, foreign.body.type]).toEqual([422, '/problems/return-uri-not-registered']);
    const unknown = await call(`${stack.apiUrl}/api/v1/bank/consent/callback?state=${'x'.repeat(32)}&code=abc`);
    expect(unknown.status).toBe(404);
    const missing = await call(`${stack.apiUrl}/api/v1/bank/consent/callback?code=abc`);
    expect(missing.status).toBe(400);
    // A control character in what the bank's redirect carries is refused before anything is stored.
    const control = await call(
      `${stack.apiUrl}/api/v1/bank/consent/callback?state=${'x'.repeat(32)}&error=x&error_description=%00`,
    );
    expect(control.status).toBe(400);

    // The centre's redirect replayed (a browser's back button, a copied address): the consent is done once.
    const back = await consentAtBankPage(stack, user, user.person, account);
    expect((await fetch(back)).status).toBe(200);
    const again = await fetch(back);
    expect(again.status).toBe(409);

    // Loaded twice at once (a double click, a link preview): one return redeems the code, the other answers 409 and
    // cannot fail the consent with the bank's refusal of the spent code.
    const twice = await consentAtBankPage(stack, user, user.person, account);
    const statuses = await Promise.all([fetch(twice), fetch(twice)].map(async (r) => (await r).status));
    expect(statuses.sort()).toEqual([200, 409]);
    expect((await callApi(stack, '/api/v1/bank/consent', user)).body.status).toBe('active');
  });

  it("refuses a consent another person gave at the bank (a thief's link followed by the victim): nothing is linked", async () => {
    const thief = await connected();
    const victim = await registerUser(stack);
    const victimsAccount = await openBankAccount(stack, victim.person, 900_000);
    // The thief starts a consent and has the victim complete it at the bank with the victim's own account.
    const back = await consentAtBankPage(stack, thief.user, victim.person, victimsAccount);
    const returned = await call(back);
    expect([returned.status, returned.body.error.type]).toEqual([422, '/problems/consent-of-another-person']);
    const view = (await callApi(stack, '/api/v1/bank/consent', thief.user)).body;
    expect([view.status, view.accounts]).toEqual(['failed', []]);
    expect((await charge(thief.user, '1000')).body.type).toBe('/problems/bank-consent-required');
    expect((await bankAccountLog(stack, victimsAccount)).balance).toBe(900_000);
  });

  it("refuses a namesake's consent link completed by the person (same name and birth date, another CI): nothing is linked", async () => {
    // The thief shares the victim's name and birth date (another person: another resident number, phone and CI).
    const victim = await registerUser(stack);
    const victimsAccount = await openBankAccount(stack, victim.person, 900_000);
    const thief = await registerUser(stack, {
      ...victim.person,
      phone: '01099990000',
      residentNumber: residentNumberFor(victim.person.birthDate),
    });
    // The thief connects an account of their own at the victim's bank, starts a consent and has the victim complete
    // it (the victim's phone authentication at the bank): every name on it is the thief's too.
    const thiefsAccount = await openBankAccount(stack, thief.person, 1000);
    await connectBankAccount(stack, thief, thiefsAccount, { consent: false });
    const returned = await call(await consentAtBankPage(stack, thief, victim.person, victimsAccount));
    expect([returned.status, returned.body.error.type]).toEqual([422, '/problems/consent-of-another-person']);
    const view = (await callApi(stack, '/api/v1/bank/consent', thief)).body;
    expect([view.status, view.accounts]).toEqual(['failed', []]);
    expect((await bankAccountLog(stack, victimsAccount)).balance).toBe(900_000);
  });

  it('links a fintech_use_num to one user only: a consent listing one another user holds fails and links nothing', async () => {
    const first = await connected();
    expect((await consentAtBank(stack, first.user, first.account)).status).toBe(200);
    const em = stack.orm.em.fork();
    const linked = await em.findOneOrFail(BankAccountEntity, { userId: first.user.userId });
    // However it came to be (an operator's fix, a restored backup): another user's account holds that id.
    const other = await connected();
    await em.nativeUpdate(BankAccountEntity, { bankAccountId: linked.bankAccountId }, { railAccountRef: null });
    await em.nativeUpdate(
      BankAccountEntity,
      { userId: other.user.userId },
      { railAccountRef: linked.railAccountRef, consentId: linked.consentId },
    );
    // The first user consents again (the bank lists the same fintech_use_num for the same person and account).
    const returned = await consentAtBank(stack, first.user, first.account);
    expect([returned.status, returned.body.type]).toEqual([409, '/problems/bank-account-linked-elsewhere']);
    expect((await callApi(stack, '/api/v1/bank/consent', first.user)).body.status).toBe('failed');
    expect(
      (await em.fork().findOneOrFail(BankAccountEntity, { bankAccountId: linked.bankAccountId })).railAccountRef,
    ).toBeNull();
  });

  it('ends the consent when the bank says it expired: the charge fails, the next one asks for consent again', async () => {
    const { user, account } = await connected();
    await consentAtBank(stack, user, account);
    // The centre refuses the withdrawal: 출금동의만료 (A0319), the person's consent to withdrawals expired.
    await call(`${stack.sandboxUrl}/_faults/bank`, {
      method: 'PUT',
      json: {
        paths: ['/withdraw/fin_num'],
        answer: {
          body: {
            api_tran_id: randomUUID(),
            api_tran_dtm: '20261127120000000',
            rsp_code: 'A0319',
            rsp_message: '출금동의만료',
          },
        },
      },
    });
    const refused = await charge(user, '2000');
    expect(await chargeOutcome(user, refused.body.charge_id)).toMatchObject({
      status: 'failed',
      failure_reason: 'consent_required',
    });
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });
    expect((await callApi(stack, '/api/v1/bank/consent', user)).body.status).toBe('expired');
    expect((await charge(user, '2000')).body.type).toBe('/problems/bank-consent-required');
    await consentAtBank(stack, user, account);
    const again = await charge(user, '2000');
    expect(await chargeOutcome(user, again.body.charge_id)).toMatchObject({ status: 'completed' });
    expect((await bankAccountLog(stack, account)).balance).toBe(100_001 - 2000);
  });

  it('renews the token of a consent near its end before a charge, once, and ends one the bank will not renew', async () => {
    const { user, account } = await connected();
    const given = await consentAtBank(stack, user, account);
    const consentId = given.body.consent_id as string;
    const soon = new Date(Date.now() + 24 * 3600_000);
    await stack.orm.em.fork().nativeUpdate(BankConsentEntity, { consentId }, { accessExpiresAt: soon });
    const before = await stack.orm.em.fork().findOneOrFail(BankConsentEntity, { consentId });

    const charges = await Promise.all([charge(user, '1000'), charge(user, '1000')]);
    for (const c of charges)
      expect(await chargeOutcome(user, c.body.charge_id)).toMatchObject({ status: 'completed', failure_reason: null });
    const after = await stack.orm.em.fork().findOneOrFail(BankConsentEntity, { consentId });
    expect(after.tokenVersion).toBe(2); // claimed and renewed once, though two charges needed it at once
    expect(after.accessExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 80 * 24 * 3600_000);
    expect(after.refreshTokenSealed).not.toBe(before.refreshTokenSealed);

    // The centre refuses to renew (the refresh token expired): the consent ends, the account is no charge source.
    await stack.orm.em.fork().nativeUpdate(BankConsentEntity, { consentId }, { accessExpiresAt: soon });
    await call(`${stack.sandboxUrl}/_faults/bank`, {
      method: 'PUT',
      json: {
        paths: ['/oauth/2.0/token'],
        answer: { status: 400, body: { rsp_code: 'O0004', rsp_message: 'expired' } },
      },
    });
    const refused = await charge(user, '1000');
    expect(await chargeOutcome(user, refused.body.charge_id)).toMatchObject({ failure_reason: 'consent_required' });
    expect((await stack.orm.em.fork().findOneOrFail(BankConsentEntity, { consentId })).status).toBe('expired');
    expect(
      (await stack.orm.em.fork().find(BankAccountEntity, { userId: user.userId })).map((a) => a.railAccountRef),
    ).toEqual([null]);
  });
});
