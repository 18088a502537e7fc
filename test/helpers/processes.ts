import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs one of the service's entry points (api/main.ts, worker/main.ts, ...) as its own process, as `npm run` would. */
export function runServiceProcess(file: string, env: Record<string, string | undefined>): ServiceProcess {
  // `--import tsx` keeps it one process, so a signal reaches the service itself (the tsx CLI would fork a child).
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, file)], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
  what: string | (() => Promise<string>) = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    // A described wait says, when it times out, what it found (the rows still short of the goal, say).
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : await what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
