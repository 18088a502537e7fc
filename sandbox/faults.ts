import type { Context, Next } from 'koa';

/** Fault injection for a sandbox service: delay every call, fail a share of calls, or fail the next N calls. */
/** `paths`: only calls whose path ends with one of these (e.g. ["/deposits"]); every call of the target otherwise. */
export interface FaultSettings { delayMs?: number; errorRate?: number; failTimes?: number; status?: number; paths?: string[] }

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
      const faults = settings?.paths && !settings.paths.some((p) => ctx.path.endsWith(p)) ? undefined : settings;
      if (faults?.delayMs) await new Promise((r) => setTimeout(r, faults.delayMs));
      const failNow = (faults?.failTimes ?? 0) > 0 || (faults?.errorRate ?? 0) > Math.random();
      if (faults && failNow) {
        if (faults.failTimes) faults.failTimes -= 1;
        ctx.status = faults.status ?? 503;
        ctx.body = { error: 'injected_fault' };
        return;
      }
      await next();
    };
  }
}
