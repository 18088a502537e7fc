import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSoakCluster, type SoakCluster } from './cluster';
import { Random } from './random';
import {
  livePerson,
  makePerson,
  refreshTokens,
  type Funding,
  type Operation,
  type Person,
  type Recipients,
} from './people';
import { clearFaults, driveFaults, faultSchedule, type Fault } from './faults';
import { reconcile, unsettled, type Invariant } from './reconcile';
import { call } from '../helpers/http';

export interface SoakOptions {
  seed: number;
  /** Seconds of load (and faults). */
  seconds: number;
  people: number;
  /** A fault every this many seconds on average (SOAK_FAULT_GAP_SECONDS, 8). */
  faultGapSeconds?: number;
  /** At most this long for the work to settle after the faults stop. */
  settleSeconds: number;
  /** Where the report goes (`<seed>.md`). */
  reportDir: string;
  log: (line: string) => void;
  /**
   * Called once the report is written, before the cluster stops: a test can move money behind the records' back and
   * `recheck` to see the reconciliation find it.
   */
  inspect?: (context: { cluster: SoakCluster; people: Person[]; recheck: () => Promise<Invariant[]> }) => Promise<void>;
}

export interface SoakResult {
  operations: Operation[];
  faults: Fault[];
  invariants: Invariant[];
  holds: boolean;
  /** The report's last line: `soak: N operations, N faults, invariants hold|violated: ...`. */
  summary: string;
  reportPath: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs to settings from the environment: SOAK_SEED, SOAK_SECONDS, SOAK_PEOPLE, SOAK_SETTLE_SECONDS. */
export function soakOptionsFromEnv(log: (line: string) => void, defaults: Partial<SoakOptions> = {}): SoakOptions {
  const number = (name: string, fallback: number) => {
    const raw = process.env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not "${raw}"`);
    return value;
  };
  return {
    seed: number('SOAK_SEED', defaults.seed ?? Math.floor(Math.random() * 2 ** 31)),
    seconds: number('SOAK_SECONDS', defaults.seconds ?? 180),
    people: number('SOAK_PEOPLE', defaults.people ?? 12),
    faultGapSeconds: number('SOAK_FAULT_GAP_SECONDS', defaults.faultGapSeconds ?? 8),
    settleSeconds: number('SOAK_SETTLE_SECONDS', defaults.settleSeconds ?? 240),
    reportDir: process.env.SOAK_REPORT_DIR ?? defaults.reportDir ?? join(process.cwd(), '.data', 'soak'),
    log,
  };
}

/**
 * The money soak: a cluster (two api processes behind a balancer, two workers, PostgreSQL, Temporal, two EVM chains
 * with Alto, SOLANA, the sandbox), simulated people using it as apps do while a seeded schedule of faults runs, then
 * the faults stop, the work settles, and the records are reconciled with the bank's statements and the chains.
 */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const { seed, log } = options;
  log(`soak: SOAK_SEED=${seed} SOAK_SECONDS=${options.seconds} SOAK_PEOPLE=${options.people}`);
  const cluster = await startSoakCluster({
    log,
    env: {
      // The app waits a little for a transfer, then polls; a request key cut mid-flight is taken over soon.
      TRANSFER_WAIT_SECONDS: '3',
      IDEMPOTENCY_LOCK_SECONDS: '5',
      GAS_BUDGET_DAILY_KRW: '1000000000',
      // The Travel Rule at its legal threshold (the test stacks lift it): transfers to an exchange go through TRP.
      TRAVEL_RULE_THRESHOLD_KRW: '1000000',
    },
    workerEnv: {
      BANK_TIMEOUT_MS: '2000',
      BANK_NOT_RECEIVED_AFTER_SECONDS: '6',
      CHAIN_RPC_TIMEOUT_MS: '5000',
      SCREENING_TIMEOUT_MS: '3000',
      GAS_BUDGET_DAILY_KRW: '1000000000',
    },
  });
  const started = Date.now();
  // Ctrl-C: every process the soak started is stopped before it exits.
  const interrupted = () => {
    log('interrupted: stopping the cluster');
    // People still calling can hold the stop up: it gets 30 s.
    setTimeout(() => process.exit(130), 30_000).unref();
    void cluster.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    // ---- People, before any fault ----
    log(`making ${options.people} people (registration, bank account, ETHEREUM account, SOLANA wallet)`);
    const funding: Funding[] = [];
    let funderQueue: Promise<unknown> = Promise.resolve();
    const fund = <T>(work: () => Promise<T>): Promise<T> => {
      const next = funderQueue.then(work);
      funderQueue = next.catch(() => undefined);
      return next;
    };
    const people: Person[] = [];
    for (let i = 0; i < options.people; i += 3) {
      const batch = Array.from({ length: Math.min(3, options.people - i) }, (_, j) => i + j);
      people.push(
        ...(await Promise.all(batch.map((n) => makePerson(cluster.stack, cluster.apiUrl, n, funding, fund)))),
      );
    }
    log(`people ready after ${((Date.now() - started) / 1000).toFixed(0)} s`);

    // ---- Load and faults ----
    const recipients: Recipients = {
      evm: people.map((p) => p.evmAccount),
      solana: people.map((p) => p.solanaWallet),
      outside: { ETHEREUM: new Set(), SOLANA: new Set() },
    };
    const operations: Operation[] = [];
    let seq = 0;
    const schedule = faultSchedule(new Random(seed, 'faults'), options.seconds, options.faultGapSeconds);
    const loadStart = Date.now();
    const until = loadStart + options.seconds * 1000;
    const progress = setInterval(() => {
      const done = operations.filter((o) => o.answer).length;
      log(`… ${((Date.now() - loadStart) / 1000).toFixed(0)} s: ${operations.length} operations (${done} answered)`);
    }, 30_000);
    const lives = people.map((person) =>
      livePerson({
        person,
        random: new Random(seed, `person-${person.index}`),
        apiUrl: cluster.apiUrl,
        sandboxUrl: cluster.stack.sandboxUrl,
        until,
        recipients,
        log: operations,
        nextSeq: () => ++seq,
      }),
    );
    await driveFaults(cluster, schedule, loadStart, until, log);
    await sleep(Math.max(0, until - Date.now()));

    // ---- Settle ----
    log('load over: faults off, waiting for the work to settle');
    await clearFaults(cluster);
    await Promise.all(lives);
    clearInterval(progress);
    const settleDeadline = Date.now() + options.settleSeconds * 1000;
    let open = await unsettled(cluster);
    while (open > 0 && Date.now() < settleDeadline) {
      await call(`${cluster.stack.sandboxUrl}/kftc/_transfers/settle`, { method: 'POST' });
      await sleep(2000);
      open = await unsettled(cluster);
    }
    // A last moment for what follows a record's final state (a journal, a workflow's last step).
    await sleep(3000);
    log(`settled (${open} records not final or workflows running) after ${((Date.now() - until) / 1000).toFixed(0)} s`);

    // ---- Reconcile ----
    for (const person of people) await refreshTokens(cluster.apiUrl, person);
    const invariants = await reconcile(cluster, people, funding, operations, recipients);
    const ran = schedule.filter((f) => f.ranAt !== undefined);
    const violated = invariants.filter((i) => !i.holds).map((i) => i.name);
    const summary = `soak: ${operations.length} operations, ${ran.length} faults, ${
      violated.length ? `invariants violated: ${violated.join(', ')}` : 'invariants hold'
    }`;
    const reportPath = writeReport(options, {
      operations,
      faults: ran,
      invariants,
      summary,
      processes: violated.length ? [...cluster.apis, ...cluster.workers].map((p) => [p.name, p.tail()] as const) : [],
      elapsed: (Date.now() - started) / 1000,
    });
    log(summary);
    await options.inspect?.({
      cluster,
      people,
      recheck: () => reconcile(cluster, people, funding, operations, recipients),
    });
    return { operations, faults: ran, invariants, holds: violated.length === 0, summary, reportPath };
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cluster.stop();
  }
}

function writeReport(
  options: SoakOptions,
  run: {
    operations: Operation[];
    faults: Fault[];
    invariants: Invariant[];
    summary: string;
    processes: ReadonlyArray<readonly [string, string]>;
    elapsed: number;
  },
): string {
  const byKind = new Map<string, Map<string, number>>();
  for (const op of run.operations) {
    const outcome = !op.answer
      ? 'no answer (gave up)'
      : op.answer.status >= 400
        ? `refused ${op.answer.status} ${op.answer.type?.replace('/problems/', '') ?? ''}`.trim()
        : (op.final ?? op.answer.state ?? String(op.answer.status));
    const kind = byKind.get(op.kind) ?? new Map<string, number>();
    kind.set(outcome, (kind.get(outcome) ?? 0) + 1);
    byKind.set(op.kind, kind);
  }
  const retried = run.operations.filter((o) => o.attempts > 1).length;
  const lines = [
    `# Soak, seed ${options.seed}`,
    '',
    `${options.seconds} s of load by ${options.people} people, ${run.faults.length} faults, ${run.elapsed.toFixed(0)} s in all. Replay: \`SOAK_SEED=${options.seed} SOAK_SECONDS=${options.seconds} SOAK_PEOPLE=${options.people} SOAK_FAULT_GAP_SECONDS=${options.faultGapSeconds ?? 8} npm run soak\`.`,
    '',
    '## Operations',
    '',
    '| kind | outcomes |',
    '| --- | --- |',
    ...[...byKind].map(([kind, outcomes]) => `| ${kind} | ${[...outcomes].map(([o, n]) => `${o}: ${n}`).join(', ')} |`),
    '',
    `${run.operations.length} operations; ${retried} needed more than one attempt (retried with the same Idempotency-Key); ${run.operations.reduce((n, o) => n + o.replays.length, 0)} sent again on purpose after their answer.`,
    '',
    '## Faults',
    '',
    '| at (s) | fault | what happened |',
    '| --- | --- | --- |',
    ...run.faults.map((f) => `| ${f.ranAt!.toFixed(0)} | ${f.kind} | ${f.note ?? ''} |`),
    '',
    '## Invariants',
    '',
    ...run.invariants.flatMap((i) => [
      `### ${i.holds ? 'holds' : 'VIOLATED'}: ${i.name}`,
      '',
      ...i.figures.slice(0, 40).map((f) => `- ${f}`),
      ...(i.figures.length > 40 ? [`- … ${i.figures.length - 40} more`] : []),
      '',
    ]),
    ...(run.processes.length
      ? [
          '## Process output (last lines)',
          '',
          ...run.processes.flatMap(([name, tail]) => [`### ${name}`, '', '```', tail, '```', '']),
        ]
      : []),
    run.summary,
    '',
  ];
  mkdirSync(options.reportDir, { recursive: true });
  const path = join(options.reportDir, `${options.seed}.md`);
  writeFileSync(path, lines.join('\n'));
  return path;
}
