/**
 * Retrying a request safely: the caller keeps one Idempotency-Key for one logical request (a charge, a transfer) and
 * sends it again on every attempt, so the service runs it once however many times the network or a process fails.
 * Retried: a cut connection, 502/503/504, 429 and a 409 for a request with this key still running, each after the
 * answer's Retry-After (seconds) or a growing pause.
 */
export interface RetryOptions {
  /** Give up after this long (ms); the last answer (or error) is returned (thrown). Default 60 s. */
  timeoutMs?: number;
  /** The pause when an answer names no Retry-After (ms), doubled up to 8x. Default 500 ms. */
  pauseMs?: number;
}

interface Answer {
  response: Response;
  error?: unknown;
}

const RETRIED = new Set([429, 502, 503, 504]);

/** Whether an answer is worth sending again with the same Idempotency-Key. */
export function isRetryable(answer: Answer): boolean {
  const { status } = answer.response;
  if (RETRIED.has(status)) return true;
  const type = answer.error as { type?: string; error?: { code?: string } } | undefined;
  return (
    status === 409 &&
    (type?.type?.endsWith('/idempotency-request-in-progress') === true ||
      type?.error?.code === 'idempotency-request-in-progress')
  );
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), in ms; undefined when absent. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `send` until it gets an answer that is not worth retrying, or the time is up. `send` must reuse its
 * Idempotency-Key (make it once, outside `send`): see `idempotencyKey()`.
 */
export async function withRetries<T extends Answer>(send: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const pause = options.pauseMs ?? 500;
  for (let attempt = 0; ; attempt += 1) {
    let answer: T | undefined;
    try {
      answer = await send();
      if (!isRetryable(answer)) return answer;
    } catch (error) {
      if (Date.now() > deadline) throw error; // a cut connection, again and again
    }
    if (Date.now() > deadline) return answer!;
    await sleep(
      Math.min(
        (answer && retryAfterMs(answer.response)) ?? pause * 2 ** Math.min(attempt, 3),
        Math.max(0, deadline - Date.now()),
      ),
    );
  }
}

/** A fresh Idempotency-Key: one per logical request, reused on its retries. */
export const idempotencyKey = (): string => crypto.randomUUID();
