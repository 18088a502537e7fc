import { retryAfterMs } from './retry';

export interface PollOptions {
  /** Give up after this long (ms). Default 120 s. */
  timeoutMs?: number;
  /** The pause between reads when the answer names no Retry-After (ms). Default 1 s. */
  intervalMs?: number;
  /** What is awaited, for the timeout's message ("deployment dep_…"). */
  what?: string;
}

/**
 * Reads a long-running task (a deployment, a charge, a transfer) until `done` says so, pausing as the service asks
 * (Retry-After on a 202 or 503) or `intervalMs`. Returns the last data; throws when the time is up or a read fails
 * with a status that is not worth retrying.
 */
export async function poll<T>(
  read: () => Promise<{ data?: T; error?: unknown; response: Response }>,
  done: (data: T) => boolean,
  options: PollOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const answer = await read();
    if (answer.data !== undefined && done(answer.data)) return answer.data;
    if (answer.data === undefined && ![404, 429, 502, 503, 504].includes(answer.response.status)) {
      throw new Error(`${options.what ?? 'polling'}: ${answer.response.status} ${JSON.stringify(answer.error)}`);
    }
    if (Date.now() > deadline)
      throw new Error(`${options.what ?? 'polling'}: not done after ${options.timeoutMs ?? 120_000} ms`);
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs(answer.response) ?? options.intervalMs ?? 1000));
  }
}
