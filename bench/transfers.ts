/**
 * Transfers per second end to end: users at once, each sending a sponsored capped transfer through the API
 * (`POST /api/v1/transfer/crypto/execute` -> the transfer workflow -> screening -> the signed user operation -> the
 * bundler -> the chain -> the answer), against the same kind of operation pre-signed and sent straight to the same
 * Alto, in the same run, with the whole stack up.
 */
import { randomUUID } from 'node:crypto';
import { JsonRpcProvider, NonceManager, Wallet, parseEther } from 'ethers';
import { ANVIL_DEPLOYER_KEY } from '../dev/chains';
import { BundlerClient, toRpcOperation } from '../integrations/evm/bundler-client';
import type { EvmNetwork } from '../platform/networks';
import { registerUser, type RegisteredUser } from '../test/helpers/http';
import { callApi } from '../test/helpers/bank';
import { transferPin } from '../test/helpers/pin';
import { deployAccount } from '../test/helpers/wallet';
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { finalityWatchWorkflowId, transferWorkflowId } from '../workflows/messages';
import { accountsWithTransferKey, receiptOf, signedTransfer, type Chain } from './gas';

export interface TransferRound {
  /** Transfers sent at once. */
  users: number;
  /** Transfers confirmed per second, from the first request (or send) to the last confirmation. */
  perSecond: number;
  /** From each request (or send) to its confirmation, ms. */
  p50: number;
  p99: number;
  /** Bundle transactions the operations went out in. */
  transactions: number;
  /** CPU ms per transfer of each process, and how busy the machine was. */
  cpu?: { perRequest: Record<string, number>; machineBusyPercent: number };
}

/** What Temporal did per transfer (means over a round), from the histories: the transfer's and its children's. */
export interface WorkflowCounts {
  workflowsStarted: number;
  workflowTasks: number;
  activityTasks: number;
  localActivities: number;
  historyEvents: number;
}

export interface TransferLevel {
  users: number;
  api: TransferRound;
  bundler: TransferRound;
  /** The minimal durable transfer: a workflow whose one activity sends the pre-signed operation and awaits its receipt. */
  durable: TransferRound;
  counts: { api: WorkflowCounts; durable: WorkflowCounts };
  /** Where the API round's time went (medians over its transfers, ms), from the workflows' histories. */
  breakdown: Record<string, number>;
  /** The same for the minimal durable transfers (its one activity's wait and run, its workflow tasks'). */
  durableBreakdown: Record<string, number>;
  /**
   * Database statements per transfer through the API (each process's db_statements_total over the round, from the
   * first request to the last confirmation; the finality watch's reads in that time included), BEGIN and COMMIT counted.
   */
  statements: { api: number; worker: number };
}

/**
 * Where each transfer's time went, from its workflow's history and the bench's clock (the same machine's): from the
 * request to the workflow's start, each workflow task's wait in the queue and run, each activity's wait and run, and
 * from the workflow's close to the answer. Medians over the transfers.
 */
