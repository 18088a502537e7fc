/**
 * The soak's seeded randomness (mulberry32): one stream per simulated person and one for the fault schedule, each
 * derived from the seed and its name, so the same seed replays the same choices whatever the processes' timing.
 */
export class Random {
  private state: number;

  constructor(seed: number, stream = '') {
    let h = seed >>> 0;
    for (const c of stream) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
    this.state = h || 0x9e3779b9;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the weighted choices ([item, weight] pairs). */
  weighted<T>(choices: ReadonlyArray<readonly [T, number]>): T {
    const total = choices.reduce((sum, [, w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [item, w] of choices) {
      r -= w;
      if (r < 0) return item;
    }
    return choices.at(-1)![0];
  }

  /** A UUID (v4 layout) from this stream: Idempotency-Keys the same seed gives again. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${hex.slice(17, 20)}-${hex.slice(20)}`;
  }
}
