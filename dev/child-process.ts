import type { ChildProcess } from 'node:child_process';

/** Whether a child has exited, by code or by signal (a signalled child keeps `exitCode` null). */
export const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;

/**
 * Stops a child and resolves once it is gone: `signal` first, SIGKILL after `graceMs`. A child that is already gone
 * (perhaps killed by the same Ctrl-C that reached its whole process group) resolves at once.
 */
export function stopChild(
  child: ChildProcess,
  options: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  return new Promise<void>((resolve) => {
    if (hasExited(child)) return resolve();
    const kill = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill(options.signal ?? 'SIGTERM');
  });
}
