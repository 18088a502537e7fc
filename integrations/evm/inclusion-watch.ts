import type { JsonRpcProvider } from 'ethers';
import { entryPointInterface } from './entry-point';

/**
 * How often the watch asks for the chain's head while anything waits (one call per network and process, not per
 * wait), unless the network says (NETWORKS.<id>.inclusionWatchMs): never more calls than one wait's own timer made.
 */
export const INCLUSION_WATCH_MS = 250;
/** After a failed read the watch waits this long before it asks again (the waits' own timers cover meanwhile). */
const AFTER_FAILURE_MS = 1_000;
/**
 * The most blocks one look reads logs for (a watch that fell behind reads the rest at its next looks). After a failed
 * read of logs the next reads half the blocks that one asked for, down to one, and each read that succeeds doubles it
 * again: a provider's limit on a range of blocks slows the watch, never stops it.
 */
const MAX_BLOCKS_PER_LOOK = 500;

const USER_OPERATION_EVENT = entryPointInterface.getEvent('UserOperationEvent')!.topicHash;

/** One wait's interest in some operations (by userOpHash): told when a block carrying one of them is seen. */
export interface InclusionSubscription {
  /**
   * 'told' once a block carrying one of the operations has been seen since the last time it answered 'told' (at once
   * if one was seen meanwhile), 'timer' after `ms` without; never rejects. A hint, not a receipt: the caller reads the
   * receipt before it believes it. One wait at a time: a block seen while nobody waits is kept for the next.
   */
  next(ms: number): Promise<'told' | 'timer'>;
  /** Another operation to be told about (one signed again on the same nonce). */
  add(userOpHash: string): void;
  close(): void;
}

class Subscription implements InclusionSubscription {
  readonly hashes = new Set<string>();
  private seen = false;
  /** The pending wait: cleared by its timer, so a block seen after that is kept for the next wait. */
  private pending: { timer: NodeJS.Timeout; answer: (how: 'told' | 'timer') => void } | undefined;

  constructor(
    hashes: string[],
    private readonly closed: (s: Subscription) => void,
  ) {
    for (const hash of hashes) this.hashes.add(hash.toLowerCase());
  }

  next(ms: number): Promise<'told' | 'timer'> {
    if (this.seen) {
      this.seen = false;
      return Promise.resolve('told');
    }
    this.answer('timer'); // one wait at a time: an earlier one still pending is over
    return new Promise((resolve) => {
      this.pending = { timer: setTimeout(() => this.answer('timer'), ms), answer: resolve };
    });
  }

  /** Answers the pending wait, if any; false when there is none. */
  private answer(how: 'told' | 'timer'): boolean {
    const pending = this.pending;
    if (!pending) return false;
    this.pending = undefined;
    clearTimeout(pending.timer);
    pending.answer(how);
    return true;
  }

  add(userOpHash: string): void {
    this.hashes.add(userOpHash.toLowerCase());
  }

  close(): void {
    this.answer('timer');
    this.closed(this);
  }

  tell(): void {
    if (!this.answer('told')) this.seen = true;
  }
}

/**
 * Tells the waits for user operations at one EntryPoint when a block carries theirs: while anything waits, one loop
 * per network and process asks for the chain's head every INCLUSION_WATCH_MS and reads the new blocks'
 * UserOperationEvent logs once for every wait, where each wait would otherwise ask the bundler for its receipt on a
 * timer of its own. What it tells is a hint: the wait then asks the bundler for the receipt and the chain for its
 * block, as before, and keeps a slower timer of its own for what the watch cannot see (a read that failed, a reorg at
 * a height it had read). The loop stops when nothing waits.
 */
export class InclusionWatch {
  private readonly subscriptions = new Set<Subscription>();
  /** The newest block whose logs were read; null while the loop is stopped. */
  private cursor: number | null = null;
  private started: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private span = MAX_BLOCKS_PER_LOOK;

  constructor(
    private readonly provider: JsonRpcProvider,
    private readonly entryPoint: string,
    private readonly onError: (error: unknown) => void = () => {},
    readonly intervalMs = INCLUSION_WATCH_MS,
  ) {}

  /**
   * A wait for `userOpHashes`, to be opened before the operation is sent: it resolves once the watch knows the head
   * from which it reads (so no block carrying the operation can come before what it reads), or rejects when that head
   * cannot be read (the caller then waits on its own timer alone).
   */
  async subscribe(userOpHashes: string[]): Promise<InclusionSubscription> {
    const subscription = new Subscription(userOpHashes, (s) => this.unsubscribe(s));
    this.subscriptions.add(subscription);
    try {
      await this.start();
    } catch (error) {
      this.unsubscribe(subscription);
      throw error;
    }
    return subscription;
  }

  /** The newest block read, for tests and metrics; null when nothing waits. */
  get head(): number | null {
    return this.cursor;
  }

  private start(): Promise<void> {
    if (!this.started) {
      const started: Promise<void> = this.headNumber().then(
        (head) => {
          if (this.started !== started) return; // stopped meanwhile: nothing waits
          this.cursor = head;
          this.schedule(this.intervalMs);
        },
        (error: unknown) => {
          if (this.started === started) this.started = undefined;
          this.failed(error);
          throw error;
        },
      );
      this.started = started;
    }
    return this.started;
  }

  private unsubscribe(subscription: Subscription): void {
    this.subscriptions.delete(subscription);
    if (this.subscriptions.size > 0 || !this.started) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.started = undefined;
    this.cursor = null;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.look(), ms);
  }

  private async look(): Promise<void> {
    const running = this.started;
    let wait = this.intervalMs;
    try {
      const head = await this.headNumber();
      if (this.started !== running || this.cursor === null) return;
      if (head < this.cursor) this.cursor = head; // a shorter chain (a reorg): read its new blocks as they come
      if (head > this.cursor) {
        const fromBlock = this.cursor + 1;
        const toBlock = Math.min(head, this.cursor + this.span);
        const logs = await this.provider
          .getLogs({ address: this.entryPoint, topics: [USER_OPERATION_EVENT], fromBlock, toBlock })
          .catch((error: unknown) => {
            this.span = Math.max(1, Math.floor((toBlock - fromBlock + 1) / 2));
            throw error;
          });
        if (this.started !== running) return;
        this.span = Math.min(MAX_BLOCKS_PER_LOOK, this.span * 2);
        this.cursor = toBlock;
        const included = new Set(logs.map((log) => log.topics[1]?.toLowerCase()));
        for (const subscription of this.subscriptions)
          for (const hash of subscription.hashes) if (included.has(hash)) subscription.tell();
      }
    } catch (error) {
      this.failed(error);
      wait = AFTER_FAILURE_MS;
    }
    if (this.started === running && this.subscriptions.size > 0) this.schedule(wait);
  }

  private failed(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // a counter that fails stops nothing here
    }
  }

  private async headNumber(): Promise<number> {
    return Number(BigInt((await this.provider.send('eth_blockNumber', [])) as string));
  }
}