async function breakdownOf(
  client: Client,
  transfers: Array<{ workflowId: string; sentAt: number; answeredAt: number }>,
): Promise<Record<string, number>> {
  const E = temporal.api.enums.v1.EventType;
  const at = (e: temporal.api.history.v1.IHistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
  const parts: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (parts[name] ??= []).push(ms);
  for (const { workflowId, sentAt, answeredAt } of transfers) {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const byId = new Map(events.map((e) => [Number(e.eventId), e]));
    const started = events.find((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED)!;
    const closed = events.find((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)!;
    add('request to workflow start', at(started) - sentAt);
    add('workflow close to answer', answeredAt - at(closed));
    let wftWait = 0;
    let wftRun = 0;
    for (const e of events) {
      if (e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        wftWait += at(e) - at(byId.get(Number(e.workflowTaskStartedEventAttributes!.scheduledEventId))!);
      }
      if (e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        wftRun += at(e) - at(byId.get(Number(e.workflowTaskCompletedEventAttributes!.startedEventId))!);
      }
      if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED) {
        const { scheduledEventId, startedEventId } = e.activityTaskCompletedEventAttributes!;
        const scheduled = byId.get(Number(scheduledEventId))!;
        const name = scheduled.activityTaskScheduledEventAttributes!.activityType!.name!;
        add(`${name} queue wait`, at(byId.get(Number(startedEventId))!) - at(scheduled));
        add(`${name} run`, at(e) - at(byId.get(Number(startedEventId))!));
      }
    }
    add('workflow tasks queue wait (sum)', wftWait);
    add('workflow tasks run (sum)', wftRun);
    add('whole', answeredAt - sentAt);
  }
  return Object.fromEntries(Object.entries(parts).map(([name, values]) => [name, Math.round(percentile(values, 50))]));
}

/**
 * Per transfer, what Temporal did: workflows started (the transfer's and, recursively, its children), workflow tasks
 * run, activity tasks scheduled, local activities run (markers) and history events, from each workflow's history.
 * `shared`: workflows that serve every transfer (the network's finality watch), whose events from `since` on are
 * shared out among the transfers (their workflow not counted as started).
 */
async function countsOf(
  client: Client,
  workflowIds: string[],
  shared?: { workflowIds: string[]; since: number },
): Promise<WorkflowCounts> {
  const E = temporal.api.enums.v1.EventType;
  const total: WorkflowCounts = {
    workflowsStarted: 0,
    workflowTasks: 0,
    activityTasks: 0,
    localActivities: 0,
    historyEvents: 0,
  };
  const queue = [...workflowIds];
  while (queue.length > 0) {
    const events = (await client.workflow.getHandle(queue.shift()!).fetchHistory()).events ?? [];
    total.workflowsStarted += 1;
    total.historyEvents += events.length;
    for (const e of events) {
      if (e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) total.workflowTasks += 1;
      if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) total.activityTasks += 1;
      if (
        e.eventType === E.EVENT_TYPE_MARKER_RECORDED &&
        e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
      )
        total.localActivities += 1;
      if (e.eventType === E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED)
        queue.push(e.childWorkflowExecutionStartedEventAttributes!.workflowExecution!.workflowId!);
    }
  }
  for (const workflowId of shared?.workflowIds ?? []) {
    const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    for (const e of events) {
      const at = Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
      if (at < shared!.since) continue;
      total.historyEvents += 1;
      if (e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) total.workflowTasks += 1;
      if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) total.activityTasks += 1;
    }
  }
  const mean = (n: number) => Math.round((n / Math.max(1, workflowIds.length)) * 10) / 10;
  return {
    workflowsStarted: mean(total.workflowsStarted),
    workflowTasks: mean(total.workflowTasks),
    activityTasks: mean(total.activityTasks),
    localActivities: mean(total.localActivities),
    historyEvents: mean(total.historyEvents),
  };
}

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

/** Runs `work` over `items`, at most `limit` at a time. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!, i);
      }
    }),
  );
  return results;
}

const INCLUDED = new Set(['confirmed', 'finalized']);

type Cpu = {
  snapshot(): unknown;
  per(before: unknown, count: number): { perRequest: Record<string, number>; machineBusyPercent: number };
};

/** A round's raw figures, kept so several rounds at one level can be pooled. */
interface RawRound {
  users: number;
  seconds: number;
  latencies: number[];
  hashes: Set<string>;
  cpu: { perRequest: Record<string, number>; machineBusyPercent: number };
}

/**
 * Runs `each` over `items` at once and times them: from the start to the last one done, each one's latency, the
 * bundles they went out in (what `each` answers) and the CPU of each process over the round.
 */
