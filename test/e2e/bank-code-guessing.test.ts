import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { newPerson, registerUser, type RegisteredUser } from '../helpers/http';
import { bankAccountLog, callApi, openBankAccount, type SandboxAccount } from '../helpers/bank';
import { BankAccountEntity, BankVerificationEntity } from '../../db/entities';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';

/**
 * Every limit out of the way but the per-bank-account ones: wrong codes at its default (10 in 20 days), sends at 5 a
 * day instead of 3, so that ten wrong codes fit in one day's sends here.
 */
const SENDS_A_DAY = 5;
const RATE_LIMITS = JSON.stringify({
  ...Object.fromEntries(
    Object.keys(DEFAULT_RATE_LIMITS)
      .filter((rule) => !rule.startsWith('bank-account-'))
      .map((rule) => [rule, { points: 100_000, seconds: 60 }]),
  ),
  'bank-account-send-won': { points: SENDS_A_DAY, seconds: 24 * 3600 },
});

/**
 * The 1 KRW code is 4 digits and the bank's real-name inquiry compares the holder's name and birth date only, so
 * anyone who shares both can ask for deposits to their account and guess. Guesses are bounded per verification (3) and per bank account across
 * every user (3 sends a day, 10 wrong codes in 20 days), so a guesser with many accounts of their own gains nothing more.
 */
