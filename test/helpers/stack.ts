import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID, generateKeyPairSync } from 'node:crypto';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Client } from '@temporalio/client';
import { createOrm, type Orm } from '../../db/orm';
import { DataEncryption } from '../../platform/data-encryption';
import { createDataConverter, createTemporalClient } from '../../platform/temporal';
import { setClockOffset } from '../../platform/clock';
import { followTestClock } from '../../db/clock-offset';
import { ormResidentDatabase } from '../../db/sql';
import { createLogger } from '../../platform/logger';
import { loadConfig, API_CONFIG_KEYS, WORKER_CONFIG_KEYS, type ApiConfig } from '../../platform/config';
import { createActivities, type Activities } from '../../activities';
import { sanctionsListRefreshWorkflow } from '../../workflows/compliance';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';
import { createApp, type App } from '../../api/app';
import { composeApi } from '../../api/composition';
import type { SessionCache } from '../../api/common/session-cache';
import { exchangeRecorder } from './exchange-recorder';
import { composeWorker } from '../../worker/composition';
import { ALL_WORKER_ROLES, createWorkerGroup, type WorkerGroup } from '../../worker/worker-group';
import { ensureFinalityWatches } from '../../worker/watches';
import { createSandboxApp, type SandboxOptions } from '../../sandbox/app';
import {
  SANDBOX_CODE_ENTITY_ID,
  newSandboxCredentials,
  sandboxOptionsFor,
  sandboxServiceEnv,
} from '../../sandbox/service-env';
import { codeResponseApp, serveCodeListener } from '../../api/http/code-listener';
import {
  travelRuleIdentities,
  type SandboxVaspNetwork,
  type TravelRuleIdentities,
} from '../../sandbox/travel-rule-network';

/** The Travel Rule network's certificates, made once per test process (openssl). */
let testTravelRuleIdentities: TravelRuleIdentities | undefined;
/** The test stacks' Travel Rule CA and certificates (issue another VASP's leaf before a stack starts). */
export const travelRuleTestIdentities = (): TravelRuleIdentities =>
  (testTravelRuleIdentities ??= travelRuleIdentities());
import type { FaultInjector } from '../../sandbox/faults';
import type { TestDatabase, TestDatabaseKind } from './databases';
import { startTestChain, type TestChain } from './chains';
import { localDexNetwork } from '../../dev/uniswap';
import { startAlto, type AltoOptions, type RunningBundler } from '../../dev/alto';
import { freePort, testNamespace } from './global-setup';
import { ETHER_DTI, POLYGON_DTI, USDT_ETHEREUM_DTI } from '../../integrations/travel-rule/assets';
import { serveTravelRuleListener, trpIdentity } from '../../api/http/trp-listener';
import { providerTransport } from '../../platform/provider-settings';
import { testWorkflowBundle } from './workflow-bundle';
import { RpcProxy } from './rpc-proxy';
import { TcpProxy } from './tcp-proxy';
import { LOCAL_SWAP_PROGRAMS, seedJupiterPool, startLocalSolana, type LocalSolana } from '../../dev/solana-local';
import { jupiterPoolAddress } from '../../sandbox/jupiter';
import { priceAtMs } from '../../sandbox/upbit-quotation';
import {
  ANVIL_PAYMASTER_SIGNER_KEY,
  ANVIL_RECOVERY_ADDRESS,
  ANVIL_RECOVERY_KEY,
  LOCAL_INCLUSION_WATCH_MS,
} from '../../dev/chains';

let runtimeInstalled = false;

const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));

