import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { resolveTemporalCli } from '../../dev/temporal-cli';
import { startTemporalDevServer, type RunningDevServer } from '../../dev/temporal-dev-server';
import { startPostgresInstance, type PostgresInstance } from '../../dev/postgres-instance';
import { startAlto } from '../../dev/alto';
import { startTestStack, type TestStack } from '../helpers/stack';
import type { TestDatabaseKind } from '../helpers/databases';
import { freePort } from '../helpers/global-setup';
import { bundleWorkflowsForRun } from '../helpers/workflow-bundle';
import { runServiceProcess, type ServiceProcess } from '../helpers/processes';

/** One of the cluster's service processes (an api or a worker), which the fault driver kills and starts again. */
export class ManagedProcess {
  private current?: ServiceProcess;
  /** Everything each run of it wrote, for the report when something goes wrong. */
  private readonly outputs: string[] = [];

  constructor(
    readonly name: string,
    private readonly file: string,
    private readonly env: Record<string, string>,
  ) {}

  get running(): boolean {
    return this.current !== undefined;
  }

  start(): void {
    if (this.current) return;
    const started = runServiceProcess(this.file, this.env);
    this.current = started;
    void started.exited.then(() => {
      this.outputs.push(started.output());
      if (this.current === started) this.current = undefined;
    });
  }

  /** SIGKILL: no shutdown hook runs, no connection is closed politely, whatever was under way is cut. */
  async kill(): Promise<void> {
    const running = this.current;
    if (!running) return;
    this.current = undefined;
    running.child.kill('SIGKILL');
    await running.exited;
  }

  /** The last lines this process wrote (every run of it). */
  tail(lines = 40): string {
    return [...this.outputs, this.current?.output() ?? '']
      .join('\n')
      .split('\n')
      .filter(Boolean)
      .slice(-lines)
      .join('\n');
  }
}

/**
 * A round-robin balancer in front of the api processes, as a load balancer is in production: each connection goes to
 * the next api process that accepts it (one that is down refuses the connection, and the next is tried: nothing was
 * sent yet). A request already sent to a process that dies is cut, as it would be: the client retries.
 */
