/**
 * The service's clock, which every time-based rule reads (Korean-day limits, cooling-off, holds, expiries, the times
 * records carry): the system's time plus an offset that only the test clock moves (TEST_CLOCK_ENABLED, refused in
 * production; docs/operating.md, "The test clock"). What measures real durations or talks to the outside world on
 * its terms keeps `Date.now()`: timeouts and metrics, rate-limit windows, JWT and webhook-signature times, price age.
 */
let offsetMs = 0;

export const clock = {
  /** Milliseconds since the epoch, on the service's clock. */
  now: (): number => Date.now() + offsetMs,
  /** The service's current time as a Date. */
  date: (): Date => new Date(Date.now() + offsetMs),
  /**
   * Milliseconds since the epoch on the system's (real) clock, for a time another party stamped on its own: the
   * identity provider's pass-token expiry. The test clock moves ours, not theirs.
   */
  real: (): number => Date.now(),
  /** How far the test clock has moved the service's clock ahead of the system's (ms). */
  offsetMs: (): number => offsetMs,
};

/** Sets the offset (the test clock's follower does, from the shared record); never called in production. */
export function setClockOffset(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new Error(`clock offset must be a non-negative integer of ms, not ${ms}`);
  offsetMs = ms;
}
