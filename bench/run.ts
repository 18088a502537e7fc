/**
 * `npm run bench`: the production-mode api and worker (compiled, NODE_ENV=production) on PostgreSQL and the Temporal
 * dev server, all on loopback, measured against baselines taken in the same run. Every figure is a ratio, so it holds
 * on a noisy machine. Writes BENCHMARKS.md and .data/bench-results.json.
 *
 * PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin URL; a fresh database is created and dropped), else a
 * PostgreSQL server of its own (the machine's PostgreSQL binaries, as `bash .ci/run` installs them) in a scratch folder.
 * The cluster row runs the Temporal server (npm run temporal:cluster) on a PostgreSQL server of its own too.
 * Options: BENCH_SECONDS (load duration per measurement, 10), BENCH_CONNECTIONS (10), BENCH_CHARGES (40),
 * BENCH_ONLY=overhead (the API-overhead rows only, printed; BENCHMARKS.md untouched), BENCH_CPU_PROF=1 (V8 CPU profiles),
 * BENCH_API_FLAGS, BENCH_WORKER_FLAGS (node flags instead of the Dockerfile CMD's and docker-compose.yml's), BENCH_TRANSFER_LEVELS
 * (10,100), BENCH_ONLY=transfers (the end-to-end transfer rows, printed), BENCH_ONLY=rest (memory at rest, printed),
 * BENCH_TRANSFER_WORKFLOW_VERSION (the api's TRANSFER_WORKFLOW_VERSION: 3, 4 or 5, to compare the transfer's versions; the bench's chains send locally, so 5 by default).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, totalmem, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID, generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { Client as PgClient } from 'pg';
import { Wallet } from 'ethers';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createDataConverter } from '../platform/temporal';
import { DataEncryption } from '../platform/data-encryption';
import { resolveTemporalCli } from '../dev/temporal-cli';
import { startTemporalDevServer } from '../dev/temporal-dev-server';
import { startPostgresInstance, POSTGRES_SUPERUSER, type PostgresInstance } from '../dev/postgres-instance';
import { startTemporalCluster } from '../dev/temporal-cluster';
import {
  ANVIL_PAYMASTER_SIGNER_KEY,
  ANVIL_RECOVERY_ADDRESS,
  ANVIL_RECOVERY_KEY,
  ensureChainContracts,
  startAnvil,
  type RunningChain,
  LOCAL_INCLUSION_WATCH_MS,
} from '../dev/chains';
import { startAlto } from '../dev/alto';
import { bundling, gasPerOperation, type BundlingRow, type GasRow } from './gas';
import { quoterCalls } from './quote-calls';
import { localDexNetwork, seedPools } from '../dev/uniswap';
import { priceAtMs } from '../sandbox/upbit-quotation';
import { SMALL_LEVEL_ROUNDS, transfersEndToEnd, type TransferLevel } from './transfers';
import { NetworkRegistry } from '../platform/networks';
import { buildContracts } from '../contracts/build';
import { createSandboxApp } from '../sandbox/app';
import { travelRuleIdentities } from '../sandbox/travel-rule-network';
import { newSandboxCredentials, sandboxOptionsFor, sandboxServiceEnv } from '../sandbox/service-env';
import { createOrm } from '../db/orm';
import { WORKFLOW_BUNDLE_OPTIONS } from '../worker/workflow-bundle';
import { DEFAULT_RATE_LIMITS } from '../api/http/rate-limits';
import { MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES } from '../integrations/evm/user-operation';
import { chargeWorkflowId, keyRotationWorkflowId } from '../workflows/messages';
import { freePort } from '../test/helpers/global-setup';
import { call, registerUser, type RegisteredUser } from '../test/helpers/http';
import { connectBankAccount, openBankAccount } from '../test/helpers/bank';
import { bearer, deployAccount } from '../test/helpers/wallet';
import { calibrationMs } from './calibration';

const ROOT = join(__dirname, '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CHARGES = Number(process.env.BENCH_CHARGES ?? 40);
const ROTATIONS = 3;
/** Runs of the quote and charge-start pairs: their median ratio is reported. */
const RUNS = 3;
/** Users at once in the end-to-end transfer rows (BENCH_TRANSFER_LEVELS, comma-separated). */
const TRANSFER_LEVELS = (process.env.BENCH_TRANSFER_LEVELS ?? '10,100').split(',').map(Number);
if (!TRANSFER_LEVELS.every((n) => Number.isInteger(n) && n > 0))
  throw new Error(
    `BENCH_TRANSFER_LEVELS: positive whole numbers separated by commas, not "${process.env.BENCH_TRANSFER_LEVELS}"`,
  );
/** The rate limits and gas budget of the run: the load comes from few users and one address; they are not measured. */
const BENCH_RATE_LIMITS: Record<string, { points: number; seconds: number }> = Object.fromEntries(
  Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 10_000_000, seconds: 60 }]),
);
const BENCH_GAS_BUDGET_KRW = 10_000_000;
/** Blocks (the including one counted) before the bench chains' operations are final: three one-second blocks. */
const BENCH_CONFIRMATIONS = 3;
const NETWORK_IDS = ['ETHEREUM', 'POLYGON', 'BASE', 'ARBITRUM', 'OPTIMISM'];
/** The quote rows' trade: 1.5 ETH for USDT on ETHEREUM. */
const QUOTE_AMOUNT_WEI = 1_500_000_000_000_000_000n;
const children: ChildProcess[] = [];
const log = (line: string) => console.log(`[bench] ${line}`);

function spawnService(name: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr?.on('data', (d: Buffer) => process.stderr.write(`  ${name} | ${d}`));
  child.stdout?.resume();
  children.push(child);
  return child;
}

async function waitForHttp(url: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (
    !(await fetch(url).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (Date.now() > deadline) throw new Error(`${url} did not become ready`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU time (ms) a process has used: utime + stime from /proc (clock ticks of 10 ms). */
const cpuMsOf = (pid: number): number => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
};
const postgresPids = (): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    });
/** CPU used so far by each part of the set-up, and by the whole machine (busy and total, ms over all cores). */
interface CpuSnapshot {
  parts: Record<string, number>;
  busy: number;
  total: number;
}
function cpuSnapshot(pids: Record<string, number | undefined>): CpuSnapshot {
  const parts: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) parts[name] = pid ? cpuMsOf(pid) : 0;
  parts.postgres = postgresPids().reduce((sum, pid) => sum + cpuMsOf(pid), 0);
  const { user, system } = process.cpuUsage();
  parts['bench (load generator)'] = (user + system) / 1000;
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  const idle = ticks[3]! + ticks[4]!;
  const total = ticks.reduce((a, b) => a + b, 0);
  return { parts, busy: (total - idle) * 10, total: total * 10 };
}
/** Per request: CPU ms of each part, and how busy the machine was over the phase. */
function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number) {
  const perRequest = Object.fromEntries(
    Object.keys(after.parts).map((k) => [k, Math.round(((after.parts[k]! - before.parts[k]!) / requests) * 100) / 100]),
  );
  return {
    perRequest,
    machineBusyPercent: Math.round(((after.busy - before.busy) / (after.total - before.total)) * 100),
  };
}

/** Peak resident set size of a process so far (VmHWM), in MiB. */
const statusKiB = (pid: number, field: string): number =>
  Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const peakRssMiB = (pid: number): number => statusKiB(pid, 'VmHWM') / 1024;
/**
 * Starts a process's peak (VmHWM) again from its resident memory now (Linux's clear_refs, 5): the transfer rows read
 * both workers' peaks under their own load, not ours over the users' set-up, which the baseline worker never does.
 */
const resetPeakRss = (pid: number): void => writeFileSync(`/proc/${pid}/clear_refs`, '5');
/**
 * Waits until the processes' resident memory stops falling: no drop of 2 MiB over 6 s, 45 s at most. V8 collects a
 * heap the work before left large some seconds after that work ends (its memory reducer); a peak started again before
 * then starts at that garbage. One transfers-only run read our worker's peak "under the transfer rows" at 514 MiB,
 * its resident memory at the reset, the set-up's heap not yet collected (bench/NOTES.md, step 13).
 */