async function startBalancer(upstreams: () => number[]): Promise<{ url: string; stop(): Promise<void> }> {
  let turn = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.pause();
    const ports = upstreams();
    const attempt = (tries: number) => {
      if (tries >= ports.length) {
        client.destroy();
        return;
      }
      const port = ports[turn++ % ports.length]!;
      const upstream = connect({ host: '127.0.0.1', port });
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        client.pipe(upstream).pipe(client);
        client.resume();
      });
      upstream.on('error', () => {
        if (!connected) attempt(tries + 1);
        else client.destroy();
      });
      client.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    };
    attempt(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Confirmations before an EVM transfer is final in the soak: more than the deepest reorg it makes. */
export const SOAK_CONFIRMATIONS = 4;

export interface SoakCluster {
  stack: TestStack;
  /** The balancer in front of the api processes: what the simulated apps call. */
  apiUrl: string;
  postgres: PostgresInstance;
  apis: ManagedProcess[];
  workers: ManagedProcess[];
  /** Stops the chain's bundler (Alto: its mempool is lost) and starts it again on the same port after `downMs`. */
  restartAlto(chainIndex: number, downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SoakClusterOptions {
  /** Extra settings of the api processes and of the workers. */
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
  log: (line: string) => void;
}

/**
 * The soak's cluster: a PostgreSQL server of its own (so it can be restarted), the Temporal dev server (the test run's
 * when under jest), the test stack's chains (two EVM chains with Alto, the local SOLANA), sandbox and listeners, and,
 * as production runs them, two api processes behind a balancer and two worker processes (the stack's in-process worker
 * is stopped once the stack is up).
 */
export async function startSoakCluster(options: SoakClusterOptions): Promise<SoakCluster> {
  const { log } = options;
  const cleanups: Array<() => Promise<void> | void> = [];
  let temporal: RunningDevServer | undefined;
  if (!process.env.TEST_RUN_DIR) {
    process.env.TEST_RUN_DIR = mkdtempSync(join(tmpdir(), 'wallet-soak-run-'));
    const runDir = process.env.TEST_RUN_DIR;
    cleanups.push(() => rmSync(runDir, { recursive: true, force: true }));
  }
  if (!process.env.TEST_WORKFLOW_BUNDLE) await bundleWorkflowsForRun(process.env.TEST_RUN_DIR);
  if (!process.env.TEMPORAL_TEST_ADDRESS) {
    log('starting the Temporal dev server');
    temporal = await startTemporalDevServer({
      cliPath: resolveTemporalCli({ build: true, log }),
      port: await freePort(),
    });
    process.env.TEMPORAL_TEST_ADDRESS = temporal.address;
    cleanups.push(() => temporal!.stop());
  }
  log('starting a PostgreSQL server of the soak’s own');
  const pgDir = mkdtempSync(join(tmpdir(), 'wallet-soak-pg-'));
  chmodSync(pgDir, 0o755); // the postgres user (under root) must reach it
  const postgres = startPostgresInstance(join(pgDir, 'postgresql'), await freePort());
  cleanups.push(() => {
    postgres.stop();
    rmSync(pgDir, { recursive: true, force: true });
  });
  const database: TestDatabaseKind = {
    name: 'postgresql',
    async create() {
      const admin = new PgClient({ connectionString: postgres.url });
      await admin.connect();
      await admin.query('create database soak');
      await admin.end();
      return { url: Object.assign(new URL(postgres.url), { pathname: '/soak' }).toString(), drop: async () => {} };
    },
  };
  log('starting the stack: chains (anvil, Alto, SOLANA), sandbox, listeners');
  const stack = await startTestStack(database, {
    chains: true,
    solana: true,
    // A block every second besides one per transaction, and four confirmations: a reorg of up to three blocks
    // (faults.ts) takes back what was included but not final.
    chainBlockSeconds: 1,
    confirmations: SOAK_CONFIRMATIONS,
    env: options.env,
    workerEnv: options.workerEnv,
  });
  await stack.stopWorker();
  const workers = [1, 2].map(
    (n) =>
      new ManagedProcess(`worker-${n}`, 'worker/main.ts', {
        ...stack.workerProcessEnv(),
        LOG_LEVEL: 'warn',
      }),
  );
  const apiPorts = [await freePort(), await freePort()];
  const apis = apiPorts.map(
    (port, i) => new ManagedProcess(`api-${i + 1}`, 'api/main.ts', { ...stack.apiProcessEnv(port), LOG_LEVEL: 'warn' }),
  );
  const balancer = await startBalancer(() => apiPorts.filter((_, i) => apis[i]!.running));
  for (const process of [...apis, ...workers]) process.start();
  // The identity provider's callbacks and the banks' notices reach the api processes through the balancer too.
  stack.pointSandboxAt(balancer.url);
  log(`api processes on ${apiPorts.join(', ')} behind ${balancer.url}; two worker processes`);
  await waitForApis(balancer.url);

  return {
    stack,
    apiUrl: balancer.url,
    postgres,
    apis,
    workers,
    async restartAlto(chainIndex, downMs) {
      const chain = stack.chains[chainIndex]!;
      const port = Number(new URL(chain.bundler.url).port);
      await chain.bundler.stop();
      await new Promise((r) => setTimeout(r, downMs));
      chain.bundler = await startAlto({
        rpcUrl: chain.proxy.url,
        entryPoint: chain.entryPoint,
        port,
        debugEndpoints: true,
      });
    },
    async stop() {
      await Promise.all([...apis, ...workers].map((p) => p.kill()));
      await balancer.stop();
      await stack.stop().catch((error: unknown) => log(`stopping the stack: ${String(error)}`));
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}

/** Until both api processes answer /readyz (they migrate nothing: the stack did). */
async function waitForApis(url: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  let ready = 0;
  while (ready < 4) {
    if (Date.now() > deadline) throw new Error('the api processes never became ready');
    const ok = await fetch(`${url}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    ready = ok ? ready + 1 : 0;
    await new Promise((r) => setTimeout(r, 500));
  }
}
