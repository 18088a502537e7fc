import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { hasExited, stopChild } from './child-process';
import { SEARCH_ATTRIBUTES } from '../workflows/messages';

export interface DevServerOptions {
  cliPath: string;
  port: number;
  uiPort?: number;
  dbFile?: string;
  namespace?: string;
  /** More namespaces to register beside it (the test run's: one per jest worker). */
  extraNamespaces?: readonly string[];
  /** The UI's codec endpoint (the API's /codec): payloads shown decoded to a signed-in operator. */
  uiCodecEndpoint?: string;
  log?: (line: string) => void;
  /**
   * Runs the server in a process group of its own, so the Ctrl-C a terminal sends to its foreground group does not
   * reach it: the processes that use it (the worker reporting its cancelled activities, say) stop first, while it still
   * answers, and the caller stops it after them (`stop()`); it is killed when the caller's process exits.
   */
  ownProcessGroup?: boolean;
}

export interface RunningDevServer {
  address: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

const SA_TYPE_NAMES: Record<string, string> = {
  KEYWORD: 'Keyword',
  TEXT: 'Text',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** Starts `temporal server start-dev` (a real Temporal server) with our search attributes registered. */
export async function startTemporalDevServer(options: DevServerOptions): Promise<RunningDevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace ?? 'default',
    ...(options.extraNamespaces ?? []).flatMap((namespace) => ['--namespace', namespace]),
    '--log-level',
    'warn',
  ];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  if (options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  for (const sa of SEARCH_ATTRIBUTES)
    args.push('--search-attribute', `${sa.name}=${SA_TYPE_NAMES[sa.type] ?? 'Keyword'}`);
  const child = spawn(options.cliPath, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  // Outside the terminal's group it would outlive a caller that ends another way (a failed start, a Ctrl-C before
  // the caller could stop it): it never does.
  if (options.ownProcessGroup)
    process.once('exit', () => {
      if (!hasExited(child)) child.kill('SIGKILL');
    });
  child.stdout?.on('data', (d: Buffer) => options.log?.(d.toString().trimEnd()));
  child.stderr?.on('data', (d: Buffer) => options.log?.(d.toString().trimEnd()));
  const address = `127.0.0.1:${options.port}`;
  await waitForTemporal(address, child);
  return {
    address,
    process: child,
    stop: () => stopChild(child),
  };
}

export async function waitForTemporal(address: string, child?: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && hasExited(child))
      throw new Error(`the Temporal server exited with code ${child.exitCode ?? child.signalCode}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.healthService.check({});
      await connection.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`Temporal at ${address} not reachable: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