async function rssSettled(pids: number[]): Promise<{ seconds: number; rssMiB: number[] }> {
  const rss = (pid: number) => statusKiB(pid, 'VmRSS') / 1024;
  const started = Date.now();
  let lows = pids.map(rss);
  let lastDrop = started;
  while (Date.now() - started < 45_000 && Date.now() - lastDrop < 6_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = pids.map(rss);
    if (now.some((value, i) => value < lows[i]! - 2)) lastDrop = Date.now();
    lows = lows.map((low, i) => Math.min(low, now[i]!));
  }
  return { seconds: Math.round((Date.now() - started) / 1000), rssMiB: pids.map((pid) => Math.round(rss(pid))) };
}
/** Waits until the worker's first start stored the sanctions list (it downloads and stores it at once), 120 s at most. */
async function sanctionsListStored(databaseUrl: string): Promise<void> {
  const db = new PgClient({ connectionString: databaseUrl });
  await db.connect();
  try {
    const deadline = Date.now() + 120_000;
    while ((await db.query("select 1 from sanctions_lists where source = 'ofac-sdn'")).rowCount === 0) {
      if (Date.now() > deadline) throw new Error('the worker stored no sanctions list within 120 s of its start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await db.end();
  }
}
/** Both workers settled (rssSettled), then their peaks started again: what the transfer rows' peak row reads. */
async function peaksFromSettled(worker: number, baselineWorker: number, log: (line: string) => void): Promise<void> {
  const { seconds, rssMiB } = await rssSettled([worker, baselineWorker]);
  log(`  both workers settled after ${seconds} s (resident ${rssMiB[0]} and ${rssMiB[1]} MiB); their peaks start here`);
  resetPeakRss(worker);
  resetPeakRss(baselineWorker);
}
/** Resident memory now: the process's own (anonymous: heap, stacks) and mapped files (the node binary, native modules). */
/** The api's session_cache_lookups_total by result (its metrics endpoint). */
async function sessionLookups(metricsPort: number): Promise<{ hit: number; miss: number; off: number }> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const count = (result: string) =>
    Number(
      new RegExp(`^session_cache_lookups_total\\{[^}]*result="${result}"[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0,
    );
  return { hit: count('hit'), miss: count('miss'), off: count('off') };
}

/** A process's db_statements_total (its metrics endpoint): every statement it sent to the database. */
async function databaseStatements(metricsPort: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^db_statements_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? NaN);
}

type Rss = { anonMiB: number; fileMiB: number };
const rssNow = (pid: number): Rss => ({
  anonMiB: Math.round(statusKiB(pid, 'RssAnon') / 1024),
  fileMiB: Math.round(statusKiB(pid, 'RssFile') / 1024),
});

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpu?: ReturnType<typeof cpuPerRequest>;
}
let watched: Record<string, number | undefined> = {};
async function load(options: autocannon.Options, warmUp = true): Promise<Load> {
  if (warmUp) await autocannon({ ...options, duration: 2 }); // not counted
  const before = cpuSnapshot(watched);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const cpu = cpuPerRequest(before, cpuSnapshot(watched), result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    cpu,
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
/**
 * Where a key rotation's time went, from the histories of its workflow and its per-network children: how long each
 * child took to start, how long activity tasks waited in the task queue, and how long each activity ran.
 */
async function rotationBreakdown(
  client: Client,
  workflowId: string,
): Promise<{ childStartMs: number[]; queueWaitMs: number[]; runMs: Record<string, number[]> }> {
  const E = temporal.api.enums.v1.EventType;
  const at = (e: temporal.api.history.v1.IHistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
  const parent = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const initiated = new Map(
    parent
      .filter((e) => e.eventType === E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
      .map((e) => [Number(e.eventId), e]),
  );
  const childStartMs: number[] = [];
  const children: string[] = [];
  for (const e of parent.filter((x) => x.eventType === E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED)) {
    const attrs = e.childWorkflowExecutionStartedEventAttributes!;
    childStartMs.push(at(e) - at(initiated.get(Number(attrs.initiatedEventId))!));
    children.push(attrs.workflowExecution!.workflowId!);
  }
  const queueWaitMs: number[] = [];
  const runMs: Record<string, number[]> = {};
  for (const id of [workflowId, ...children]) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    for (const done of events.filter((e) => e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED)) {
      const { scheduledEventId, startedEventId } = done.activityTaskCompletedEventAttributes!;
      const scheduled = byId.get(Number(scheduledEventId))!;
      const started = byId.get(Number(startedEventId))!;
      queueWaitMs.push(at(started) - at(scheduled));
      (runMs[scheduled.activityTaskScheduledEventAttributes!.activityType!.name!] ??= []).push(at(done) - at(started));
    }
  }
  return { childStartMs, queueWaitMs, runMs };
}

/**
 * bench/'s baselines compiled to dist/bench (CommonJS, as tsc compiles the api: bare Koa's import of the api's session
 * statement resolves to dist/api), and the baseline workflows bundled to dist/bench/baseline-workflow-bundle.js.
 */
async function compileBaselines(): Promise<string> {
  const { transformFileSync } = await import('@swc/core');
  mkdirSync(join(ROOT, 'dist/bench'), { recursive: true });
  for (const name of ['bare-koa', 'baseline-worker', 'baseline-activities', 'baseline-workflows', 'start-loop']) {
    const { code } = transformFileSync(join(ROOT, `bench/${name}.ts`), {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    writeFileSync(join(ROOT, `dist/bench/${name}.js`), code);
  }
  const { bundleWorkflowCode, DefaultLogger } = await import('@temporalio/worker');
  // Bundled as the worker's workflows are (their source map without the sources' text): the baseline worker differs
  // from ours by what we load, not by a bundling choice either could make.
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(ROOT, 'dist/bench/baseline-workflows.js'),
    logger: new DefaultLogger('WARN'),
    ...WORKFLOW_BUNDLE_OPTIONS,
  });
  const path = join(ROOT, 'dist/bench/baseline-workflow-bundle.js');
  writeFileSync(path, code);
  return path;
}

/** CPU per transfer of each process the transfer rows use: the stack's, the ETHEREUM chain's node and bundler, the baseline worker. */
const transferCpu = (chain: { process: ChildProcess; bundlerPid?: number }, baselineWorkerPid: number | undefined) => {
  const pids = () => ({
    ...watched,
    anvil: chain.process.pid,
    alto: chain.bundlerPid,
    'baseline worker': baselineWorkerPid,
  });
  return {
    snapshot: () => cpuSnapshot(pids()),
    per: (before: unknown, count: number) => cpuPerRequest(before as CpuSnapshot, cpuSnapshot(pids()), count),
  };
};

/** Charge starts through an api for SECONDS (the worker stopped: only starts count), each with an Idempotency-Key of its own. */
const chargeStarts = (url: string, user: RegisteredUser, bankCode: string, connections: number) =>
  load(
    {
      url: `${url}/api/v1/charge/execute`,
      method: 'POST',
      connections,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            headers: { ...bearer(user), 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body: JSON.stringify({ source: bankCode, amount: '1000', currency: 'KRW' }),
          }),
        },
      ],
    },
    false,
  );

/** The item whose `value` is the median of an odd number of items. */
const medianBy = <T>(items: T[], value: (item: T) => number): T =>
  [...items].sort((x, y) => value(x) - value(y))[Math.floor(items.length / 2)]!;

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;

/** CPU ms per transfer of all the processes a round watched, the load generator (the bench itself) apart. */
const cpuTotal = (round: { cpu?: { perRequest: Record<string, number> } }): number =>
  Math.round(
    Object.entries(round.cpu?.perRequest ?? {})
      .filter(([process]) => !process.startsWith('bench'))
      .reduce((sum, [, ms]) => sum + ms, 0) * 10,
  ) / 10;

/** A PostgreSQL server of the bench's own, in a scratch folder (removed at the end). */
async function ownPostgres(): Promise<PostgresInstance> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-bench-pg-'));
  chmodSync(dir, 0o755); // run as the postgres user under root
  const instance = startPostgresInstance(join(dir, 'postgresql'), await freePort());
  scratch.push(() => {
    instance.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return instance;
}
const scratch: Array<() => void> = [];
/** What a failed run stops before it exits: the Temporal dev server, the chains and their bundlers, as each starts. */
const stopOnFailure: Array<() => Promise<void>> = [];

/** The gas and bundling measurements (bench/gas.ts): local chains of their own, no service. */
async function measureGas() {
  log('gas per user operation against SimpleAccount (one chain, Alto, our paymaster on both sides)');
  const gas = await gasPerOperation(log);
  log('bundling: sponsored transfers at once on one executor key, bundled vs one operation per bundle');
  const bundled = await bundling(log);
  return { gas, bundling: bundled };
}

async function main(): Promise<void> {
  if (process.env.BENCH_ONLY === 'gas') {
    // A quick loop for gas work: the gas and bundling rows only, printed, BENCHMARKS.md left as it is.
    buildContracts({ log });
    const { gas, bundling: rows } = await measureGas();
    for (const row of gas) log(`${row.operation}: ${row.ratio.toFixed(3)} (${row.ours} / ${row.reference})`);
    for (const row of rows)
      log(
        `${row.users} at once: ${(row.bundled.opsPerSecond / row.single.opsPerSecond).toFixed(2)}x op/s, gas ${(row.bundled.gasPerOperation / row.single.gasPerOperation).toFixed(2)}`,
      );
    return;
  }
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? (await ownPostgres()).url;
  const started = Date.now();
  // Before anything of the bench runs: the machine's speed, for reading the absolute CPU figures across runs.
  const machineWorkMs = calibrationMs();
  log(`the machine's fixed work (bench/calibration.ts): ${machineWorkMs} ms of CPU (median of 5)`);

  log('building the production bundle (npm run build) and the contracts');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  buildContracts({ log });
  // The baselines compiled like the api and worker (no tsx loader in their memory), the baseline worker with its
  // workflows bundled ahead as ours are.
  const baselineWorkflowBundle = await compileBaselines();
  mkdirSync(join(ROOT, 'dist/contracts/build'), { recursive: true });
  cpSync(join(ROOT, 'contracts/build'), join(ROOT, 'dist/contracts/build'), { recursive: true });

  const dbName = `wallet_bench_${randomBytes(4).toString('hex')}`;
  const admin = new PgClient({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  await (await createOrm(databaseUrl, { migrate: true })).close();

  log('Temporal dev server, five local chains and their bundlers (Alto), the sandbox');
  const temporal = await startTemporalDevServer({
    cliPath: resolveTemporalCli({ build: true, log }),
    port: await freePort(),
  });
  stopOnFailure.push(() => temporal.stop());
  const chains: Array<
    RunningChain & Awaited<ReturnType<typeof ensureChainContracts>> & { bundlerUrl: string; bundlerPid?: number }
  > = [];
  for (const [i] of NETWORK_IDS.entries()) {
    // A block a second besides one per transaction, as a live chain makes them: deployments and other owner-signed
    // operations complete once BENCH_CONFIRMATIONS deep (on chains that mine only on demand they never would).
    const chain = await startAnvil({ chainId: 31337 + i, port: await freePort(), blockTimeSeconds: 1 });
    stopOnFailure.push(() => chain.stop());
    const contracts = await ensureChainContracts(chain.rpcUrl);
    // ETHEREUM's exchange: the local Uniswap v3's pools at the sandbox market's prices (what the quote rows read).
    if (i === 0)
      await seedPools(chain.rpcUrl, 'ETHEREUM', contracts.uniswap, contracts.usdt, (symbol) =>
        priceAtMs(symbol, Date.now()),
      );
    const bundler = await startAlto({ rpcUrl: chain.rpcUrl, entryPoint: contracts.entryPoint, port: await freePort() });
    stopOnFailure.push(() => bundler.stop());
    chains.push({
      ...chain,
      ...contracts,
      bundlerUrl: bundler.url,
      bundlerPid: bundler.process.pid,
      stop: async () => {
        await bundler.stop();
        await chain.stop();
      },
    });
  }
  const networks = Object.fromEntries(
    chains.map((c, i) => [
      NETWORK_IDS[i],
      {
        kind: 'evm',
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        entryPoint: c.entryPoint,
        bundlerUrl: c.bundlerUrl,
        accountFactory: c.accountFactory,
        paymaster: c.paymaster,
        didRegistry: c.didRegistry,
        recoverableImplementation: c.recoverableImplementation,
        confirmations: BENCH_CONFIRMATIONS,
        inclusionWatchMs: LOCAL_INCLUSION_WATCH_MS,
        // The local chains include at once: a transfer's send runs in the workflow's worker (version 5).
        transferSendLocal: true,
        ...(i === 0
          ? localDexNetwork('ETHEREUM', c.uniswap, c.usdt)
          : { tokens: { USDT: { address: c.usdt, decimals: 6 } } }),
      },
    ]),
  );
  const credentials = newSandboxCredentials();
  const sandbox = createSandboxApp(
    sandboxOptionsFor(credentials, { callbackUrl: '', travelRule: travelRuleIdentities() }),
  );
  const sandboxServer = sandbox.koa.listen(0, '127.0.0.1');
  await new Promise((r) => sandboxServer.once('listening', r));
  await new Promise<void>((resolve) => sandbox.smtp.listen(0, '127.0.0.1', resolve));
  const sandboxUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
  const smtpPort = (sandbox.smtp.server.address() as AddressInfo).port;
  const sandboxServers = { close: () => (sandboxServer.close(), sandbox.smtp.close()) };

  const jwk = (kid: string) =>
    JSON.stringify({ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid });
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const taskQueue = 'wallet';
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    JWT_PRIVATE_JWK: jwk('bench-jwt'),
    PIN_ENCRYPTION_JWK: jwk('bench-pin'),
    DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    VC_ISSUER_KEY: randomBytes(32).toString('base64url'),
    ...sandboxServiceEnv({ url: sandboxUrl, smtpPort }, credentials),
    VC_STATUS_BASE_URL: apiUrl,
    NETWORKS: JSON.stringify(networks),
    PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
    RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
    RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
    // The load comes from one user and one address; the limits are not what is measured here.
    RATE_LIMITS: JSON.stringify(BENCH_RATE_LIMITS),
    GAS_BUDGET_DAILY_KRW: String(BENCH_GAS_BUDGET_KRW),
    // The transfer rows send each transfer to a recipient of its own: usable at once (still recorded), no passkey.
    ADDRESS_COOLING_OFF_SECONDS: '0',
  };
  log(
    `rate limits: every rule 10,000,000 points a minute; gas budget ${BENCH_GAS_BUDGET_KRW} won per user a day; new recipients usable at once (ADDRESS_COOLING_OFF_SECONDS 0)`,
  );
  sandbox.setCallbackUrl(`${apiUrl}/v1/auth/pass/callback`);

  log('api and worker (node dist/…, NODE_ENV=production), bare Koa baseline, baseline worker');
  // BENCH_CPU_PROF=1 writes V8 CPU profiles of the api and worker to .data/cpu-profiles (open them in Chrome DevTools).
  const profiling = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, '.data/cpu-profiles')}`]
    : [];
  // BENCH_HEAP_SNAPSHOT=1 writes heap snapshots of the api (Heap.*.heapsnapshot in .data/heap-snapshots) at rest and
  // right after the quote load, the api's peak.
  const heapSnapshots = process.env.BENCH_HEAP_SNAPSHOT ? join(ROOT, '.data/heap-snapshots') : undefined;
  if (heapSnapshots) mkdirSync(heapSnapshots, { recursive: true });
  const snapshotting = heapSnapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshots}`] : [];
  const snapshot = async (pid: number) => {
    if (!heapSnapshots) return;
    const before = readdirSync(heapSnapshots).length;
    process.kill(pid, 'SIGUSR2');
    while (readdirSync(heapSnapshots).length === before) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 5000)); // written synchronously by the api: its next answer is after
    log(`heap snapshot of the api written to ${heapSnapshots}`);
  };
  // The api runs with the node flags of the image's command (Dockerfile CMD), or BENCH_API_FLAGS for tuning experiments.
  const imageCmd = JSON.parse(/^CMD (\[.*\])$/m.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))![1]!) as string[];
  const apiFlags =
    process.env.BENCH_API_FLAGS !== undefined
      ? process.env.BENCH_API_FLAGS.split(' ').filter(Boolean)
      : imageCmd.slice(1, -1);
  log(`api node flags: ${apiFlags.join(' ') || '(none)'}`);
  // The api's metrics: how many of the profile load's session checks its session cache served.
  const apiMetricsPort = await freePort();
  const api = spawnService('api', [...profiling, ...snapshotting, ...apiFlags, 'dist/api/main.js'], {
    ...env,
    METRICS_PORT: String(apiMetricsPort),
    // BENCH_TRANSFER_WORKFLOW_VERSION: the transfers' workflow version (TRANSFER_WORKFLOW_VERSION), to compare two.
    ...(process.env.BENCH_TRANSFER_WORKFLOW_VERSION
      ? { TRANSFER_WORKFLOW_VERSION: process.env.BENCH_TRANSFER_WORKFLOW_VERSION }
      : {}),
  });
  // The worker with the node flags of its command in docker-compose.yml, or BENCH_WORKER_FLAGS.
  const composeWorker = /command: \['node', (.*)'dist\/worker\/main\.js'\]/.exec(
    readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'),
  );
  const workerFlags =
    process.env.BENCH_WORKER_FLAGS !== undefined
      ? process.env.BENCH_WORKER_FLAGS.split(' ').filter(Boolean)
      : [...(composeWorker?.[1] ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]!);
  log(`worker node flags: ${workerFlags.join(' ') || '(none)'}`);
  const workerMetricsPort = await freePort();
  const worker = spawnService('worker', [...profiling, ...workerFlags, 'dist/worker/main.js'], {
    ...env,
    METRICS_PORT: String(workerMetricsPort),
  });
  /** Statements each process sent to the database so far (the transfer rows' per-transfer counts). */
  const statements = async () => ({
    api: await databaseStatements(apiMetricsPort),
    worker: await databaseStatements(workerMetricsPort),
  });
  // The baseline worker runs with our worker's node flags (its heap sized the same way), so the memory rows compare
  // the code, not the flags.
  const baselineWorker = spawnService(
    'baseline-worker',
    [...workerFlags, 'dist/bench/baseline-worker.js', temporal.address, 'bench-baseline', baselineWorkflowBundle],
    {},
  );
  await waitForHttp(`${apiUrl}/readyz`);
  const barePort = await freePort();
  const bareKoa = spawnService(
    'bare-koa',
    ['dist/bench/bare-koa.js', String(barePort), `${apiUrl}/.well-known/jwks.json`, databaseUrl],
    { NODE_ENV: 'production', BENCH_QUOTE_CALLS: JSON.stringify(await quoterCalls(chains[0]!, QUOTE_AMOUNT_WEI)) },
  );
  await waitForHttp(`http://127.0.0.1:${barePort}/`);
  // Its memory at rest only: bare Koa with the Temporal client loaded and connected.
  const bareTemporalPort = await freePort();
  const bareKoaTemporal = spawnService(
    'bare-koa-temporal',
    [
      'dist/bench/bare-koa.js',
      String(bareTemporalPort),
      `${apiUrl}/.well-known/jwks.json`,
      databaseUrl,
      temporal.address,
    ],
    { NODE_ENV: 'production' },
  );
  await waitForHttp(`http://127.0.0.1:${bareTemporalPort}/`);
  watched = { api: api.pid, worker: worker.pid, temporal: temporal.process.pid, 'bare Koa': bareKoa.pid };
  await new Promise((r) => setTimeout(r, 1000));
  // What the full worker held one second after the api was ready: its first start may still be reading the sanctions
  // list then (a first start downloads and stores it at once), so this is not the worker at rest (reported apart).
  const workerStarting = rssNow(worker.pid!);
  // At rest: every process's start-up work done (the worker's: the sanctions list stored), then their resident memory
  // no longer falling (V8 gives back what the start-up left some seconds after it ends), the baselines' alike.
  await sanctionsListStored(databaseUrl);
  const settled = await rssSettled([api, worker, bareKoa, baselineWorker, bareKoaTemporal].map((child) => child.pid!));
  log(`processes at rest after ${settled.seconds} s (resident ${settled.rssMiB.join(', ')} MiB)`);
  const idleMemory = {
    api: rssNow(api.pid!),
    worker: rssNow(worker.pid!),
    bareKoa: rssNow(bareKoa.pid!),
    baselineWorker: rssNow(baselineWorker.pid!),
    bareKoaTemporal: rssNow(bareKoaTemporal.pid!),
  };
  // The same worker started for part of the roles (WORKER_CAPABILITIES, docs/production.md), measured at rest
  // on a task queue of its own, then stopped before any load: the workflows alone, the capabilities alone; and the
  // full worker started again, its sanctions list stored by the first one (which downloaded it at its start).
  const splitIdle: Record<'workflows' | 'capabilities' | 'restarted', Rss> = {
    workflows: await idleSplitWorker('worker-workflows', 'workflows'),
    capabilities: await idleSplitWorker('worker-capabilities', 'chains,bank,messaging,compliance'),
    restarted: await idleSplitWorker('worker-restarted', 'workflows,chains,bank,messaging,compliance'),
  };
  async function idleSplitWorker(name: string, roles: string): Promise<Rss> {
    const child = spawnService(name, [...workerFlags, 'dist/worker/main.js'], {
      ...env,
      TEMPORAL_TASK_QUEUE: 'bench-split',
      WORKER_CAPABILITIES: roles,
      // Its 'worker started' line says when it is ready.
      LOG_LEVEL: 'info',
    });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += String(d);
        if (out.includes('worker started')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before it started`)));
    });
    // At rest as the full worker is measured: its resident memory no longer falling.
    await rssSettled([child.pid!]);
    const idle = rssNow(child.pid!);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    return idle;
  }
  await snapshot(api.pid!);
  if (process.env.BENCH_ONLY === 'rest') {
    // A quick loop for memory work: the processes' resident memory at rest, printed, BENCHMARKS.md left as it is.
    const mib = (r: { anonMiB: number; fileMiB: number }) => r.anonMiB + r.fileMiB;
    for (const [name, ours, base] of [
      ['api over bare Koa with the Temporal client', idleMemory.api, idleMemory.bareKoaTemporal],
      ['api over bare Koa', idleMemory.api, idleMemory.bareKoa],
      ['worker / baseline worker', idleMemory.worker, idleMemory.baselineWorker],
      ['worker one second after the api was ready / baseline worker', workerStarting, idleMemory.baselineWorker],
      ['worker for the workflows alone / baseline worker', splitIdle.workflows, idleMemory.baselineWorker],
      ['worker for the capabilities alone / baseline worker', splitIdle.capabilities, idleMemory.baselineWorker],
      ['full worker started again / baseline worker', splitIdle.restarted, idleMemory.baselineWorker],
    ] as const)
      log(
        `${name}: ${mib(ours)} (${ours.anonMiB} + ${ours.fileMiB}) against ${mib(base)} (${base.anonMiB} + ${base.fileMiB}) MiB: ${name.includes('/') ? (mib(ours) / mib(base)).toFixed(2) + 'x' : '+' + (mib(ours) - mib(base))}`,
      );
    await shutdown(chains, temporal, sandboxServers, admin, dbName);
    return;
  }

  const stack = { apiUrl, sandboxUrl };
  const results: Record<string, unknown> = { machineWorkMs };
  const transferNetwork = NetworkRegistry.fromJson(JSON.stringify(networks)).get('ETHEREUM')!;
  if (process.env.BENCH_ONLY === 'transfers') {
    // A quick loop for the end-to-end transfer rows: printed, BENCHMARKS.md left as it is.
    log(`transfers end to end: ${TRANSFER_LEVELS.join(' and ')} users at once`);
    const connection = await Connection.connect({ address: temporal.address });
    const temporalClient = new Client({
      connection,
      dataConverter: createDataConverter(new DataEncryption(env.DATA_ENCRYPTION_KEY!)),
    });
    await transfersEndToEnd({
      stack,
      network: transferNetwork,
      log,
      levels: TRANSFER_LEVELS,
      temporalClient,
      baseline: { client: new Client({ connection }), taskQueue: 'bench-baseline' },
      cpu: transferCpu(chains[0]!, baselineWorker.pid),
      statements,
      atMeasuredLoad: async () => {
        log(
          `  worker peak RSS before the measured rounds (the users' set-up): ${Math.round(peakRssMiB(worker.pid!))} MiB`,
        );
        await peaksFromSettled(worker.pid!, baselineWorker.pid!, log);
      },
    });
    await connection.close();
    log(
      `worker peak RSS under the measured rounds ${Math.round(peakRssMiB(worker.pid!))} MiB, the baseline worker's ${Math.round(peakRssMiB(baselineWorker.pid!))} MiB`,
    );
    await shutdown(chains, temporal, sandboxServers, admin, dbName);
    return;
  }
  const user: RegisteredUser = await registerUser(stack);

  // ---- API overhead
  log(`API overhead: ${CONNECTIONS} connections, ${SECONDS} s each`);
  const bare = await load({ url: `http://127.0.0.1:${barePort}/` });
  const bareJwt = await load({ url: `http://127.0.0.1:${barePort}/jwt`, headers: bearer(user) });
  const bareJwtDb = await load({ url: `http://127.0.0.1:${barePort}/jwt-db`, headers: bearer(user) });
  // The revocation check's pair, alternated twice and the better run of each kept: the first load of a pair pays for
  // warming up, which would otherwise be read as the check's cost (or its saving).
  const better = (x: Load, y: Load) => (x.rps >= y.rps ? x : y);
  const userRead = () => load({ url: `http://127.0.0.1:${barePort}/jwt-user`, headers: bearer(user) });
  const sessionRead = () => load({ url: `http://127.0.0.1:${barePort}/jwt-session`, headers: bearer(user) });
  let bareJwtUser = await userRead();
  let bareJwtSession = await sessionRead();
  bareJwtUser = better(bareJwtUser, await userRead());
  bareJwtSession = better(bareJwtSession, await sessionRead());
  // Bare Koa after all its loads: the api's after-load figure is read against this one.
  const bareKoaAfterLoad = rssNow(bareKoa.pid!);
  const health = await load({ url: `${apiUrl}/healthz` });
  // Quote against its building block three times, each pair measured together; the median ratio's pair is reported.
  const quoteLoad = () =>
    load({
      url: `${apiUrl}/v1/exchange/quote`,
      method: 'POST',
      headers: { ...bearer(user), 'content-type': 'application/json' },
      body: JSON.stringify({
        source: 'ETH',
        target: 'USDT',
        networkId: 'ETHEREUM',
        direction: 'exactInput',
        amount: '1.5',
      }),
    });
  const quoteBase = () => load({ url: `http://127.0.0.1:${barePort}/jwt-quote`, headers: bearer(user) });
  const quotePairs: Array<{ quote: Load; base: Load }> = [];
  for (let i = 0; i < RUNS; i += 1) {
    const base = await quoteBase();
    quotePairs.push({ quote: await quoteLoad(), base });
  }
  const quoteMedian = medianBy(quotePairs, (p) => p.quote.rps / p.base.rps);
  const quote = quoteMedian.quote;
  const quoteRatios = quotePairs.map((p) => ratio(p.quote.rps, p.base.rps));
  await snapshot(api.pid!);
  const lookupsBefore = await sessionLookups(apiMetricsPort);
  const profile = await load({ url: `${apiUrl}/v1/account/profile`, headers: bearer(user) });
  const lookupsAfter = await sessionLookups(apiMetricsPort);
  const lookups = {
    hit: lookupsAfter.hit - lookupsBefore.hit,
    read: lookupsAfter.miss + lookupsAfter.off - lookupsBefore.miss - lookupsBefore.off,
  };
  // The session statement runs only on the session cache's misses: this share of the profile load's requests.
  const profileSessionReads = lookups.read / Math.max(1, lookups.hit + lookups.read);
  results.apiOverhead = {
    bare,
    bareJwt,
    bareJwtDb,
    quoteBase: quoteMedian.base,
    quoteRatios,
    bareJwtUser,
    bareJwtSession,
    health,
    quote,
    profile,
    profileSessionReads,
  };
  if (process.env.BENCH_ONLY === 'overhead') {
    // A quick loop for hot-path work: the API-overhead rows only, printed, BENCHMARKS.md left as it is.
    for (const [name, l, base] of [
      ['healthz / bare', health, bare],
      ['profile / jwt-db', profile, bareJwtDb],
      ['quote / jwt-quote', quote, quoteMedian.base],
      ['session join / user read', bareJwtSession, bareJwtUser],
    ] as const) {
      log(
        `${name}: ${l.rps.toFixed(0)} / ${base.rps.toFixed(0)} = ${ratio(l.rps, base.rps)}; cpu ms/req ${JSON.stringify(l.cpu?.perRequest)}`,
      );
    }
    log(
      `api peak RSS ${Math.round(peakRssMiB(api.pid!))} MiB (idle ${JSON.stringify(idleMemory.api)}, now ${JSON.stringify(rssNow(api.pid!))}); bare Koa peak ${Math.round(peakRssMiB(bareKoa.pid!))} MiB (idle ${JSON.stringify(idleMemory.bareKoa)})`,
    );
    await shutdown(chains, temporal, sandboxServers, admin, dbName);
    return;
  }

  // ---- End to end: charge completion vs. a workflow with as many no-op activities
  log(`end to end: ${CHARGES} charges, one at a time, against ${CHARGES} baseline workflows`);
  // The service's payloads are encrypted (payload codec); the baseline workflow's are plain.
  const connection = await Connection.connect({ address: temporal.address });
  const temporalClient = new Client({
    connection,
    dataConverter: createDataConverter(new DataEncryption(env.DATA_ENCRYPTION_KEY!)),
  });
  const plainClient = new Client({ connection });
  const account = await openBankAccount(stack, user.person, 10_000_000_000);
  await connectBankAccount(stack, user, account);
  const chargeLatencies: number[] = [];
  for (let i = -3; i < CHARGES; i += 1) {
    // three unmeasured warm-up charges
    const t0 = performance.now();
    const accepted = await call(`${apiUrl}/api/v1/charge/execute`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: { source: account.bankCode, amount: '1000', currency: 'KRW' },
    });
    if (accepted.status !== 202 && accepted.status !== 200)
      throw new Error(`charge answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
    const outcome = (await temporalClient.workflow
      .getHandle(chargeWorkflowId(accepted.body.data.charge_id))
      .result()) as { status: string };
    if (outcome.status !== 'completed') throw new Error(`charge ${outcome.status}`);
    if (i >= 0) chargeLatencies.push(performance.now() - t0);
  }
  const baselineLatencies: number[] = [];
  for (let i = -3; i < CHARGES; i += 1) {
    const t0 = performance.now();
    await plainClient.workflow.execute('twoNoopActivitiesWorkflow', {
      workflowId: `baseline-${randomUUID()}`,
      taskQueue: 'bench-baseline',
    });
    if (i >= 0) baselineLatencies.push(performance.now() - t0);
  }
  const summary = (values: number[]) => ({
    p50: Math.round(percentile(values, 50)),
    p99: Math.round(percentile(values, 99)),
  });
  results.endToEnd = { charge: summary(chargeLatencies), baseline: summary(baselineLatencies) };

  // ---- Fan-out: key rotation over five networks vs one
  log(
    `fan-out: deploying the user's account on ${NETWORK_IDS.length} networks, then ${ROTATIONS} rotations of 1 and of ${NETWORK_IDS.length} networks`,
  );
  let owner: Wallet = Wallet.createRandom() as unknown as Wallet;
  for (const networkId of NETWORK_IDS) await deployAccount(stack, user, owner, networkId);
  const breakdowns: Record<'one' | 'five', Array<Awaited<ReturnType<typeof rotationBreakdown>>>> = {
    one: [],
    five: [],
  };
  const rotate = async (networkIds: string[]): Promise<number> => {
    const next = Wallet.createRandom() as unknown as Wallet;
    const prepared = await call(`${apiUrl}/v1/wallet/keys/rotate/prepare`, {
      headers: bearer(user),
      json: { newOwnerAddress: next.address, networkIds },
    });
    if (prepared.status !== 200)
      throw new Error(`rotation prepare answered ${prepared.status}: ${JSON.stringify(prepared.body)}`);
    const [slot] = prepared.body.items;
    const signature = await owner.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, {
      root: slot.parameter.domain.root,
    });
    const t0 = performance.now();
    const accepted = await call(`${apiUrl}/v1/wallet/keys/rotate`, {
      headers: { ...bearer(user), 'idempotency-key': randomUUID() },
      json: {
        signing: { items: [{ id: slot.id, parameter: slot.parameter, signature: { authResponse: { signature } } }] },
      },
    });
    if (accepted.status !== 202)
      throw new Error(`rotation answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
    const outcome = (await temporalClient.workflow.getHandle(keyRotationWorkflowId(slot.id)).result()) as {
      status: string;
    };
    if (outcome.status !== 'completed') throw new Error(`rotation ${outcome.status}`);
    const elapsed = performance.now() - t0;
    breakdowns[networkIds.length === 1 ? 'one' : 'five'].push(
      await rotationBreakdown(temporalClient, keyRotationWorkflowId(slot.id)),
    );
    // Accounts not in this rotation keep the old owner; rotate them too (unmeasured) so one key owns them all again.
    const rest = NETWORK_IDS.filter((id) => !networkIds.includes(id));
    if (rest.length) {
      const catchUp = await call(`${apiUrl}/v1/wallet/keys/rotate/prepare`, {
        headers: bearer(user),
        json: { newOwnerAddress: next.address, networkIds: rest },
      });
      const [s] = catchUp.body.items;
      const sig = await owner.signTypedData(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, { root: s.parameter.domain.root });
      await call(`${apiUrl}/v1/wallet/keys/rotate`, {
        headers: { ...bearer(user), 'idempotency-key': randomUUID() },
        json: {
          signing: { items: [{ id: s.id, parameter: s.parameter, signature: { authResponse: { signature: sig } } }] },
        },
      });
      await temporalClient.workflow.getHandle(keyRotationWorkflowId(s.id)).result();
    }
    owner = next;
    return elapsed;
  };
  const one: number[] = [];
  const five: number[] = [];
  for (let i = 0; i < ROTATIONS; i += 1) {
    one.push(await rotate(['ETHEREUM']));
    five.push(await rotate(NETWORK_IDS));
  }
  // Medians over the measured rotations of each kind: child start, activity queue wait, and each activity's run time.
  const med = (values: number[]) => (values.length ? Math.round(percentile(values, 50)) : 0);
  const breakdown = (kind: 'one' | 'five') => {
    const all = breakdowns[kind];
    const activities = [...new Set(all.flatMap((b) => Object.keys(b.runMs)))];
    return {
      childStartMs: med(all.flatMap((b) => b.childStartMs)),
      queueWaitMs: med(all.flatMap((b) => b.queueWaitMs)),
      maxQueueWaitMs: Math.round(Math.max(0, ...all.flatMap((b) => b.queueWaitMs))),
      runMs: Object.fromEntries(activities.map((name) => [name, med(all.flatMap((b) => b.runMs[name] ?? []))])),
    };
  };
  results.fanOut = {
    oneNetworkMs: Math.round(percentile(one, 50)),
    fiveNetworksMs: Math.round(percentile(five, 50)),
    runs: ROTATIONS,
    oneNetwork: breakdown('one'),
    fiveNetworks: breakdown('five'),
  };
  log(`fan-out breakdown: ${JSON.stringify(results.fanOut)}`);

  // ---- Transfers per second end to end (issue 40)
  log(`transfers end to end: ${TRANSFER_LEVELS.join(' and ')} users at once`);
  let wholeRunPeak: { worker: number; baselineWorker: number } | undefined;
  results.transfers = await transfersEndToEnd({
    stack,
    network: transferNetwork,
    log,
    levels: TRANSFER_LEVELS,
    temporalClient,
    baseline: { client: new Client({ connection: temporalClient.connection }), taskQueue: 'bench-baseline' },
    cpu: transferCpu(chains[0]!, baselineWorker.pid),
    statements,
    // Both workers' peaks from here on are the transfer rows' (ours before it: every row above and the users' set-up).
    atMeasuredLoad: async () => {
      wholeRunPeak = { worker: peakRssMiB(worker.pid!), baselineWorker: peakRssMiB(baselineWorker.pid!) };
      await peaksFromSettled(worker.pid!, baselineWorker.pid!, log);
    },
  });

  // ---- Orchestration: workflow starts through the API vs. a plain client script (no worker, only starts count)
  log('orchestration: charge starts through the API vs. client.workflow.start');
  const workerPeak = peakRssMiB(worker.pid!);
  const baselineWorkerPeak = peakRssMiB(baselineWorker.pid!);
  worker.kill('SIGTERM');
  await new Promise((r) => worker.once('exit', r));
  // Charge starts through the API against the plain start script three times, each pair measured together; the
  // median ratio's pair is reported.
  const startPairs: Array<{ viaApi: Load; plain: { started: number; seconds: number }; plainCpu: Load['cpu'] }> = [];
  for (let i = 0; i < RUNS; i += 1) {
    const viaApi = await chargeStarts(apiUrl, user, account.bankCode, CONNECTIONS);
    const loop = spawnService(
      'start-loop',
      ['dist/bench/start-loop.js', temporal.address, 'bench-starts', String(CONNECTIONS), String(SECONDS)],
      {},
    );
    let loopOut = '';
    loop.stdout?.removeAllListeners('data');
    loop.stdout?.on('data', (d: Buffer) => {
      loopOut += d.toString();
    });
    const loopBefore = cpuSnapshot({ ...watched, 'start script': loop.pid });
    let loopAfter = loopBefore;
    const sampler = setInterval(() => {
      loopAfter = cpuSnapshot({ ...watched, 'start script': loop.pid });
    }, 200);
    await new Promise((r) => loop.once('exit', r));
    clearInterval(sampler);
    const plain = JSON.parse(loopOut.trim().split('\n').at(-1)!) as { started: number; seconds: number };
    startPairs.push({ viaApi, plain, plainCpu: cpuPerRequest(loopBefore, loopAfter, plain.started) });
  }
  const startMedian = medianBy(startPairs, (p) => p.viaApi.rps / (p.plain.started / p.plain.seconds));
  const { viaApi, plain } = startMedian;
  results.orchestration = {
    apiStartsPerSecond: viaApi.rps,
    apiNon2xx: viaApi.non2xx,
    apiP99: viaApi.p99,
    apiCpu: viaApi.cpu,
    plainStartsPerSecond: plain.started / plain.seconds,
    plainCpu: startMedian.plainCpu,
    ratios: startPairs.map((p) => ratio(p.viaApi.rps, p.plain.started / p.plain.seconds)),
  };
  results.memory = {
    apiPeakRssMiB: Math.round(peakRssMiB(api.pid!)),
    workerPeakRssMiB: Math.round(workerPeak),
    bareKoaPeakRssMiB: Math.round(peakRssMiB(bareKoa.pid!)),
    apiIdle: idleMemory.api,
    workerIdle: idleMemory.worker,
    workerStarting,
    splitIdle,
    apiAfterLoad: rssNow(api.pid!),
    bareKoaIdle: idleMemory.bareKoa,
    bareKoaAfterLoad,
    baselineWorkerIdle: idleMemory.baselineWorker,
    bareKoaTemporalIdle: idleMemory.bareKoaTemporal,
    baselineWorkerPeakRssMiB: Math.round(baselineWorkerPeak),
    workerWholeRunPeakRssMiB: Math.round(Math.max(wholeRunPeak?.worker ?? 0, workerPeak)),
    baselineWorkerWholeRunPeakRssMiB: Math.round(Math.max(wholeRunPeak?.baselineWorker ?? 0, baselineWorkerPeak)),
  };

  // ---- Cluster: charge starts through 1 and 2 api processes on the Temporal server on PostgreSQL (part of issue 12)
  log('cluster: the Temporal server on PostgreSQL, charge starts through one api process, then two');
  const clusterPg = await ownPostgres();
  const clusterDir = mkdtempSync(join(tmpdir(), 'wallet-bench-cluster-'));
  scratch.push(() => rmSync(clusterDir, { recursive: true, force: true }));
  const cluster = await startTemporalCluster(
    {
      database: { host: '127.0.0.1', port: clusterPg.port, user: POSTGRES_SUPERUSER },
      frontendPort: await freePort(),
      dir: clusterDir,
    },
    resolveTemporalCli({ build: true, log }),
  );
  const clusterAdmin = new PgClient({ connectionString: clusterPg.url });
  await clusterAdmin.connect();
  await clusterAdmin.query('create database wallet');
  await clusterAdmin.end();
  const clusterDb = Object.assign(new URL(clusterPg.url), { pathname: '/wallet' }).toString();
  await (await createOrm(clusterDb, { migrate: true })).close();
  const clusterApis: string[] = [];
  for (let i = 0; i < 2; i += 1) {
    const port = await freePort();
    spawnService(`cluster-api-${i + 1}`, ['dist/api/main.js'], {
      ...env,
      DATABASE_URL: clusterDb,
      TEMPORAL_ADDRESS: cluster.address,
      API_PORT: String(port),
    });
    clusterApis.push(`http://127.0.0.1:${port}`);
  }
  for (const url of clusterApis) await waitForHttp(`${url}/readyz`);
  const clusterStack = { apiUrl: clusterApis[0]!, sandboxUrl };
  sandbox.setCallbackUrl(`${clusterApis[0]}/v1/auth/pass/callback`);
  // Registration needs a worker: one on the cluster for the set-up only, stopped before the starts are measured.
  const clusterWorker = spawnService('cluster-worker', ['dist/worker/main.js'], {
    ...env,
    DATABASE_URL: clusterDb,
    TEMPORAL_ADDRESS: cluster.address,
  });
  const clusterUser = await registerUser(clusterStack);
  const clusterAccount = await openBankAccount(clusterStack, clusterUser.person, 10_000_000_000);
  await connectBankAccount(clusterStack, clusterUser, clusterAccount);
  clusterWorker.kill('SIGTERM');
  await new Promise((r) => clusterWorker.once('exit', r));
  const oneApi = await chargeStarts(clusterApis[0]!, clusterUser, clusterAccount.bankCode, CONNECTIONS);
  const twoApis = await Promise.all(
    clusterApis.map((url) => chargeStarts(url, clusterUser, clusterAccount.bankCode, Math.ceil(CONNECTIONS / 2))),
  );
  results.cluster = {
    oneApiStartsPerSecond: oneApi.rps,
    twoApisStartsPerSecond: twoApis.reduce((sum, l) => sum + l.rps, 0),
    non2xx: oneApi.non2xx + twoApis.reduce((sum, l) => sum + l.non2xx, 0),
  };
  await cluster.stop();

  const gasResults = await measureGas();
  results.gas = gasResults.gas;
  results.bundling = gasResults.bundling;

  // ---- Report
  const a = results.apiOverhead as {
    bare: Load;
    bareJwt: Load;
    bareJwtDb: Load;
    bareJwtUser: Load;
    bareJwtSession: Load;
    health: Load;
    quote: Load;
    quoteBase: Load;
    quoteRatios: number[];
    profile: Load;
    profileSessionReads: number;
  };
  // What the device-revocation check adds per request (the session statement's time over the user read's), as a share
  // of a profile request's time: the issue's budget is 5 % of the profile route's throughput. The statement runs only
  // when the session cache misses (profileSessionReads of the profile requests).
  const revocationShare =
    Math.max(0, 1 / a.bareJwtSession.rps - 1 / a.bareJwtUser.rps) * a.profile.rps * a.profileSessionReads;
  const e = results.endToEnd as { charge: { p50: number; p99: number }; baseline: { p50: number; p99: number } };
  type Breakdown = { childStartMs: number; queueWaitMs: number; maxQueueWaitMs: number; runMs: Record<string, number> };
  const f = results.fanOut as {
    oneNetworkMs: number;
    fiveNetworksMs: number;
    oneNetwork: Breakdown;
    fiveNetworks: Breakdown;
  };
  const breakdownRow = (b: Breakdown) =>
    `child start ${b.childStartMs} ms, activity queue wait ${b.queueWaitMs} ms (max ${b.maxQueueWaitMs}), activity run ${Object.entries(
      b.runMs,
    )
      .map(([k, v]) => `${k} ${v} ms`)
      .join(', ')}`;
  const o = results.orchestration as {
    apiStartsPerSecond: number;
    plainStartsPerSecond: number;
    apiNon2xx: number;
    apiCpu: Load['cpu'];
    plainCpu: Load['cpu'];
    ratios: number[];
  };
  const m = results.memory as {
    apiPeakRssMiB: number;
    workerPeakRssMiB: number;
    bareKoaPeakRssMiB: number;
    apiIdle: Rss;
    /** Absent in reports of runs before it was measured. */
    workerIdle?: Rss;
    /** One second after the api was ready, the first start perhaps still reading the sanctions list. */
    workerStarting?: Rss;
    splitIdle?: Record<'workflows' | 'capabilities' | 'restarted', Rss>;
    apiAfterLoad: Rss;
    bareKoaIdle: Rss;
    bareKoaAfterLoad: Rss;
    baselineWorkerIdle: Rss;
    baselineWorkerPeakRssMiB: number;
    /** Absent in reports of runs before the peaks were read under the transfer rows' load alone. */
    workerWholeRunPeakRssMiB?: number;
    baselineWorkerWholeRunPeakRssMiB?: number;
    bareKoaTemporalIdle: Rss;
  };
  const mib = (r: Rss) => r.anonMiB + r.fileMiB;
  /** A row of ours over a baseline in MiB; `goal`: within 40 MiB of it (else a building block). */
  const memoryOver = (
    name: string,
    ours: Rss,
    base: Rss,
    goal: boolean,
  ): [string, string, string, string, boolean | null] => [
    name,
    `${mib(ours)} - ${mib(base)} = ${mib(ours) - mib(base)}`,
    '',
    goal ? '<= 40' : '(reported)',
    goal ? mib(ours) - mib(base) <= 40 : null,
  ];
  const t = results.transfers as TransferLevel[];
  const c = results.cluster as { oneApiStartsPerSecond: number; twoApisStartsPerSecond: number; non2xx: number };
  const rows: Array<[string, string, string, string, boolean | null]> = [
    [
      'API /healthz (our middleware, no auth, no database) req/s vs bare Koa',
      `${a.health.rps.toFixed(0)} / ${a.bare.rps.toFixed(0)}`,
      String(ratio(a.health.rps, a.bare.rps)),
      '>= 0.7',
      ratio(a.health.rps, a.bare.rps) >= 0.7,
    ],
    [
      'bare Koa + ES256 JWT verify req/s vs bare Koa',
      `${a.bareJwt.rps.toFixed(0)} / ${a.bare.rps.toFixed(0)}`,
      String(ratio(a.bareJwt.rps, a.bare.rps)),
      '(building block)',
      null,
    ],
    [
      'bare Koa + JWT + one PostgreSQL round trip req/s vs bare Koa',
      `${a.bareJwtDb.rps.toFixed(0)} / ${a.bare.rps.toFixed(0)}`,
      String(ratio(a.bareJwtDb.rps, a.bare.rps)),
      '(building block)',
      null,
    ],
    [
      'Profile req/s vs bare Koa + JWT + one PostgreSQL round trip',
      `${a.profile.rps.toFixed(0)} / ${a.bareJwtDb.rps.toFixed(0)}`,
      String(ratio(a.profile.rps, a.bareJwtDb.rps)),
      '>= 0.6',
      ratio(a.profile.rps, a.bareJwtDb.rps) >= 0.6,
    ],
    [
      `Quote req/s vs bare Koa + JWT + the same QuoterV2 and slot0 calls (median of ${RUNS} pairs: ${a.quoteRatios.join(', ')})`,
      `${a.quote.rps.toFixed(0)} / ${a.quoteBase.rps.toFixed(0)}`,
      String(ratio(a.quote.rps, a.quoteBase.rps)),
      '>= 0.6',
      ratio(a.quote.rps, a.quoteBase.rps) >= 0.6,
    ],
    [
      'Quote req/s vs bare Koa',
      `${a.quote.rps.toFixed(0)} / ${a.bare.rps.toFixed(0)}`,
      String(ratio(a.quote.rps, a.bare.rps)),
      '(reported)',
      null,
    ],
    [
      'Quote p99 vs bare Koa',
      `${a.quote.p99} / ${a.bare.p99} ms`,
      String(ratio(a.quote.p99, Math.max(a.bare.p99, 1))),
      '(reported)',
      null,
    ],
    [
      'Revocation check: user + device session statement vs the user read alone (bare Koa + JWT + PostgreSQL) req/s',
      `${a.bareJwtSession.rps.toFixed(0)} / ${a.bareJwtUser.rps.toFixed(0)}`,
      String(ratio(a.bareJwtSession.rps, a.bareJwtUser.rps)),
      '(building block)',
      null,
    ],
    [
      'Revocation check: its added time per request, as a share of a profile request (it runs on session-cache misses)',
      `${(revocationShare * 100).toFixed(1)} % (misses: ${(a.profileSessionReads * 100).toFixed(1)} % of requests)`,
      '',
      '<= 5 %',
      revocationShare <= 0.05,
    ],
    [
      'Profile req/s vs bare Koa',
      `${a.profile.rps.toFixed(0)} / ${a.bare.rps.toFixed(0)}`,
      String(ratio(a.profile.rps, a.bare.rps)),
      '(reported)',
      null,
    ],
    [
      'Profile p99 vs bare Koa',
      `${a.profile.p99} / ${a.bare.p99} ms`,
      String(ratio(a.profile.p99, Math.max(a.bare.p99, 1))),
      '(reported)',
      null,
    ],
    [
      `Charge starts/s: API vs client.workflow.start (median of ${RUNS} pairs: ${o.ratios.join(', ')})`,
      `${o.apiStartsPerSecond.toFixed(0)} / ${o.plainStartsPerSecond.toFixed(0)}`,
      String(ratio(o.apiStartsPerSecond, o.plainStartsPerSecond)),
      '>= 0.7',
      ratio(o.apiStartsPerSecond, o.plainStartsPerSecond) >= 0.7,
    ],
    [
      'Charge completion p50 vs 2 no-op activities',
      `${e.charge.p50} / ${e.baseline.p50} ms`,
      String(ratio(e.charge.p50, e.baseline.p50)),
      '<= 2',
      ratio(e.charge.p50, e.baseline.p50) <= 2,
    ],
    [
      'Charge completion p99 vs 2 no-op activities',
      `${e.charge.p99} / ${e.baseline.p99} ms`,
      String(ratio(e.charge.p99, e.baseline.p99)),
      '(reported)',
      null,
    ],
    // Issue 52 states the goal at rest against bare Koa with the Temporal client connected (the building block every
    // api process needs); against bare Koa alone it is reported.
    memoryOver('API resident memory at rest over bare Koa at rest (MiB)', m.apiIdle, m.bareKoaIdle, false),
    memoryOver(
      'API resident memory at rest over bare Koa with the Temporal client loaded and connected, at rest (MiB)',
      m.apiIdle,
      m.bareKoaTemporalIdle,
      true,
    ),
    memoryOver(
      'API resident memory after all loads over bare Koa after its loads (MiB)',
      m.apiAfterLoad,
      m.bareKoaAfterLoad,
      true,
    ),
    [
      'API peak RSS vs bare Koa peak RSS (MiB)',
      `${m.apiPeakRssMiB} / ${m.bareKoaPeakRssMiB}`,
      String(ratio(m.apiPeakRssMiB, m.bareKoaPeakRssMiB)),
      '(reported)',
      null,
    ],
    ...(m.splitIdle
      ? (['workflows', 'capabilities'] as const).map((part): [string, string, string, string, boolean | null] => [
          `Worker for the ${part} alone (\`WORKER_CAPABILITIES=${part === 'workflows' ? 'workflows' : 'chains,bank,messaging,compliance'}\`) at rest vs the baseline worker at rest (MiB)`,
          `${mib(m.splitIdle![part])} / ${mib(m.baselineWorkerIdle)}`,
          String(ratio(mib(m.splitIdle![part]), mib(m.baselineWorkerIdle))),
          '(reported)',
          null,
        ])
      : []),
    ...(m.splitIdle
      ? [
          [
            'The full worker started again, at rest vs the baseline worker at rest (MiB; its sanctions list stored, as at any restart: the first start downloads and stores the list)',
            `${mib(m.splitIdle.restarted)} / ${mib(m.baselineWorkerIdle)}`,
            String(ratio(mib(m.splitIdle.restarted), mib(m.baselineWorkerIdle))),
            '(reported)',
            null,
          ] as [string, string, string, string, boolean | null],
        ]
      : []),
    ...(m.workerStarting
      ? [
          [
            'The full worker one second after the api was ready vs the baseline worker at rest (MiB; its first start may still be reading the sanctions list, which it downloads and stores at once)',
            `${mib(m.workerStarting)} / ${mib(m.baselineWorkerIdle)}`,
            String(ratio(mib(m.workerStarting), mib(m.baselineWorkerIdle))),
            '(reported)',
            null,
          ] as [string, string, string, string, boolean | null],
        ]
      : []),
    [
      "Worker resident memory at rest vs the baseline worker at rest (MiB; the full worker: every capability, one process; every process measured at rest once its start-up work was done, the worker's first sanctions list stored, and its resident memory stopped falling)",
      `${mib(m.workerIdle!)} / ${mib(m.baselineWorkerIdle)}`,
      String(ratio(mib(m.workerIdle!), mib(m.baselineWorkerIdle))),
      '<= 1.3',
      ratio(mib(m.workerIdle!), mib(m.baselineWorkerIdle)) <= 1.3,
    ],
    [
      "Worker peak RSS under the transfer rows' load vs the baseline worker's (MiB; both peaks started again after the users' set-up and the warm-up, once both workers' resident memory stopped falling)",
      `${m.workerPeakRssMiB} / ${m.baselineWorkerPeakRssMiB}`,
      String(ratio(m.workerPeakRssMiB, m.baselineWorkerPeakRssMiB)),
      // Issue 52's goal at peak: each worker under the same load, the transfer rows (the baseline's minimal durable
      // transfers, ours through the API).
      '<= 1.6',
      ratio(m.workerPeakRssMiB, m.baselineWorkerPeakRssMiB) <= 1.6,
    ],
    ...(m.workerWholeRunPeakRssMiB === undefined || m.baselineWorkerWholeRunPeakRssMiB === undefined
      ? []
      : [
          [
            "Worker peak RSS over the whole run vs the baseline worker's (MiB; ours includes registering and deploying the bench's users and every row before the transfers, which the baseline worker does not do)",
            `${m.workerWholeRunPeakRssMiB} / ${m.baselineWorkerWholeRunPeakRssMiB}`,
            String(ratio(m.workerWholeRunPeakRssMiB, m.baselineWorkerWholeRunPeakRssMiB)),
            '(reported)',
            null,
          ] as [string, string, string, string, boolean | null],
        ]),
    ...t.flatMap((level): Array<[string, string, string, string, boolean | null]> => [
      [
        `Transfers end to end, ${level.users} at once: CPU ms per transfer (all processes), API vs the minimal durable transfer`,
        `${cpuTotal(level.api)} / ${cpuTotal(level.durable)}`,
        String(ratio(cpuTotal(level.api), cpuTotal(level.durable))),
        level.users === 100 ? '<= 2, and <= 90 ms' : '(reported)',
        level.users === 100
          ? ratio(cpuTotal(level.api), cpuTotal(level.durable)) <= 2 && cpuTotal(level.api) <= 90
          : null,
      ],
      [
        `Transfers end to end, ${level.users} at once: confirmed/s, API vs the minimal durable transfer`,
        `${level.api.perSecond} / ${level.durable.perSecond}`,
        String(ratio(level.api.perSecond, level.durable.perSecond)),
        level.users === 100 ? '>= 0.5' : '(reported)',
        level.users === 100 ? ratio(level.api.perSecond, level.durable.perSecond) >= 0.5 : null,
      ],
      [
        `Transfers end to end, ${level.users} at once: p50 latency to confirmed, API vs the minimal durable transfer`,
        `${level.api.p50} / ${level.durable.p50} ms`,
        `+${level.api.p50 - level.durable.p50} ms`,
        level.users === 10 ? '<= +300 ms' : '(reported)',
        level.users === 10 ? level.api.p50 - level.durable.p50 <= 300 : null,
      ],
      [
        `Transfers end to end, ${level.users} at once: confirmed/s through the API vs pre-signed straight to Alto`,
        `${level.api.perSecond} / ${level.bundler.perSecond}`,
        String(ratio(level.api.perSecond, level.bundler.perSecond)),
        // Issue 40's goal (>= 0.8 at 100), not reachable without durability: issue 52's goals are against the minimal
        // durable transfer above.
        '(reported)',
        null,
      ],
      [
        `Transfers end to end, ${level.users} at once: p50 latency to confirmed, API vs straight to Alto`,
        `${level.api.p50} / ${level.bundler.p50} ms`,
        `+${level.api.p50 - level.bundler.p50} ms`,
        '(reported)',
        null,
      ],
      [
        `Transfers end to end, ${level.users} at once: p99 latency to confirmed, API vs straight to Alto`,
        `${level.api.p99} / ${level.bundler.p99} ms`,
        String(ratio(level.api.p99, level.bundler.p99)),
        '(reported)',
        null,
      ],
    ]),
    [
      'Cluster (Temporal server on PostgreSQL): charge starts/s, 2 api processes vs 1',
      `${c.twoApisStartsPerSecond.toFixed(0)} / ${c.oneApiStartsPerSecond.toFixed(0)}`,
      String(ratio(c.twoApisStartsPerSecond, c.oneApiStartsPerSecond)),
      '(reported)',
      null,
    ],
    [
      `Key rotation wall time: 5 networks vs 1 (median of ${ROTATIONS})`,
      `${f.fiveNetworksMs} / ${f.oneNetworkMs} ms`,
      String(ratio(f.fiveNetworksMs, f.oneNetworkMs)),
      '<= 1.5',
      ratio(f.fiveNetworksMs, f.oneNetworkMs) <= 1.5,
    ],
  ];
  const cpu = cpus();
  const cpuRows: Array<[string, Load['cpu']]> = [
    ['bare Koa', a.bare.cpu],
    ['bare Koa + JWT', a.bareJwt.cpu],
    ['bare Koa + JWT + PostgreSQL', a.bareJwtDb.cpu],
    ['API /healthz', a.health.cpu],
    ['API quote', a.quote.cpu],
    ['API profile', a.profile.cpu],
    ['API charge start (worker stopped)', o.apiCpu],
    ['plain client.workflow.start script', o.plainCpu],
  ];
  const report = `# Benchmarks

Produced by \`npm run bench\` (${new Date().toISOString().slice(0, 10)}; ${((Date.now() - started) / 1000).toFixed(0)} s). Every figure is a ratio against a
baseline measured in the same run on the same machine, so it can be compared across machines; the absolute numbers
next to it are only for reading the ratio.

Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Linux ${release()}, Node ${process.version}; its speed,
as the CPU time of a fixed piece of work in a fresh Node (\`bench/calibration.ts\`, median of 5, before the bench
started anything): ${machineWorkMs} ms. The absolute CPU figures below scale with it.
Set-up: api and worker compiled (\`node dist/…\`, \`NODE_ENV=production\`, log level warn; the api with the image's flags: \`${apiFlags.join(' ') || 'none'}\`), PostgreSQL (local server), Temporal
dev server, sandbox bank settling at once, five local anvil chains; load by autocannon with ${CONNECTIONS} connections for
${SECONDS} s after a 2 s warm-up, all on loopback (the load generator shares the machine).

| Measure | Figures | Ratio | Goal | Met |
| --- | --- | --- | --- | --- |
${rows.map(([name, figures, r, goal, met]) => `| ${name} | ${figures} | ${r} | ${goal} | ${met === null ? '' : met ? 'yes' : '**no**'} |`).join('\n')}

Where the CPU went, per request (ms of CPU time of each process; PostgreSQL is all its backends) and how busy the
machine's ${cpu.length} cores were during each load:

| Load | Machine busy | CPU ms per request |
| --- | --- | --- |
${cpuRows
  .map(
    ([name, c]) =>
      `| ${name} | ${c?.machineBusyPercent ?? '?'} % | ${Object.entries(c?.perRequest ?? {})
        .filter(([, v]) => v >= 0.01)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} |`,
  )
  .join('\n')}

Peak RSS under this load: api ${m.apiPeakRssMiB} MiB, worker ${m.workerPeakRssMiB} MiB, bare Koa ${m.bareKoaPeakRssMiB} MiB. Resident
memory of the api at rest after start: ${m.apiIdle.anonMiB} MiB its own (heap, stacks) + ${m.apiIdle.fileMiB} MiB mapped files (node binary, native
modules); after all loads: ${m.apiAfterLoad.anonMiB} + ${m.apiAfterLoad.fileMiB} MiB; the worker at rest: ${m.workerIdle ? `${m.workerIdle.anonMiB} + ${m.workerIdle.fileMiB} MiB` : 'not measured'}; bare Koa at rest: ${m.bareKoaIdle.anonMiB} + ${m.bareKoaIdle.fileMiB} MiB.
Errors: quote ${a.quote.errors}/${a.quote.non2xx} (errors/non-2xx), profile ${a.profile.errors}/${a.profile.non2xx}, charge starts non-2xx ${o.apiNon2xx}, cluster charge starts non-2xx ${c.non2xx}.

Key rotation, where the time went (medians from the workflow histories): 1 network: ${breakdownRow(f.oneNetwork)};
5 networks: ${breakdownRow(f.fiveNetworks)}.

Memory of the worker at rest: ${m.workerIdle ? `${m.workerIdle.anonMiB} + ${m.workerIdle.fileMiB}` : '?'} MiB, the baseline worker (\`bench/baseline-worker.ts\`: the same Temporal SDK, two no-op
workflows bundled ahead as ours are, run with our worker's node flags) ${m.baselineWorkerIdle.anonMiB} + ${m.baselineWorkerIdle.fileMiB} MiB; bare Koa after its loads ${m.bareKoaAfterLoad.anonMiB} + ${m.bareKoaAfterLoad.fileMiB} MiB.

## Transfers per second end to end

Users at once, each sending a sponsored capped transfer of 0.0001 ETH to a recipient of its own through
\`POST /api/v1/transfer/crypto/execute\` (PIN-approved; the api -> the transfer workflow -> the last screening -> the
signed user operation -> Alto -> the chain -> the answer, polled until \`confirmed\` when it came as 202), against the
same kind of operation by accounts of the bench's own, signed before the clock starts and sent straight to the same
Alto (its settings as the stack's), with the whole stack up; per second from the first request to the last
confirmation, latency from each request to its confirmation. Set for the run: every rate limit 10,000,000 points a
minute, a gas budget of ${BENCH_GAS_BUDGET_KRW.toLocaleString('en')} won per user a day, new recipients usable at once
(\`ADDRESS_COOLING_OFF_SECONDS\` 0).

The minimal durable transfer (issue 52) is the floor of any design that keeps a transfer durable on Temporal: the
same pre-signed operations started as a workflow each (\`minimalDurableTransferWorkflow\`, bench/baseline-workflows.ts)
on the same Temporal server, whose one activity, in the baseline worker, sends the operation to the same Alto and
polls its receipt.

Up to 10 at once, ${SMALL_LEVEL_ROUNDS} rounds of each kind run in turn (straight, minimal durable, ours, then again) and
are pooled: percentiles over every transfer's latency, per second over the rounds' summed durations, CPU and counts
per transfer over them all (one round's p50 of 10 moved by more than 400 ms between runs of one build). At 100 at
once, one round of each.

| At once | API confirmed/s | Minimal durable confirmed/s | Straight confirmed/s | API p50 / p99 ms | Minimal durable p50 / p99 ms | Straight p50 / p99 ms | Bundles (API / durable / straight) |
| --- | --- | --- | --- | --- | --- | --- | --- |
${t.map((l) => `| ${l.users} | ${l.api.perSecond} | ${l.durable.perSecond} | ${l.bundler.perSecond} | ${l.api.p50} / ${l.api.p99} | ${l.durable.p50} / ${l.durable.p99} | ${l.bundler.p50} / ${l.bundler.p99} | ${l.api.transactions} / ${l.durable.transactions} / ${l.bundler.transactions} |`).join('\n')}

What Temporal did per transfer (means over the rounds, from the histories of each transfer's workflow and its
children):

| At once | Path | Workflows started | Workflow tasks | Activity tasks | Local activities | History events |
| --- | --- | --- | --- | --- | --- | --- |
${t
  .flatMap((l) =>
    (
      [
        ['through the API', l.counts.api],
        ['minimal durable', l.counts.durable],
      ] as const
    ).map(
      ([path, c]) =>
        `| ${l.users} | ${path} | ${c.workflowsStarted} | ${c.workflowTasks} | ${c.activityTasks} | ${c.localActivities} | ${c.historyEvents} |`,
    ),
  )
  .join('\n')}

Database statements per transfer through the API (each process's \`db_statements_total\` over the round, from the first
request to the last confirmation, BEGIN and COMMIT counted, the finality watch's reads in that time included; the
minimal durable transfer sends none): ${t.map((l) => `${l.users} at once: api ${l.statements.api}, worker ${l.statements.worker}`).join('; ')}.

CPU ms per transfer of each process (PostgreSQL: all its backends), and how busy the machine's ${cpu.length} cores were:

| At once | Path | Machine busy | CPU ms per transfer |
| --- | --- | --- | --- |
${t
  .flatMap((l) =>
    (
      [
        ['through the API', l.api],
        ['minimal durable transfer', l.durable],
        ['straight to Alto', l.bundler],
      ] as const
    ).map(
      ([path, r]) =>
        `| ${l.users} | ${path} | ${r.cpu?.machineBusyPercent ?? '?'} % | ${Object.entries(r.cpu?.perRequest ?? {})
          .filter(([, v]) => v >= 0.5)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')} |`,
    ),
  )
  .join('\n')}

