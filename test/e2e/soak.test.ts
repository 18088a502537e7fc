import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runSoak } from '../soak/soak';

const postgres = process.env.TEST_DATABASE_URL;

/**
 * The money soak, short, at a fixed seed (`npm run soak` runs it as long as asked, at any seed): simulated people
 * charge, pay out, transfer ETH, USDT and SOL and swap on SOLANA through two api processes while workers and api
 * processes are SIGKILLed, PostgreSQL and Alto restart, the bank answers in doubt, late or not at all, the sanctions
 * provider hangs and ETHEREUM reorgs; then the records must reconcile with the bank's statements and the chains
 * (test/soak/reconcile.ts). Needs the machine's PostgreSQL server binaries (CI's, TEST_DATABASE_URL set): the soak
 * restarts a PostgreSQL server of its own. Its report: .data/soak/<seed>.md; its progress: .data/soak/<seed>.log.
 */
(postgres ? describe : describe.skip)('the money soak (short, seed 51)', () => {
  it('loses and doubles nothing: won, ledger and chains reconcile after faults', async () => {
    const reportDir = join(__dirname, '..', '..', '.data', 'soak');
    mkdirSync(reportDir, { recursive: true });
    const seed = 51;
    let tampered: string[] = [];
    const result = await runSoak({
      seed,
      seconds: 30,
      people: 4,
      faultGapSeconds: 4,
      settleSeconds: 150,
      reportDir,
      log: (line) => appendFileSync(join(reportDir, `${seed}.log`), `${new Date().toISOString()} ${line}\n`),
      // The checks can fail: money moved behind the records' back (a wei sent to a person's account, a thousand won
      // written into a balance without a journal) is found.
      inspect: async ({ cluster, people, recheck }) => {
        const chain = cluster.stack.chains[0]!;
        await (await chain.funder.sendTransaction({ to: people[0]!.evmAccount, value: 1n })).wait();
        await cluster.stack.orm.em
          .getConnection()
          .execute(`update ledger_accounts set balance = balance + 1000 where account_id = ?`, [
            `user:${people[1]!.user.userId}:KRW`,
          ]);
        tampered = (await recheck()).filter((i) => !i.holds).map((i) => i.name);
      },
    });
    expect(result.invariants.filter((i) => !i.holds)).toEqual([]);
    // It did what it says: money moved every way, and faults were injected while it did.
    expect(result.faults.length).toBeGreaterThanOrEqual(5);
    const kinds = new Set(result.operations.filter((o) => o.answer && o.answer.status < 300).map((o) => o.kind));
    expect(kinds.size).toBeGreaterThanOrEqual(5);
    expect(result.summary).toMatch(/^soak: \d+ operations, \d+ faults, invariants hold$/);
    expect(tampered.sort()).toEqual([
      'chain balances = funding and our records',
      'ledger balanced, nothing negative',
      'won balances = bank statements',
    ]);
  }, 900_000);
});