export interface TestStack {
  apiUrl: string;
  sandboxUrl: string;
  orm: Orm;
  temporal: Client;
  taskQueue: string;
  encryption: DataEncryption;
  faults: FaultInjector;
  /** The sandbox's Travel Rule network (its exchanges, their certificates' CA), and our own TRP listener's origin. */
  travelRule: { network: SandboxVaspNetwork; publicUrl: string };
  config: ApiConfig;
  app: App;
  chains: StackChain[];
  solana?: StackSolana;
  databaseProxy?: TcpProxy;
  /** The proxy of the session cache's LISTEN connection alone (option `listenProxy`). */
  listenProxy?: TcpProxy;
  /** The API's session cache (whether it serves from memory: `live`). */
  sessions?: SessionCache;
  startWorker(): Promise<void>;
  /** The environment of a worker process (worker/main.ts) that serves this stack's task queue. */
  workerProcessEnv(): Record<string, string>;
  /** The environment of another API process (api/main.ts) of this stack: same database, Temporal, sandbox and keys. */
  apiProcessEnv(port: number): Record<string, string>;
  stopWorker(): Promise<void>;
  /** Sends the sandbox's identity callbacks and bank webhooks to another API (a balancer in front of API processes). */
  pointSandboxAt(apiUrl: string): void;
  stop(): Promise<void>;
}

export const testJwk = (): string => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `test-${randomUUID()}` });
};

/**
 * The real stack for one test file: the real Temporal dev server (started by global setup), a real database,
 * the sandbox providers over HTTP, the API over HTTP and a real worker on its own task queue.
 */
export interface TestStackOptions {
  /** Environment overrides for the API's configuration. */
  env?: Record<string, string>;
  /** Environment overrides for the worker's configuration (a provider's timeout, the mail service's TLS). */
  workerEnv?: Record<string, string>;
  /** Collect the API's log lines here (at trace level). */
  logSink?: string[];
  /** More VASPs to exchange Travel Rule messages with, beside the sandbox's two (TRAVEL_RULE_COUNTERPARTS entries). */
  travelRuleCounterparts?: Record<
    string,
    { name: string; origin: string; certificateSha256: string; ivms101?: string }
  >;
  /** Start two real chains (ETHEREUM 31337, POLYGON 31338) with EntryPoint and the account factory. */
  chains?: boolean;
  /** Besides a block per transaction, a block every so many seconds (anvil mixed mining): for finality. */
  chainBlockSeconds?: number;
  /** EVM confirmations before a transfer is finalized (default 1: at inclusion, as the chains mine only on demand). */
  confirmations?: number;
  /** Options of each chain's bundler (Alto), e.g. one operation per bundle. */
  bundler?: Pick<AltoOptions, 'popBatchSize' | 'gasPriceExpirySeconds'>;
  /** Start the local SOLANA chain (LiteSVM behind Solana JSON-RPC, test USDT, faucet), reached through an RpcProxy. */
  solana?: boolean;
  /** Reach the database (PostgreSQL) through a TcpProxy, so a test can cut it as a restart would. */
  databaseProxy?: boolean;
  /**
   * Reach the database's LISTEN connection (the session cache's, DATABASE_LISTEN_URL) through a TcpProxy of its own,
   * so a test can silence it while the API's queries go on.
   */
  listenProxy?: boolean;
  /** The API's port, when a test must name it before the stack starts (a browser origin, the UI's codec endpoint). */
  apiPort?: number;
  /**
   * The worker's real activities, wrapped: a test that makes an activity's answer get lost (it commits, then throws as
   * a dropped connection would) puts a fault where no provider or proxy can.
   */
  wrapActivities?: (activities: Activities) => Activities;
}

export type StackSolana = LocalSolana & { proxy: RpcProxy };

/**
 * A chain of a test stack with its bundler (Alto). The service reaches the chain only through `proxy` and the bundler
 * only through `bundlerProxy`, and the bundler reaches the chain through `proxy` too, so tests can make either fail.
 */
export type StackChain = TestChain & { proxy: RpcProxy; bundler: RunningBundler; bundlerProxy: RpcProxy };

/**
 * The sandbox (every third-party stand-in) with fresh credentials, listening: its HTTP services and its mail service
 * (SMTP) on free ports. `env`: the provider settings that point the service at it (sandbox/service-env.ts).
 */
