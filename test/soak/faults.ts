import { call } from '../helpers/http';
import { bankSettings, restoreCentre } from '../helpers/bank';
import type { SoakCluster } from './cluster';
import type { Random } from './random';

export type FaultKind =
  | 'kill a worker'
  | 'kill an api process'
  | 'restart PostgreSQL'
  | 'restart Alto (ETHEREUM)'
  | 'bank answers in doubt'
  | 'bank times out'
  | 'bank refuses'
  | 'bank lands a deposit late'
  | 'sanctions provider hangs'
  | 'Travel Rule counterpart hangs'
  | 'SOLANA RPC cut'
  | 'reorg ETHEREUM';

export interface Fault {
  /** Seconds after the load starts. */
  at: number;
  kind: FaultKind;
  /** Which process, how long, how many: drawn with the schedule. */
  index: number;
  durationMs: number;
  count: number;
  /** What happened when it ran (e.g. the reorg's depth, the process restarted). */
  note?: string;
  ranAt?: number;
}

const KINDS: ReadonlyArray<readonly [FaultKind, number]> = [
  ['kill a worker', 14],
  ['kill an api process', 10],
  ['restart PostgreSQL', 6],
  ['restart Alto (ETHEREUM)', 6],
  ['bank answers in doubt', 10],
  ['bank times out', 8],
  ['bank refuses', 8],
  ['bank lands a deposit late', 6],
  ['sanctions provider hangs', 6],
  ['Travel Rule counterpart hangs', 5],
  ['SOLANA RPC cut', 6],
  ['reorg ETHEREUM', 10],
];

