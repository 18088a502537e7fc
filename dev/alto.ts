import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { hasExited, stopChild } from './child-process';

/** anvil's third development account: the executor key of each local chain's bundler (Alto signs handleOps with it). */
export const ANVIL_BUNDLER_EXECUTOR_KEY = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
/** anvil's eighth development account: Alto's utility key (it deploys Alto's simulation contracts at start). */
export const ANVIL_BUNDLER_UTILITY_KEY = '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356';

export interface RunningBundler {
  /** The bundler's JSON-RPC endpoint (ERC-7769), what NETWORKS' bundlerUrl names. */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface AltoOptions {
  rpcUrl: string;
  entryPoint: string;
  port: number;
  executorKey?: string;
  utilityKey?: string;
  /**
   * User operations Alto takes from its mempool per bundle; 1 sends every operation in a transaction of its own (the
   * bench's baseline).
   */
  popBatchSize?: number;
  /** The most gas one bundle may hold: just over one operation's limits makes every bundle carry one (the bench's baseline). */
  maxGasPerBundle?: bigint;
  /** debug_bundler_* methods (clear the mempool, bundle on demand): the fault tests use them. */
  debugEndpoints?: boolean;
  /**
   * How long Alto remembers the gas prices it saw (its default 20 s): it refuses an operation whose fee caps are below
   * the lowest of them. The fault tests shorten it so that a fee rise they cause is enforced within seconds.
   */
  gasPriceExpirySeconds?: number;
  log?: (line: string) => void;
}

/** Alto's command line (esm/cli/alto.js of @pimlico/alto), run by this process's Node. */
const altoCli = (): string => join(dirname(require.resolve('@pimlico/alto')), 'cli', 'alto.js');

/**
 * Pimlico's Alto, the ERC-4337 bundler of one local EVM chain: the service's worker sends user operations to it over
 * the standard bundler JSON-RPC and Alto packs them into handleOps transactions from its executor key.
 *
 * Chosen on purpose: `--safe-mode false` (safe mode traces validation with a JavaScript tracer anvil lacks),
 * `--enforce-unique-senders-per-bundle false` and `--mempool-max-parallel-ops 64` (a user's concurrent transfers use
 * a nonce key each and may share a bundle), `--mempool-max-queued-ops 8` (an account's sequential owner operations),
 * `--block-time 250` (how often it looks for new blocks; the local chains mine on demand), no wallet refilling (anvil
 * funds every development account), `--log-level warn` (info logs whole bytecodes), `--json` (pino's JSON lines on
 * stdout: without it Alto pretty-prints in a worker thread of its own, which costs about a second of CPU at each start
 * and stop, 90 s over a CI run's 91 bundlers; issue 52) and `--default-api-version v2`
 * (as Pimlico's hosted v2 API: an operation whose fee caps are below what the bundler asks now, or whose
 * preVerificationGas is short, is refused at eth_sendUserOperation; v1 takes it and may bundle it at a loss).
 */
export async function startAlto(options: AltoOptions): Promise<RunningBundler> {
  const args = [
    '--import',
    join(__dirname, 'alto-loopback.mjs'),
    altoCli(),
    '--entrypoints',
    options.entryPoint,
    '--rpc-url',
    options.rpcUrl,
    '--executor-private-keys',
    options.executorKey ?? ANVIL_BUNDLER_EXECUTOR_KEY,
    '--utility-private-key',
    options.utilityKey ?? ANVIL_BUNDLER_UTILITY_KEY,
    '--port',
    String(options.port),
    '--safe-mode',
    'false',
    '--enforce-unique-senders-per-bundle',
    'false',
    '--mempool-max-parallel-ops',
    '64',
    '--mempool-max-queued-ops',
    '8',
    '--mempool-pop-batch-size',
    String(options.popBatchSize ?? 64),
    ...(options.maxGasPerBundle ? ['--max-gas-per-bundle', String(options.maxGasPerBundle)] : []),
    '--block-time',
    '250',
    '--min-bundle-interval',
    '50',
    '--max-bundle-interval',
    '250',
    '--refilling-wallets',
    'false',
    '--utility-wallet-monitor',
    'false',
    '--enable-debug-endpoints',
    String(options.debugEndpoints ?? false),
    '--default-api-version',
    'v2',
    ...(options.gasPriceExpirySeconds ? ['--gas-price-expiry', String(options.gasPriceExpirySeconds)] : []),
    '--log-level',
    'warn',
    '--json',
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (d: Buffer) => {
    const text = d.toString().trimEnd();
    if (output.length < 200) output.push(text);
    options.log?.(text);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${options.port}/rpc`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (hasExited(child))
      throw new Error(
        `Alto (bundler for ${options.rpcUrl}) exited with code ${child.exitCode}; is port ${options.port} free?\n${output.join('\n')}`,
      );
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
      });
      if (response.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`Alto on ${url} did not start within 60 s\n${output.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, process: child, stop: () => stopChild(child, { graceMs: 5_000 }) };
}
