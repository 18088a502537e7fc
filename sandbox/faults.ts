import { Readable } from 'node:stream';
import type { Context, Next } from 'koa';

/**
 * Fault injection for a sandbox service: delay every call, fail a share of calls, or fail the next N calls; or answer
 * as a compromised or broken provider would: `answer` (this status and JSON body instead of the real one),
 * `redirectTo` (307 to that address), `bodyBytes` (200 with a body that long). `paths`: only calls whose path ends
 * with one of these (e.g. ["/deposits"]); every call of the target otherwise. `bodyIncludes`: only calls whose JSON
 * body contains this text (e.g. a mail provider refusing one recipient, as it does an address it suppresses).
 */
export interface FaultSettings {
  delayMs?: number;
  errorRate?: number;
  failTimes?: number;
  status?: number;
  paths?: string[];
  bodyIncludes?: string;
  /** Only calls whose query string contains this (e.g. "market=KRW-USDT"). */
  queryIncludes?: string;
  answer?: { status?: number; body: unknown };
  redirectTo?: string;
  bodyBytes?: number;
  /** Reported: how many bytes of `bodyBytes` answers the clients have taken so far. */
  bytesServed?: number;
  /** Reported: how many calls these settings have met so far (counted as they arrive, before any delay). */
  calls?: number;
}

export class FaultInjector {
  private readonly settings = new Map<string, FaultSettings>();

  set(target: string, settings: FaultSettings): void {
    this.settings.set(target, { ...settings });
  }

  clear(): void {
    this.settings.clear();
  }

  get(target: string): FaultSettings | undefined {
    return this.settings.get(target);
  }

  middleware(target: string) {
    return async (ctx: Context, next: Next): Promise<void> => {
      const settings = this.settings.get(target);
      const faults =
        (settings?.paths && !settings.paths.some((p) => ctx.path.endsWith(p))) ||
        (settings?.bodyIncludes !== undefined &&
          !JSON.stringify((ctx.request as { body?: unknown }).body ?? null).includes(settings.bodyIncludes)) ||
        (settings?.queryIncludes !== undefined && !ctx.querystring.includes(settings.queryIncludes))
          ? undefined
          : settings;
      if (faults) faults.calls = (faults.calls ?? 0) + 1;
      if (faults?.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
      const failNow = (faults?.failTimes ?? 0) > 0 || (faults?.errorRate ?? 0) > Math.random();
      if (faults && failNow) {
        if (faults.failTimes) faults.failTimes -= 1;
        ctx.status = faults.status ?? 503;
        ctx.body = { error: 'injected_fault' };
        return;
      }
      if (faults?.redirectTo) {
        ctx.status = 307;
        ctx.set('location', faults.redirectTo);
        return;
      }
      if (faults?.answer) {
        ctx.status = faults.answer.status ?? 200;
        ctx.body = faults.answer.body;
        return;
      }
      if (faults?.bodyBytes) {
        ctx.type = 'application/json';
        faults.bytesServed ??= 0;
        ctx.body = Readable.from(
          oversized(faults.bodyBytes, (n) => {
            faults.bytesServed! += n;
          }),
        );
        return;
      }
      await next();
    };
  }
}

/**
 * A JSON string `bytes` long, in chunks made as the client reads (no Content-Length: the reader must count), each
 * told to `taken`: a client that stops reading takes little of it.
 */
function* oversized(bytes: number, taken: (n: number) => void): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  yield Buffer.from('"');
  for (let left = bytes - 2; left > 0; left -= chunk.length) {
    const next = left >= chunk.length ? chunk : chunk.subarray(0, left);
    taken(next.length);
    yield next;
  }
  yield Buffer.from('"');
}