async function timedRound<T>(items: T[], cpu: Cpu, each: (item: T) => Promise<string>): Promise<RawRound> {
  const cpuBefore = cpu.snapshot();
  const started = performance.now();
  const done: number[] = [];
  const latencies: number[] = [];
  const hashes = new Set<string>();
  await Promise.all(
    items.map(async (item) => {
      const t0 = performance.now();
      hashes.add(await each(item));
      const now = performance.now();
      done.push(now);
      latencies.push(now - t0);
    }),
  );
  return {
    users: items.length,
    seconds: (Math.max(...done) - started) / 1000,
    latencies,
    hashes,
    cpu: cpu.per(cpuBefore, items.length),
  };
}

/**
 * Rounds of one level pooled: per second over their summed durations, the percentiles over every transfer's latency,
 * the bundles counted together and each process's CPU per transfer averaged (every round sends as many).
 */
function pooled(rounds: RawRound[]): TransferRound {
  const latencies = rounds.flatMap((r) => r.latencies);
  const mean = (values: number[]) => Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10) / 10;
  const processes = Object.keys(rounds[0]!.cpu.perRequest);
  return {
    users: rounds[0]!.users,
    perSecond:
      Math.round((rounds.reduce((n, r) => n + r.users, 0) / rounds.reduce((n, r) => n + r.seconds, 0)) * 10) / 10,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    transactions: rounds.reduce((n, r) => n + r.hashes.size, 0),
    cpu: {
      perRequest: Object.fromEntries(processes.map((p) => [p, mean(rounds.map((r) => r.cpu.perRequest[p] ?? 0))])),
      machineBusyPercent: mean(rounds.map((r) => r.cpu.machineBusyPercent)),
    },
  };
}

/**
 * Rounds per level: one transfer's latency moves by hundreds of ms with where Alto's bundling and the chain's block
 * fall, so a p50 of one round of 10 moved by more than 400 ms between runs of one build. Up to 10 at once, this many
 * rounds of each kind run in turn (straight, minimal durable, ours, then again) and are pooled.
 */
export const SMALL_LEVEL_ROUNDS = 5;

const PIN = '482915';