Where a transfer's time went through the API (medians over the rounds' transfers, ms, from the workflow histories
and the bench's clock; the last screening, the signing, the submission and the recording of the outcome are one
activity, sendTransfer, since the transfer's version 4): ${t
    .map(
      (l) =>
        `${l.users} at once: ${Object.entries(l.breakdown)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
    )
    .join('; ')}. The minimal durable transfer's, the same way: ${t
    .map(
      (l) =>
        `${l.users} at once: ${Object.entries(l.durableBreakdown ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}`,
    )
    .join('; ')}.

## Gas per user operation (ours against eth-infinitism's SimpleAccount)

Each operation alone in its bundle, sent through Alto to EntryPoint v0.8 on a local chain, sponsored by our
WalletPaymaster on both sides; gas is the bundle transaction's \`gasUsed\`. The second operation of each kind is measured
(the first warms each account's storage alike); the recipient already holds the coin and the token. "Charged / tx" is
what the EntryPoint charged the paymaster (\`actualGasUsed\`) over the transaction's gas: how tight the estimated limits
are (goal: within 5 %).

| Operation | Ours | SimpleAccount | Ratio | Goal | Met | Charged / tx (ours, SimpleAccount) |
| --- | --- | --- | --- | --- | --- | --- |
${gasResults.gas
  .map(
    (g: GasRow) =>
      `| ${g.operation} | ${g.ours} | ${g.reference} | ${g.ratio.toFixed(3)} | ${g.goal === undefined ? '(reported)' : `<= ${g.goal}`} | ${g.goal === undefined ? '' : g.ratio <= g.goal ? 'yes' : '**no**'} | ${g.chargedOverShare.ours.toFixed(3)}${Math.abs(g.chargedOverShare.ours - 1) <= 0.05 ? '' : ' (**no**)'}, ${g.chargedOverShare.reference.toFixed(3)} |`,
  )
  .join('\n')}

No published figure of a gas-minimal account is copied here: none could be read from this machine (no network beyond
the package registries), and a figure from another EntryPoint, paymaster or chain would not compare.

## Bundling: sponsored transfers on one executor key

Sponsored capped transfers by that many accounts at once (each its own user), sent to Alto; operations per second from
the first send to the last receipt, gas per operation from the bundle transactions. Baseline: the same Alto settings
with room for one operation per bundle (\`--max-gas-per-bundle\` 250,000, \`--mempool-pop-batch-size\` 1). Goal at 10 at
once: >= 3x the operations per second and >= 20 % less gas per operation.

The last column is the same bundled Alto with three executor keys (\`--executor-private-keys\`), against one key
(issue 52: whether more keys lift what one Alto bundles; docs/production.md).

| At once | Bundled op/s | One per bundle op/s | Ratio | Bundled gas/op | One per bundle gas/op | Ratio | Transactions (bundled / one per bundle) | Met | Three executor keys op/s (vs one) |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${gasResults.bundling
  .map((b: BundlingRow) => {
    const speed = b.bundled.opsPerSecond / b.single.opsPerSecond;
    const gas = b.bundled.gasPerOperation / b.single.gasPerOperation;
    const met = b.users === 10 ? (speed >= 3 && gas <= 0.8 ? 'yes' : '**no**') : '';
    return `| ${b.users} | ${b.bundled.opsPerSecond.toFixed(1)} | ${b.single.opsPerSecond.toFixed(1)} | ${speed.toFixed(2)} | ${Math.round(b.bundled.gasPerOperation)} | ${Math.round(b.single.gasPerOperation)} | ${gas.toFixed(2)} | ${b.bundled.transactions} / ${b.single.transactions} (of ${b.bundled.operations} operations) | ${met} | ${b.threeKeys.opsPerSecond.toFixed(1)} (${(b.threeKeys.opsPerSecond / b.bundled.opsPerSecond).toFixed(2)}) |`;
  })
  .join('\n')}

Baselines: a bare Koa app answering a constant (\`bench/bare-koa.ts\`); a plain script starting the charge workflow with
\`client.workflow.start\` (\`bench/start-loop.ts\`; both start measurements run with the worker stopped, so only starts
count); a workflow running two no-op activities, as many as a charge's happy path (\`bench/baseline-workflows.ts\`).
Charge completion is measured from the HTTP request to the workflow's result; key rotation from the execute request
to the workflow's result.
`;
  // The reading of the figures (what bounds each ratio, what profiling found) is kept by hand in bench/NOTES.md.
  const notes = join(ROOT, 'bench/NOTES.md');
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), report + (existsSync(notes) ? `\n${readFileSync(notes, 'utf8')}` : ''));
  mkdirSync(join(ROOT, '.data'), { recursive: true });
  writeFileSync(join(ROOT, '.data/bench-results.json'), JSON.stringify(results, null, 2));
  console.log(`\n${report}`);

  await temporalClient.connection.close();
  await shutdown(chains, temporal, sandboxServers, admin, dbName);
}

async function shutdown(
  chains: RunningChain[],
  temporal: { stop(): Promise<void> },
  sandboxServer: { close(): void },
  admin: PgClient,
  dbName: string,
): Promise<void> {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  for (const chain of chains) await chain.stop();
  await temporal.stop();
  sandboxServer.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  for (const clean of scratch) clean();
}

main().catch(async (error) => {
  console.error(error);
  for (const child of children) child.kill('SIGKILL');
  // Nothing left running after a failure (found: a failed set-up left Temporal, the chains and Alto behind).
  await Promise.allSettled(stopOnFailure.map((stop) => stop()));
  for (const clean of scratch) {
    try {
      clean();
    } catch {
      /* best effort */
    }
  }
  process.exit(1);
});