/** The seed's schedule of faults over `seconds` of load: one every `meanGap` seconds on average, from 3 s in. */
export function faultSchedule(random: Random, seconds: number, meanGap = 8): Fault[] {
  const faults: Fault[] = [];
  let at = 3 + random.int(0, meanGap);
  while (at < seconds - 3) {
    faults.push({
      at,
      kind: random.weighted(KINDS),
      index: random.int(0, 1),
      durationMs: random.int(2, 10) * 1000,
      count: random.int(1, 3),
    });
    at += random.int(Math.ceil(meanGap / 2), Math.ceil((meanGap * 3) / 2));
  }
  return faults;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The deepest reorg: below the confirmations the soak's cluster waits for (SOAK_CONFIRMATIONS, cluster.ts). */
export const REORG_DEPTH_MAX = 3;

/** Runs one fault to its end (a process back up, a switch turned off again). */
export async function runFault(cluster: SoakCluster, fault: Fault): Promise<void> {
  const { stack } = cluster;
  switch (fault.kind) {
    case 'kill a worker': {
      const worker = cluster.workers[fault.index]!;
      await worker.kill();
      await sleep(fault.durationMs / 2);
      worker.start();
      fault.note = `${worker.name} SIGKILLed, started again after ${fault.durationMs / 2000} s`;
      return;
    }
    case 'kill an api process': {
      const api = cluster.apis[fault.index]!;
      await api.kill();
      await sleep(fault.durationMs / 2);
      api.start();
      fault.note = `${api.name} SIGKILLed, started again after ${fault.durationMs / 2000} s`;
      return;
    }
    case 'restart PostgreSQL':
      cluster.postgres.restart();
      fault.note = 'pg_ctl restart -m fast: every connection cut';
      return;
    case 'restart Alto (ETHEREUM)':
      await cluster.restartAlto(0, fault.durationMs / 2);
      fault.note = `stopped (its mempool lost), started again after ${fault.durationMs / 2000} s`;
      return;
    case 'bank answers in doubt': {
      const outcome = fault.index === 0 ? 'completed' : 'rejected';
      await bankSettings(stack, {
        inDoubt: { times: fault.count, code: 'A0001', settleAfterMs: fault.durationMs, outcome },
      });
      fault.note = `the next ${fault.count} transfers answered A0001, ${outcome} after ${fault.durationMs / 1000} s`;
      return;
    }
    case 'bank times out':
      // Past the worker's BANK_TIMEOUT_MS: the call is abandoned, the bank still does what it was asked.
      stack.faults.set('bank', { delayMs: 4000, paths: ['/transfer/withdraw/acnt_num', '/transfer/deposit/acnt_num'] });
      await sleep(fault.durationMs);
      stack.faults.set('bank', {});
      fault.note = `withdrawals and deposits answered 4 s late for ${fault.durationMs / 1000} s`;
      return;
    case 'bank refuses':
      stack.faults.set('bank', { errorRate: 0.5, status: 503 });
      await sleep(fault.durationMs);
      stack.faults.set('bank', {});
      fault.note = `half of the centre's calls answered 503 for ${fault.durationMs / 1000} s`;
      return;
    case 'bank lands a deposit late':
      await bankSettings(stack, { lateLanding: { times: fault.count, landAfterMs: 10_000 } });
      fault.note = `the next ${fault.count} deposits unanswered, booked 10 s later`;
      return;
    case 'sanctions provider hangs':
      stack.faults.set('chainalysis', { delayMs: 30_000 });
      await sleep(fault.durationMs);
      stack.faults.set('chainalysis', {});
      fault.note = `every screening held 30 s for ${fault.durationMs / 1000} s`;
      return;
    case 'Travel Rule counterpart hangs':
      // The sandbox's exchanges (TRP) answer nothing for 60 s: longer than our wait for their decision.
      stack.faults.set('trp', { delayMs: 60_000 });
      await sleep(fault.durationMs);
      stack.faults.set('trp', {});
      fault.note = `every TRP call to the sandbox's exchanges held 60 s for ${fault.durationMs / 1000} s`;
      return;
    case 'SOLANA RPC cut':
      stack.solana!.proxy.down = true;
      await sleep(fault.durationMs);
      stack.solana!.proxy.down = false;
      fault.note = `every SOLANA RPC call cut for ${fault.durationMs / 1000} s`;
      return;
    case 'reorg ETHEREUM': {
      const chain = stack.chains[0]!;
      // Interval mining paused, so no block lands between reading the head and the reorg (finality test's drill).
      await chain.provider.send('evm_setIntervalMining', [0]);
      try {
        // Back to the newest block that carried transactions, within REORG_DEPTH_MAX (below the confirmations the
        // cluster waits for: what is final stays final); the head alone when none did.
        const head = await chain.provider.getBlockNumber();
        let depth = 1;
        let dropped = 0;
        for (let d = 1; d <= REORG_DEPTH_MAX; d += 1) {
          const count = (await chain.provider.getBlock(head - d + 1))?.transactions.length ?? 0;
          if (count > 0) {
            depth = d;
            break;
          }
        }
        for (let d = 1; d <= depth; d += 1)
          dropped += (await chain.provider.getBlock(head - d + 1))?.transactions.length ?? 0;
        await chain.provider.send('anvil_reorg', [depth, []]);
        fault.note = `the last ${depth} block(s) replaced by empty ones (${dropped} transaction(s) dropped)`;
      } finally {
        await chain.provider.send('evm_setIntervalMining', [1]);
      }
      return;
    }
  }
}

/**
 * Runs the schedule until `until` (ms epoch): each fault at its time, while the ones before it may still be under
 * way (a worker killed while the bank is in doubt and PostgreSQL restarts: faults meet as they do in production).
 * Faults on the same target (the same process, Alto, a provider's switch) wait for one another.
 */
export async function driveFaults(
  cluster: SoakCluster,
  schedule: Fault[],
  startedAt: number,
  until: number,
  log: (line: string) => void,
): Promise<void> {
  const lanes = new Map<string, Promise<void>>();
  const running: Array<Promise<void>> = [];
  for (const fault of schedule) {
    const due = startedAt + fault.at * 1000;
    if (due >= until) break;
    if (due > Date.now()) await sleep(due - Date.now());
    const lane = targetOf(fault);
    const run = (lanes.get(lane) ?? Promise.resolve()).then(async () => {
      if (Date.now() >= until) return;
      fault.ranAt = (Date.now() - startedAt) / 1000;
      try {
        await runFault(cluster, fault);
      } catch (error) {
        fault.note = `could not be injected: ${String(error)}`;
      }
      log(`fault at ${fault.ranAt.toFixed(0)} s: ${fault.kind} - ${fault.note}`);
    });
    lanes.set(lane, run);
    running.push(run);
  }
  await Promise.all(running);
}

/** What a fault acts on: two faults on one target never run at once. */
function targetOf(fault: Fault): string {
  switch (fault.kind) {
    case 'kill a worker':
    case 'kill an api process':
      return `${fault.kind}:${fault.index}`;
    case 'bank answers in doubt':
    case 'bank lands a deposit late':
      return 'bank settings';
    case 'bank times out':
    case 'bank refuses':
      return 'bank faults';
    default:
      return fault.kind;
  }
}

/** Every fault off: processes up, switches cleared, Alto and the SOLANA RPC reachable, the bank's held transfers landed. */
export async function clearFaults(cluster: SoakCluster): Promise<void> {
  const { stack } = cluster;
  stack.faults.clear();
  await restoreCentre(stack);
  stack.solana!.proxy.down = false;
  for (const process of [...cluster.apis, ...cluster.workers]) process.start();
  await call(`${stack.sandboxUrl}/kftc/_transfers/settle`, { method: 'POST' });
}
