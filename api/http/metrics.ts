import type Koa from 'koa';
import { Counter, Histogram, type Registry } from 'prom-client';
import { UNAVAILABLE_CODES } from './error-handler';

/**
 * What the API counts: requests per route template and status with their latency, rate-limit refusals per rule, and
 * errors of the dependencies it calls itself (chain RPC, price feed, identity provider, securities, CEX) per code.
 */
export class ApiMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route'>;
  private readonly refused: Counter<'rule'>;
  private readonly dependencyErrors: Counter<'code'>;
  private readonly sessionLookups: Counter<'result'>;

  constructor(readonly registry: Registry) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route template',
      labelNames: ['method', 'route'],
      registers: [registry],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    });
    this.refused = new Counter({
      name: 'rate_limit_refusals_total',
      help: 'Requests refused by a rate limit (429), by rule',
      labelNames: ['rule'],
      registers: [registry],
    });
    this.dependencyErrors = new Counter({
      name: 'dependency_errors_total',
      help: 'Errors of dependencies the API calls directly (unreachable, timed out, failing, malformed answer), by code',
      labelNames: ['code'],
      registers: [registry],
    });
    this.sessionLookups = new Counter({
      name: 'session_cache_lookups_total',
      help: "Bearer requests' session checks: hit (kept in this process), miss (read), off (read: no LISTEN connection, or SQLite)",
      labelNames: ['result'],
      registers: [registry],
    });
  }

  /** A Bearer request's session check: from the process's cache (hit), read (miss), or read with the cache not live (off). */
  sessionLookup(result: 'hit' | 'miss' | 'off'): void {
    this.sessionLookups.inc({ result });
  }

  rateLimited(rule: string): void {
    this.refused.inc({ rule });
  }

  /** The series of a route's requests, made once per method, route and status (prom-client hashes labels per call). */
  private readonly series = new Map<
    string,
    { requests: Counter.Internal; duration: Histogram.Internal<'method' | 'route'> }
  >();

  /**
   * Outermost: times every request and labels it with the route template it matched (never the raw path, so ids do
   * not multiply the series).
   */
  requestsMiddleware() {
    return async (ctx: Koa.Context, next: Koa.Next): Promise<void> => {
      const started = process.hrtime.bigint();
      try {
        await next();
      } finally {
        const route = (ctx as Koa.Context & { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
        const status = String(ctx.status);
        const key = `${ctx.method} ${route} ${status}`;
        let series = this.series.get(key);
        if (!series) {
          series = {
            requests: this.requests.labels({ method: ctx.method, route, status }),
            duration: this.duration.labels({ method: ctx.method, route }),
          };
          this.series.set(key, series);
        }
        series.duration.observe(Number(process.hrtime.bigint() - started) / 1e9);
        series.requests.inc();
      }
    };
  }

  /** Given every error the API's error handler sees: counts a dependency's (before it becomes a 503). */
  countDependencyError(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) this.dependencyErrors.inc({ code });
  }
}