export async function startTestSandbox(options: Pick<SandboxOptions, 'mailTls'> = {}) {
  const credentials = newSandboxCredentials();
  const identities = travelRuleTestIdentities();
  const sandbox = createSandboxApp(
    sandboxOptionsFor(credentials, { callbackUrl: '', travelRule: identities, ...options }),
  );
  const server = sandbox.koa.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  await new Promise<void>((resolve) => sandbox.smtp.listen(0, '127.0.0.1', resolve));
  await sandbox.travelRule.listen();
  const address = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    smtpPort: (sandbox.smtp.server.address() as AddressInfo).port,
    travelRule: { counterparts: sandbox.travelRule.counterpartsJson(), identities },
  };
  return {
    sandbox,
    credentials,
    url: address.url,
    // Every valuation asks the quotation API: the tests change its answers between calls.
    env: { ...sandboxServiceEnv(address, credentials), PRICE_FEED_KEEP_SECONDS: '0' } as Record<string, string>,
    async stop() {
      await close(server);
      await sandbox.travelRule.close();
      await new Promise<void>((resolve) => sandbox.smtp.close(() => resolve()));
    },
  };
}

/** A fresh P-256 key PINs are encrypted to. */
export const testPinJwk = (): string => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: `pin-${randomUUID()}` });
};

