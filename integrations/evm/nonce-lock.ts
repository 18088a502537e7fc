/**
 * Serializes what a key that sends plain transactions (the recovery key) sends, from reading its next nonce to the
 * broadcast, so two senders never pick the same nonce. Nothing is stored: the next nonce is always the chain's pending count, read under the lock, so a sender
 * that dies between reading and broadcasting leaves no gap.
 */
export interface NonceLock {
  /** Runs `send` while no other holder of the same `key` (a network and bundler address) is sending. */
  exclusive<T>(key: string, send: () => Promise<T>): Promise<T>;
}

/** Within one process (the embedded SQLite mode runs one worker process): a queue per key. */
export class ProcessNonceLock implements NonceLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async exclusive<T>(key: string, send: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(send);
    this.tails.set(key, run);
    try {
      return await run;
    } finally {
      if (this.tails.get(key) === run) this.tails.delete(key);
    }
  }
}