describe.each(testDatabases())("1 KRW codes guessed at someone else's bank account on $name", (database) => {
  let stack: TestStack;
  let victim: SandboxAccount;
  // Same name and birth date: what the bank's real-name inquiry compares.
  const holder = newPerson();
  const sameName = () => registerUser(stack, { ...newPerson(), name: holder.name, birthDate: holder.birthDate });
  beforeAll(async () => {
    stack = await startTestStack(database, { env: { RATE_LIMITS } });
    victim = await openBankAccount(stack, holder, 1_000_000);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const send = (user: RegisteredUser, account = victim) =>
    callApi(stack, '/api/v1/bank/send-won', user, {
      json: { bank_code: account.bankCode, account_no: account.accountNo },
    });
  const confirm = (user: RegisteredUser, verificationId: string, code: string) =>
    callApi(stack, '/api/v1/bank/send-won/confirm', user, { json: { verification_id: verificationId, code } });
  /** A code the deposit did not carry (the guesser reads no statement). */
  const wrongCodeFor = async (account: SandboxAccount) => {
    const real = (await bankAccountLog(stack, account)).transactions.at(-1)!.printContent.slice(2);
    return String((Number(real) + 1) % 10_000).padStart(4, '0');
  };
  /** A code none of the account's deposits carried. */
  const codeOfNoDeposit = async (account: SandboxAccount) => {
    const sent = new Set((await bankAccountLog(stack, account)).transactions.map((t) => t.printContent.slice(2)));
    let code = 0;
    while (sent.has(String(code).padStart(4, '0'))) code += 1;
    return String(code).padStart(4, '0');
  };
  /** A verification per user of the same name, each sent to `account`. */
  const verificationsAt = async (account: SandboxAccount, users: number) => {
    const guessers = await Promise.all(Array.from({ length: users }, () => sameName()));
    const verifications: Array<{ guesser: RegisteredUser; id: string }> = [];
    for (const guesser of guessers) {
      const sent = await send(guesser, account);
      expect([sent.status, sent.body.detail]).toEqual([200, undefined]);
      verifications.push({ guesser, id: sent.body.verification_id });
    }
    return verifications;
  };

  it('locks a verification after three wrong codes', async () => {
    const guesser = await sameName();
    const sent = await send(guesser);
    expect(sent.status).toBe(200);
    const wrong = await wrongCodeFor(victim);
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await confirm(guesser, sent.body.verification_id, wrong));
    expect(answers.map((a) => [a.status, a.body.type])).toEqual([
      [422, '/problems/wrong-code'],
      [422, '/problems/wrong-code'],
      [422, '/problems/wrong-code'],
      [409, '/problems/verification-locked'],
    ]);
  });

  it('bounds the sends to one bank account a day, whoever asks', async () => {
    const account = await openBankAccount(stack, holder, 1000);
    for (let i = 0; i < SENDS_A_DAY; i += 1) expect((await send(await sameName(), account)).status).toBe(200);
    const refused = await send(await sameName(), account);
    expect([refused.status, refused.body.type]).toEqual([429, '/problems/rate-limited']);
    expect(refused.body.detail).toContain('bank-account-send-won');
    // Another account of the same name is another count.
    expect((await send(await sameName(), await openBankAccount(stack, holder, 1000))).status).toBe(200);
  });

  it('after ten wrong codes at one bank account, from any users, refuses even the right code and any new send for 20 days', async () => {
    const account = await openBankAccount(stack, holder, 1000);
    const guessers = await Promise.all(Array.from({ length: 4 }, () => sameName()));
    const verifications: string[] = [];
    for (const guesser of guessers) verifications.push((await send(guesser, account)).body.verification_id);
    const wrong = await wrongCodeFor(account);
    // Three wrong codes each from three users (each verification then locks), and one from the fourth: ten.
    for (const [i, guesser] of guessers.slice(0, 3).entries()) {
      for (let n = 0; n < 3; n += 1)
        expect((await confirm(guesser, verifications[i]!, wrong)).body.type).toBe('/problems/wrong-code');
    }
    expect((await confirm(guessers[3]!, verifications[3]!, wrong)).body.type).toBe('/problems/wrong-code');
    // The fourth user's verification has attempts left, and the right code (read here from the holder's statement): refused.
    const right = (await bankAccountLog(stack, account)).transactions.at(-1)!.printContent.slice(2);
    const refused = await confirm(guessers[3]!, verifications[3]!, right);
    expect([refused.status, refused.body.type]).toEqual([429, '/problems/rate-limited']);
    expect(refused.body.detail).toContain('bank-account-wrong-code');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(19 * 24 * 3600);
    const resend = await send(await sameName(), account);
    expect([resend.status, resend.body.detail]).toEqual([429, expect.stringContaining('bank-account-wrong-code')]);
    expect(await stack.orm.em.fork().count(BankAccountEntity, {})).toBe(0);
  });

  it('compares no more than ten of fifteen wrong codes sent at once to one bank account by five users: the rest 429', async () => {
    const account = await openBankAccount(stack, holder, 1000);
    const verifications = await verificationsAt(account, SENDS_A_DAY);
    const wrong = await codeOfNoDeposit(account);
    const answers = await Promise.all(
      verifications.flatMap(({ guesser, id }) => [1, 2, 3].map(() => confirm(guesser, id, wrong))),
    );
    const answered = (type: string) => answers.filter((a) => a.body.type === type).length;
    // Reading the budget, comparing, then counting let all fifteen be compared (PostgreSQL, where the counters are
    // shared; SQLite's one process happened to serve these one after another).
    expect([answered('/problems/wrong-code'), answered('/problems/rate-limited')]).toEqual([10, 5]);
    // What the service compared, by its own count of attempts.
    const rows = await stack.orm.em
      .fork()
      .find(BankVerificationEntity, { verificationId: { $in: verifications.map((v) => v.id) } });
    expect(rows.reduce((sum, row) => sum + row.attempts, 0)).toBe(10);
  });

  it('gives the right code its unit of the budget back: after nine wrong codes and a right one, a tenth wrong code is still compared', async () => {
    const account = await openBankAccount(stack, holder, 1000);
    const verifications = await verificationsAt(account, 4);
    const wrong = await codeOfNoDeposit(account);
    for (const { guesser, id } of verifications.slice(0, 3)) {
      for (let n = 0; n < 3; n += 1) expect((await confirm(guesser, id, wrong)).body.type).toBe('/problems/wrong-code');
    }
    // The fourth has the right code, as the holder has it from their statement (the last deposit's).
    const right = (await bankAccountLog(stack, account)).transactions.at(-1)!.printContent.slice(2);
    expect((await confirm(verifications[3]!.guesser, verifications[3]!.id, right)).status).toBe(200);
    const [late] = await verificationsAt(account, 1);
    const tenth = await confirm(late!.guesser, late!.id, await codeOfNoDeposit(account));
    expect([tenth.status, tenth.body.type]).toEqual([422, '/problems/wrong-code']);
  });
});
