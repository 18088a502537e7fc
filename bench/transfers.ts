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
  transfers: Array<{ transferId: string; sentAt: number; answeredAt: number }>,
): Promise<Record<string, number>> {
  const E = temporal.api.enums.v1.EventType;
  const at = (e: temporal.api.history.v1.IHistoryEvent) =>
    Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;
  const parts: Record<string, number[]> = {};
  const add = (name: string, ms: number) => (parts[name] ??= []).push(ms);
  for (const { transferId, sentAt, answeredAt } of transfers) {
    const events = (await client.workflow.getHandle(transferWorkflowId(transferId)).fetchHistory()).events ?? [];
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

const summary = (users: number, started: number, done: number[], latencies: number[], transactions: number) => ({
  users,
  perSecond: Math.round((users / ((Math.max(...done) - started) / 1000)) * 10) / 10,
  p50: Math.round(percentile(latencies, 50)),
  p99: Math.round(percentile(latencies, 99)),
  transactions,
});

const INCLUDED = new Set(['confirmed', 'finalized']);

type Cpu = {
  snapshot(): unknown;
  per(before: unknown, count: number): { perRequest: Record<string, number>; machineBusyPercent: number };
};

/**
 * Runs `each` over `items` at once and times them: per second from the start to the last one done, each one's
 * latency, the bundles they went out in (what `each` answers) and the CPU of each process over the round.
 */
async function timedRound<T>(items: T[], cpu: Cpu, each: (item: T) => Promise<string>): Promise<TransferRound> {
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
  return { ...summary(items.length, started, done, latencies, hashes.size), cpu: cpu.per(cpuBefore, items.length) };
}
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
  try {
    // ---- Set-up (unmeasured): users with a PIN and a deployed account holding 1 ETH; accounts of our own for the
    // pre-signed operations, on the same chain and bundler.
    const setUp = performance.now();
    log(`  ${most} users with a PIN and an account on ${network.networkId} (registered 4 at a time)`);
    const users: Array<{ user: RegisteredUser; account: string }> = await inBatches(
      Array.from({ length: most }, (_, i) => i),
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

    let lastRound: Array<{ transferId: string; sentAt: number; answeredAt: number }> = [];
    let lastStatements = { api: 0, worker: 0 };
    const viaApi = async (count: number): Promise<TransferRound> => {
      lastRound = [];
      // Each request's body and its PIN (a JWE naming this very transfer) made before the clock starts.
      const requests = await Promise.all(
        users.slice(0, count).map(async ({ user }) => {
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
          if (answer.body.status === 'failed') throw new Error(`transfer failed: ${JSON.stringify(answer.body)}`);
          await new Promise((r) => setTimeout(r, 50));
          answer = await callApi(stack, `/api/v1/transfer/crypto/${answer.body.transfer_id}`, user);
        }
        lastRound.push({ transferId: answer.body.transfer_id as string, sentAt, answeredAt: Date.now() });
        return answer.body.tx_hash as string;
      });
      const statementsAfter = await options.statements();
      const per = (n: number) => Math.round((n / count) * 10) / 10;
      lastStatements = {
        api: per(statementsAfter.api - statementsBefore.api),
        worker: per(statementsAfter.worker - statementsBefore.worker),
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

    const straight = async (count: number): Promise<TransferRound> => {
      const ops = await signedOps(count);
      return timedRound(ops, cpu, async (op) => {
        await bundler.send(op.op);
        const receipt = await receiptOf(bundler, op.hash);
        if (!receipt.success) throw new Error(`user operation ${op.hash} reverted`);
        return receipt.txHash;
      });
    };

    let lastDurable: string[] = [];
    const durable = async (count: number): Promise<TransferRound> => {
      lastDurable = [];
      const ops = await signedOps(count);
      return timedRound(ops, cpu, async (op) => {
        const workflowId = `bench-durable-transfer-${randomUUID()}`;
        lastDurable.push(workflowId);
        return baseline.client.workflow.execute('minimalDurableTransferWorkflow', {
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
        }) as Promise<string>;
      });
    };

    log('  warm-up: 10 transfers through the API, 10 straight to the bundler, 10 minimal durable ones (unmeasured)');
    await viaApi(Math.min(10, most));
    await straight(Math.min(10, most));
    await durable(Math.min(10, most));
    await options.atMeasuredLoad?.();
    const rows: TransferLevel[] = [];
    for (const users of levels) {
      const bundlerRound = await straight(users);
      const durableRound = await durable(users);
      const apiRound = await viaApi(users);
      log(
        `  ${users} at once: API ${apiRound.perSecond}/s (p50 ${apiRound.p50} ms, p99 ${apiRound.p99} ms, ${apiRound.transactions} tx); ` +
          `straight to the bundler ${bundlerRound.perSecond}/s (p50 ${bundlerRound.p50} ms, p99 ${bundlerRound.p99} ms, ${bundlerRound.transactions} tx)`,
      );
      log(
        `  ${users} at once: minimal durable transfer ${durableRound.perSecond}/s (p50 ${durableRound.p50} ms, p99 ${durableRound.p99} ms, ${durableRound.transactions} tx)`,
      );
      const breakdown = await breakdownOf(temporalClient, lastRound);
      log(`  ${users} at once, where a transfer's time went (medians, ms): ${JSON.stringify(breakdown)}`);
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
        durable: await countsOf(baseline.client, lastDurable),
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
        statements: lastStatements,
      });
    }
    return rows;
  } finally {
    await chain.stop();
  }
}