export async function startTestStack(kind: TestDatabaseKind, options: TestStackOptions = {}): Promise<TestStack> {
  const { env: overrides = {}, logSink } = options;
  if (!runtimeInstalled) {
    Runtime.install({
      logger: new DefaultLogger((process.env.TEST_TEMPORAL_LOG_LEVEL as 'WARN' | 'ERROR' | undefined) ?? 'ERROR'),
    });
    runtimeInstalled = true;
  }
  const database: TestDatabase = await kind.create();
  const databaseProxy = options.databaseProxy ? await proxyOf(database.url) : undefined;
  const databaseUrl = databaseProxy?.url ?? database.url;
  const listenProxy = options.listenProxy ? await proxyOf(database.url) : undefined;
  // Both chains (each with its contracts and bundler) start at once: a chain's start is mostly waiting.
  const chains: StackChain[] = await Promise.all(
    (options.chains ? [31337, 31338] : []).map(async (chainId) => {
      const chain = await startTestChain(chainId, options.chainBlockSeconds);
      const proxy = new RpcProxy(chain.rpcUrl);
      await proxy.start();
      const bundler = await startAlto({
        rpcUrl: proxy.url,
        entryPoint: chain.entryPoint,
        port: await freePort(),
        debugEndpoints: true,
        ...options.bundler,
      });
      const bundlerProxy = new RpcProxy(bundler.url);
      await bundlerProxy.start();
      return { ...chain, proxy, bundler, bundlerProxy };
    }),
  );
  let solana: StackSolana | undefined;
  if (options.solana) {
    const node = await startLocalSolana();
    const proxy = new RpcProxy(node.rpcUrl);
    await proxy.start();
    solana = { ...node, proxy };
    // The sandbox's Jupiter pool at the market's price (its wallet's SOL and USDT on this chain).
    await seedJupiterPool(node, await jupiterPoolAddress(), (symbol) => priceAtMs(symbol, Date.now()));
  }
  const networksJson = JSON.stringify({
    ...Object.fromEntries(
      chains.map((chain, i) => [
        i === 0 ? 'ETHEREUM' : 'POLYGON',
        {
          kind: 'evm',
          chainId: chain.chainId,
          rpcUrl: chain.proxy.url,
          entryPoint: chain.entryPoint,
          bundlerUrl: chain.bundlerProxy.url,
          accountFactory: chain.accountFactory,
          paymaster: chain.paymaster,
          didRegistry: chain.didRegistry,
          recoverableImplementation: chain.recoverableImplementation,
          nativeSymbol: i === 0 ? 'ETH' : 'POL',
          // The local chains stand for Ethereum and Polygon: their coins are announced as those (Travel Rule).
          coinDti: i === 0 ? ETHER_DTI : POLYGON_DTI,
          // The local USDT stands for Tether's: on ETHEREUM it carries USDT's DTI (Travel Rule messages name it).
          ...localDexNetwork(
            i === 0 ? 'ETHEREUM' : 'POLYGON',
            chain.uniswap,
            chain.usdt,
            i === 0 ? USDT_ETHEREUM_DTI : undefined,
          ),
          confirmations: options.confirmations ?? 1,
          inclusionWatchMs: LOCAL_INCLUSION_WATCH_MS,
          // ETHEREUM's transfers send in the workflow's worker (version 5, a local activity), POLYGON's as an activity
          // on the chains' queue (version 4, a network without the setting), so the tests hold both to their faults.
          transferSendLocal: i === 0,
        },
      ]),
    ),
    ...(solana
      ? {
          SOLANA: {
            kind: 'solana',
            rpcUrl: solana.proxy.url,
            faucetUrl: solana.faucetUrl,
            tokens: { USDT: { mint: solana.usdtMint, decimals: 6 } },
            dex: { kind: 'jupiter', tradable: ['SOL', 'USDT'], programs: LOCAL_SWAP_PROGRAMS },
            // The local cluster lands a transaction within a second: its sends run in the workflow's worker too.
            transferSendLocal: true,
          },
        }
      : {}),
  });
  const taskQueue = `test-${randomUUID()}`;
  const testSandbox = await startTestSandbox();
  const { sandbox, url: sandboxUrl } = testSandbox;
  if (solana) sandbox.jupiter.attach({ rpcUrl: solana.rpcUrl, mints: { USDT: solana.usdtMint } });

  // The API's port is chosen first: its public address goes into callbacks it hands out (Travel Rule inquiries).
  const apiPort = options.apiPort ?? (await freePort());
  // Likewise the TRP listener's: our Travel Addresses, callbacks and confirmation URLs name it.
  const trpPort = await freePort();
  // And CODE's Response API's (the sandbox's hub calls it there).
  const codePort = await freePort();
  testSandbox.env.TRAVEL_RULE_COUNTERPARTS = JSON.stringify({
    ...JSON.parse(testSandbox.env.TRAVEL_RULE_COUNTERPARTS ?? '{}'),
    ...options.travelRuleCounterparts,
  });
  const config = loadConfig(
    {
      ...testSandbox.env,
      NODE_ENV: 'test',
      PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
      TRAVEL_RULE_PORT: String(trpPort),
      TRAVEL_RULE_HOST: '127.0.0.1',
      TRAVEL_RULE_PUBLIC_URL: `https://localhost:${trpPort}`,
      TRAVEL_RULE_CODE_PORT: String(codePort),
      TRAVEL_RULE_CODE_HOST: '127.0.0.1',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      DATABASE_URL: databaseUrl,
      ...(listenProxy ? { DATABASE_LISTEN_URL: listenProxy.url } : {}),
      TEMPORAL_ADDRESS: process.env.TEMPORAL_TEST_ADDRESS,
      // This jest worker's namespace on the run's server; a Temporal server of the test's own (the cluster test's) has
      // only `default`.
      TEMPORAL_NAMESPACE:
        overrides.TEMPORAL_ADDRESS && overrides.TEMPORAL_ADDRESS !== process.env.TEMPORAL_TEST_ADDRESS
          ? 'default'
          : testNamespace(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      JWT_PRIVATE_JWK: testJwk(),
      DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PASS_RESULT_WAIT_SECONDS: '5',
      UPLOAD_MAX_BYTES: String(256 * 1024),
      NETWORKS: networksJson,
      PIN_ENCRYPTION_JWK: testPinJwk(),
      // Suites make many requests as one user; the rate-limit suite sets its own limits.
      RATE_LIMITS: JSON.stringify(
        Object.fromEntries(Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 100_000, seconds: 60 }])),
      ),
      // Likewise for transfer limits in won; the spending-policy suite sets its own.
      // Likewise for the passkey threshold and the recipients' cooling-off.
      TRANSFER_LIMIT_PER_TRANSFER_KRW: '1000000000000',
      TRANSFER_LIMIT_DAILY_KRW: '1000000000000',
      TRANSFER_PASSKEY_ABOVE_KRW: '1000000000000',
      ADDRESS_COOLING_OFF_SECONDS: '0',
      // And for the Travel Rule: the travel-rule suite sets the real threshold (1,000,000 won).
      TRAVEL_RULE_THRESHOLD_KRW: '1000000000000',
      // And for transaction monitoring: the monitoring suite sets its own rules.
      MONITORING_LARGE_KRW: '1000000000000',
      MONITORING_STRUCTURING_KRW: '1000000000000',
      MONITORING_FAN_OUT_RECIPIENTS: '1000000',
      RECOVERY_ADDRESS: ANVIL_RECOVERY_ADDRESS,
      RECOVERY_POLL_SECONDS: '1',
      ...overrides,
    },
    API_CONFIG_KEYS,
  );
  // Only the worker gets the server-held keys (key encryption, credential issuer): the API of every test stack runs
  // without them, as in production.
  const keyEncryptionKey = randomBytes(32).toString('base64');
  const issuerKey = randomBytes(32).toString('base64url');
  const encryption = new DataEncryption(config.DATA_ENCRYPTION_KEY);
  const orm = await createOrm(config.DATABASE_URL, { migrate: true });
  // The API and worker run in this process: its clock keeps to this stack's test clock (a new database: not moved),
  // and goes back to the system's when the stack stops.
  const testClock = config.TEST_CLOCK_ENABLED ? await followTestClock(ormResidentDatabase(orm)) : undefined;
  const temporalSettings = { address: config.TEMPORAL_ADDRESS, namespace: config.TEMPORAL_NAMESPACE, taskQueue };
  const temporal = await createTemporalClient(temporalSettings, encryption);
  const logger = createLogger({
    level: logSink ? 'trace' : config.LOG_LEVEL,
    name: 'api-test',
    destination: logSink
      ? {
          write: (line: string) => {
            logSink.push(line);
          },
        }
      : undefined,
  });
  const apiDeps = await composeApi(config, orm, logger, temporal);
  const app = createApp(apiDeps);
  if (process.env.RECORD_EXCHANGES) app.koa.middleware.unshift(exchangeRecorder(process.env.RECORD_EXCHANGES));
  const apiServer = app.koa.listen(apiPort, '127.0.0.1');
  await new Promise((r) => apiServer.once('listening', r));
  const apiUrl = `http://127.0.0.1:${(apiServer.address() as AddressInfo).port}`;
  const trpServer = await serveTravelRuleListener(app.koa.callback(), {
    host: config.TRAVEL_RULE_HOST,
    port: trpPort,
    tls: trpIdentity(providerTransport(config, 'TRAVEL_RULE').tls),
  });
  const codeServer = await serveCodeListener(
    codeResponseApp({
      inbound: apiDeps.services.codeInbound!,
      vasps: apiDeps.codeVasps,
      publicKey: apiDeps.codeIdentity!.publicKey,
      allowed: apiDeps.codeIdentity!.allowed,
      logger,
    }),
    { host: config.TRAVEL_RULE_CODE_HOST, port: codePort, allowed: apiDeps.codeIdentity!.allowed },
  );
  await sandbox.codeHub.setServerUrl(SANDBOX_CODE_ENTITY_ID, `http://127.0.0.1:${codePort}`);
  sandbox.setCallbackUrl(`${apiUrl}/v1/auth/pass/callback`);

  const workerEnv = {
    ...testSandbox.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: config.DATABASE_URL,
    TEMPORAL_ADDRESS: config.TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: config.TEMPORAL_NAMESPACE,
    TEMPORAL_TASK_QUEUE: taskQueue,
    DATA_ENCRYPTION_KEY: config.DATA_ENCRYPTION_KEY,
    NETWORKS: config.NETWORKS,
    VC_ISSUER_KEY: issuerKey,
    PAYMASTER_SIGNER_KEY: ANVIL_PAYMASTER_SIGNER_KEY,
    GAS_BUDGET_DAILY_KRW: String(config.GAS_BUDGET_DAILY_KRW),
    KEY_ENCRYPTION_KEY: keyEncryptionKey,
    VC_STATUS_BASE_URL: apiUrl,
    RECOVERY_PRIVATE_KEY: ANVIL_RECOVERY_KEY,
    // Webhook receivers in tests are the sandbox's, on loopback (the refusal of such addresses has its own tests).
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    TEST_CLOCK_ENABLED: String(config.TEST_CLOCK_ENABLED),
    ...options.workerEnv,
  };
  // One set of clients (and bundlers) for every worker this stack starts, as one long-lived worker process would have.
  const workerDeps = composeWorker(loadConfig(workerEnv, WORKER_CONFIG_KEYS), orm);
  let running: { worker: WorkerGroup; connection: NativeConnection; done: Promise<void> } | undefined;

  const stack: TestStack = {
    apiUrl,
    sandboxUrl,
    orm,
    temporal,
    taskQueue,
    encryption,
    faults: sandbox.faults,
    travelRule: { network: sandbox.travelRule, publicUrl: `https://localhost:${trpPort}` },
    config,
    app,
    chains,
    solana,
    databaseProxy: databaseProxy?.proxy,
    listenProxy: listenProxy?.proxy,
    sessions: apiDeps.sessions,
    // The run's workflow bundle (global setup made it): a worker process runs it rather than bundling again.
    workerProcessEnv: () => ({
      ...workerEnv,
      ...(process.env.TEST_WORKFLOW_BUNDLE ? { WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE } : {}),
    }),
    pointSandboxAt(url) {
      sandbox.setCallbackUrl(`${url}/v1/auth/pass/callback`);
    },
    apiProcessEnv: (port) => ({
      ...Object.fromEntries(
        Object.entries(config)
          // The stack's own TRP listener has the port: another api process serves none.
          .filter(([k, v]) => v !== undefined && k !== 'TRAVEL_RULE_PORT' && k !== 'TRAVEL_RULE_CODE_PORT')
          .map(([k, v]) => [k, String(v)]),
      ),
      LOG_LEVEL: 'warn',
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
    }),
    async startWorker() {
      if (running) return;
      const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
      // Every role, as one worker process started with WORKER_CAPABILITIES unset: the workflows' queue and each
      // capability's.
      const worker = await createWorkerGroup(
        {
          connection,
          namespace: config.TEMPORAL_NAMESPACE,
          taskQueue,
          workflowBundle: await testWorkflowBundle(),
          activities: (options.wrapActivities ?? ((a: Activities) => a))(createActivities(workerDeps)),
          dataConverter: createDataConverter(encryption),
          shutdownGraceTime: '1s',
        },
        ALL_WORKER_ROLES,
      );
      running = { worker, connection, done: worker.run() };
    },
    async stopWorker() {
      if (!running) return;
      const { worker, connection, done } = running;
      running = undefined;
      worker.shutdown();
      await done;
      await connection.close();
    },
    async stop() {
      // Requests still under way (a sandbox callback retried into the API, a handler waiting for a workflow) finish
      // before what they need goes away: no more callbacks, the API drained while the worker still runs, then the rest.
      // (Found by a fresh-clone run under load: a Temporal call retrying after the API's connection closed.)
      await testSandbox.stop();
      await close(apiServer);
      await close(trpServer);
      await close(codeServer);
      // The watches never end by themselves: ended with the stack, not left retrying on a task queue no one serves.
      await Promise.all(
        watches.map((id) =>
          temporal.workflow
            .getHandle(id)
            .terminate('the test stack stopped')
            .catch(() => undefined),
        ),
      );
      await stack.stopWorker();
      await apiDeps.close();
      workerDeps.close();
      testClock?.stop();
      setClockOffset(0);
      await temporal.connection.close();
      await Promise.all(
        chains.map(async (chain) => {
          await chain.bundlerProxy.stop();
          await chain.bundler.stop();
          await chain.proxy.stop();
          await chain.stop();
        }),
      );
      if (solana) {
        await solana.proxy.stop();
        await solana.stop();
      }
      await orm.close();
      await databaseProxy?.proxy.stop();
      await listenProxy?.proxy.stop();
      await database.drop();
    },
  };
  await stack.startWorker();
  // The finality watch of each network, as the worker process starts them.
  const watches = await ensureFinalityWatches(temporal, { taskQueue, networkIds: workerDeps.networks.ids() });
  // The sanctions list, read as the schedule would (the worker process creates the schedule; a test stack runs once).
  await temporal.workflow.execute(sanctionsListRefreshWorkflow, {
    taskQueue,
    workflowId: `sanctions-list-refresh-${taskQueue}`,
    args: [],
  });
  return stack;
}

/** A TcpProxy in front of a database, and the database's URL through it. */
async function proxyOf(databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> {
  const url = new URL(databaseUrl);
  const proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  url.host = `127.0.0.1:${await proxy.start()}`;
  return { proxy, url: url.toString() };
}