export async function transfersEndToEnd(options: {
  stack: { apiUrl: string; sandboxUrl: string };
  network: EvmNetwork;
  log: (line: string) => void;
  levels: number[];
  temporalClient: Client;
  /** A client without the service's payload encryption, and the task queue of the baseline worker. */
  baseline: { client: Client; taskQueue: string };
  cpu: Cpu;
  /** Statements each process (api, worker) sent to the database so far. */
  statements: () => Promise<{ api: number; worker: number }>;
  /** Called once the users are set up and the warm-up ran, before the measured rounds. */
  atMeasuredLoad?: () => void | Promise<void>;
}): Promise<TransferLevel[]> {
  const { stack, network, log, levels, temporalClient, baseline, cpu } = options;
  const provider = new JsonRpcProvider(network.rpcUrl, network.chainId, { staticNetwork: true, pollingInterval: 100 });
  const chain: Chain = {
    network,
    provider,
    deployer: new NonceManager(new Wallet(ANVIL_DEPLOYER_KEY, provider)),
    simpleFactory: '',
    stop: async () => provider.destroy(),
  };
  const bundler = new BundlerClient(network.bundlerUrl, network.entryPoint);
  const most = Math.max(...levels);
  const roundsAt = (users: number) => (users <= 10 ? SMALL_LEVEL_ROUNDS : 1);
  // A level's rounds through the API are sent by different users: every transfer goes to a new recipient, and five
  // new recipients of one user within a day open a monitoring case (MONITORING_FAN_OUT_RECIPIENTS) that holds it.
  const registered = Math.max(...levels.map((users) => users * roundsAt(users)));
  try {
    // ---- Set-up (unmeasured): users with a PIN and a deployed account holding 1 ETH; accounts of our own for the
    // pre-signed operations, on the same chain and bundler.
    const setUp = performance.now();
    log(`  ${registered} users with a PIN and an account on ${network.networkId} (registered 4 at a time)`);
    const users: Array<{ user: RegisteredUser; account: string }> = await inBatches(
      Array.from({ length: registered }, (_, i) => i),
      4,
      async () => {
        const user = await registerUser(stack, undefined, { pin: PIN });
        return { user, account: await deployAccount(stack, user, Wallet.createRandom(), network.networkId) };
      },
    );
    log(`  registered and deployed in ${Math.round((performance.now() - setUp) / 1000)} s`);
    const funded = [];
    for (const { account } of users)
      funded.push(await chain.deployer.sendTransaction({ to: account, value: parseEther('1') }));
    await Promise.all(funded.map((tx) => tx.wait()));
    log(`  ${most} accounts of the bench's own with its transfer key, for the pre-signed operations`);
    const transferKey = Wallet.createRandom();
    const ownAccounts = await accountsWithTransferKey(chain, bundler, transferKey, most);

    // The API's transfers and statements, and the minimal durable transfers, of the level's rounds so far.
    let lastRound: Array<{ transferId: string; sentAt: number; answeredAt: number }> = [];
    let lastStatements = { api: 0, worker: 0 };
    const viaApi = async (count: number, nth = 0): Promise<RawRound> => {
      // Each request's body and its PIN (a JWE naming this very transfer) made before the clock starts.
      const requests = await Promise.all(
        users.slice(nth * count, (nth + 1) * count).map(async ({ user }) => {
          const key = randomUUID();
          const body = {
            to_address: Wallet.createRandom().address,
            network: network.networkId,
            token: 'ETH',
            amount: '0.0001',
          };
          return { user, key, body: { ...body, pin: await transferPin(stack, PIN, body, key) } };
        }),
      );
      const statementsBefore = await options.statements();
      const round = await timedRound(requests, cpu, async ({ user, key, body }) => {
        const sentAt = Date.now();
        let answer = await callApi(stack, '/api/v1/transfer/crypto/execute', user, { json: body, key });
        if (answer.status !== 200 && answer.status !== 202)
          throw new Error(`transfer answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        while (!INCLUDED.has(answer.body.status as string)) {
          if (answer.body.status === 'failed' || answer.body.status === 'held_for_review')
            throw new Error(`transfer ${answer.body.status as string}: ${JSON.stringify(answer.body)}`);
          await new Promise((r) => setTimeout(r, 50));
          answer = await callApi(stack, `/api/v1/transfer/crypto/${answer.body.transfer_id}`, user);
        }
        lastRound.push({ transferId: answer.body.transfer_id as string, sentAt, answeredAt: Date.now() });
        return answer.body.tx_hash as string;
      });
      const statementsAfter = await options.statements();
      lastStatements = {
        api: lastStatements.api + statementsAfter.api - statementsBefore.api,
        worker: lastStatements.worker + statementsAfter.worker - statementsBefore.worker,
      };
      return round;
    };

    /** Pre-signed transfers by the bench's own accounts, one each, signed before the clock starts. */
    const signedOps = (count: number) =>
      Promise.all(
        ownAccounts
          .slice(0, count)
          .map((account) => signedTransfer(chain, bundler, transferKey, account, Wallet.createRandom().address, 100n)),
      );

    const straight = async (count: number): Promise<RawRound> => {
      const ops = await signedOps(count);
      return timedRound(ops, cpu, async (op) => {
        await bundler.send(op.op);
        const receipt = await receiptOf(bundler, op.hash);
        if (!receipt.success) throw new Error(`user operation ${op.hash} reverted`);
        return receipt.txHash;
      });
    };

    let lastDurable: Array<{ workflowId: string; sentAt: number; answeredAt: number }> = [];
    const durable = async (count: number): Promise<RawRound> => {
      const ops = await signedOps(count);
      return timedRound(ops, cpu, async (op) => {
        const workflowId = `bench-durable-transfer-${randomUUID()}`;
        const sentAt = Date.now();
        const txHash = (await baseline.client.workflow.execute('minimalDurableTransferWorkflow', {
          taskQueue: baseline.taskQueue,
          workflowId,
          args: [
            {
              bundlerUrl: network.bundlerUrl,
              entryPoint: network.entryPoint,
              op: toRpcOperation(op.op),
              hash: op.hash,
            },
          ],
        })) as string;
        lastDurable.push({ workflowId, sentAt, answeredAt: Date.now() });
        return txHash;
      });
    };

    log('  warm-up: 10 transfers through the API, 10 straight to the bundler, 10 minimal durable ones (unmeasured)');
    await viaApi(Math.min(10, most));
    await straight(Math.min(10, most));
    await durable(Math.min(10, most));
    await options.atMeasuredLoad?.();
    const rows: TransferLevel[] = [];
    for (const users of levels) {
      const rounds = roundsAt(users);
      const raw: Record<'bundler' | 'durable' | 'api', RawRound[]> = { bundler: [], durable: [], api: [] };
      lastRound = [];
      lastStatements = { api: 0, worker: 0 };
      lastDurable = [];
      for (let round = 0; round < rounds; round += 1) {
        raw.bundler.push(await straight(users));
        raw.durable.push(await durable(users));
        raw.api.push(await viaApi(users, round));
      }
      const [bundlerRound, durableRound, apiRound] = [pooled(raw.bundler), pooled(raw.durable), pooled(raw.api)];
      const sent = users * rounds;
      const per = (n: number) => Math.round((n / sent) * 10) / 10;
      lastStatements = { api: per(lastStatements.api), worker: per(lastStatements.worker) };
      if (rounds > 1) log(`  ${users} at once: ${rounds} rounds of each, pooled`);
      log(
        `  ${users} at once: API ${apiRound.perSecond}/s (p50 ${apiRound.p50} ms, p99 ${apiRound.p99} ms, ${apiRound.transactions} tx); ` +
          `straight to the bundler ${bundlerRound.perSecond}/s (p50 ${bundlerRound.p50} ms, p99 ${bundlerRound.p99} ms, ${bundlerRound.transactions} tx)`,
      );
      log(
        `  ${users} at once: minimal durable transfer ${durableRound.perSecond}/s (p50 ${durableRound.p50} ms, p99 ${durableRound.p99} ms, ${durableRound.transactions} tx)`,
      );
      const breakdown = await breakdownOf(
        temporalClient,
        lastRound.map((t) => ({ ...t, workflowId: transferWorkflowId(t.transferId) })),
      );
      const durableBreakdown = await breakdownOf(baseline.client, lastDurable);
      log(`  ${users} at once, where a transfer's time went (medians, ms): ${JSON.stringify(breakdown)}`);
      log(`  ${users} at once, where a minimal durable one's went: ${JSON.stringify(durableBreakdown)}`);
      log(
        `  ${users} at once, CPU ms per transfer: API ${JSON.stringify(apiRound.cpu)}; minimal durable ${JSON.stringify(durableRound.cpu)}; straight ${JSON.stringify(bundlerRound.cpu)}`,
      );
      const counts = {
        api: await countsOf(
          temporalClient,
          lastRound.map((t) => transferWorkflowId(t.transferId)),
          {
            // The network's finality watch, from the round's first request on (its finality work included).
            workflowIds: [finalityWatchWorkflowId(network.networkId, 'wallet')],
            since: Math.min(...lastRound.map((t) => t.sentAt)),
          },
        ),
        durable: await countsOf(
          baseline.client,
          lastDurable.map((t) => t.workflowId),
        ),
      };
      log(
        `  ${users} at once, per transfer: API ${JSON.stringify(counts.api)}; minimal durable ${JSON.stringify(counts.durable)}`,
      );
      log(`  ${users} at once, database statements per transfer through the API: ${JSON.stringify(lastStatements)}`);
      rows.push({
        users,
        api: apiRound,
        bundler: bundlerRound,
        durable: durableRound,
        counts,
        breakdown,
        durableBreakdown,
        statements: lastStatements,
      });
    }
    return rows;
  } finally {
    await chain.stop();
  }
}
