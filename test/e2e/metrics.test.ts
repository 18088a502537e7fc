import { randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { testDatabases } from '../helpers/databases';
import { deployAccount } from '../helpers/wallet';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';
import { callApi } from '../helpers/bank';
import { freePort } from '../helpers/global-setup';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { DEFAULT_RATE_LIMITS } from '../../api/http/rate-limits';

/** The value of the sample of `name` whose labels include every one given (prom-client text format). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Prometheus metrics of a real api process and a real worker process (METRICS_PORT), and the Temporal SDK's own
 * (TEMPORAL_METRICS_PORT): requests per route template, rate-limit refusals, dependency errors, activity outcomes.
 */
describe('metrics of the api and worker processes', () => {
  let stack: TestStack;
  let api: ServiceProcess;
  let worker: ServiceProcess;
  let apiUrl: string;
  const ports = { api: 0, apiMetrics: 0, workerMetrics: 0, temporalMetrics: 0 };
  const metricsOf = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!, { chains: true });
    await stack.stopWorker();
    for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
    // Quotes limited to 2 a minute, so the third is refused and counted.
    const limits = {
      ...Object.fromEntries(Object.keys(DEFAULT_RATE_LIMITS).map((rule) => [rule, { points: 100_000, seconds: 60 }])),
      'exchange-quote': { points: 2, seconds: 60 },
    };
    api = runServiceProcess('api/main.ts', {
      ...stack.apiProcessEnv(ports.api),
      METRICS_PORT: String(ports.apiMetrics),
      RATE_LIMITS: JSON.stringify(limits),
    });
    worker = runServiceProcess('worker/main.ts', {
      ...stack.workerProcessEnv(),
      METRICS_PORT: String(ports.workerMetrics),
      TEMPORAL_METRICS_PORT: String(ports.temporalMetrics),
    });
    apiUrl = `http://127.0.0.1:${ports.api}`;
    await waitFor(
      async () => {
        try {
          return (await fetch(`${apiUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      },
      60_000,
      `the api process\n${api.output()}`,
    );
    await waitFor(
      async () => {
        try {
          return (await fetch(`http://127.0.0.1:${ports.workerMetrics}/metrics`)).ok;
        } catch {
          return false;
        }
      },
      60_000,
      `the worker process\n${worker.output()}`,
    );
  });
  afterAll(async () => {
    for (const p of [api, worker]) p?.child.kill('SIGTERM');
    await Promise.all([api?.exited, worker?.exited]);
    await stack?.stop();
  });

  it('counts requests per route template and status, rate-limit refusals per rule and dependency errors per code', async () => {
    const before = await metricsOf(ports.apiMetrics);
    // A health check sends no statement to the database; a registration sends some (each one counted).
    const statements = async () => sample(await metricsOf(ports.apiMetrics), 'db_statements_total', { role: 'api' })!;
    const atRest = await statements();
    for (let i = 0; i < 3; i++) expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
    expect(await statements()).toBe(atRest);
    const user: RegisteredUser = await registerUser({ apiUrl, sandboxUrl: stack.sandboxUrl });
    expect(await statements()).toBeGreaterThan(atRest + 10);
    const quote = () =>
      call(`${apiUrl}/v1/exchange/quote`, {
        headers: { authorization: `Bearer ${user.accessToken}` },
        json: { source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '0.1' },
      });
    const quotes = [await quote(), await quote(), await quote()].map((q) => q.status);
    expect(quotes[2]).toBe(429);
    expect((await callApi({ apiUrl }, `/api/v1/transfer/crypto/tr_${randomUUID()}`, user)).status).toBe(404);
    await call(`${stack.sandboxUrl}/_faults/prices`, { method: 'PUT', json: { errorRate: 1, status: 503 } });
    expect((await callApi({ apiUrl }, '/api/v1/market-price?asset=ETH&window=7d', user)).status).toBe(503);
    await call(`${stack.sandboxUrl}/_faults`, { method: 'DELETE' });

    const text = await metricsOf(ports.apiMetrics);
    const healthz = { method: 'GET', route: '/healthz', status: '200' };
    expect(sample(text, 'http_requests_total', healthz)! - (sample(before, 'http_requests_total', healthz) ?? 0)).toBe(
      3,
    );
    expect(
      sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/healthz' }),
    ).toBeGreaterThanOrEqual(3);
    // Ids never become labels: the transfer lookup is counted under its template.
    expect(sample(text, 'http_requests_total', { route: '/api/v1/transfer/crypto/:transferId', status: '404' })).toBe(
      1,
    );
    expect(text).not.toMatch(/route="[^"]*tr_[0-9a-f]/);
    expect(sample(text, 'rate_limit_refusals_total', { rule: 'exchange-quote' })).toBe(
      quotes.filter((s) => s === 429).length,
    );
    expect(sample(text, 'dependency_errors_total', { code: 'PROVIDER_UNAVAILABLE' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'process_cpu_seconds_total', { role: 'api' })).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${ports.apiMetrics}/other`)).status).toBe(404);
    // The public API does not serve them.
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);
  });

  it("times each chain submission from the bundler's acceptance to the receipt, per network", async () => {
    const user = await registerUser({ apiUrl, sandboxUrl: stack.sandboxUrl });
    await deployAccount({ apiUrl }, user, Wallet.createRandom(), 'POLYGON');
    const text = await metricsOf(ports.workerMetrics);
    expect(sample(text, 'chain_confirmation_seconds_count', { network: 'POLYGON', outcome: 'success' })).toBe(1);
    expect(
      sample(text, 'chain_confirmation_seconds_count', { network: 'ETHEREUM', outcome: 'success' }),
    ).toBeUndefined();
  });

  it("counts the worker's activities by type and outcome, and the Temporal SDK serves its own metrics", async () => {
    await waitFor(
      async () =>
        (sample(await metricsOf(ports.workerMetrics), 'activity_executions_total', { outcome: 'completed' }) ?? 0) > 0,
      30_000,
      'activity metrics',
    );
    const text = await metricsOf(ports.workerMetrics);
    const activities = [
      ...text.matchAll(/^activity_executions_total\{[^}]*activity="([^"]+)"[^}]*outcome="completed"/gm),
    ].map((m) => m[1]);
    expect(activities.length).toBeGreaterThan(0);
    expect(
      sample(text, 'activity_duration_seconds_count', { activity: activities[0]!, outcome: 'completed' }),
    ).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes', { role: 'worker' })).toBeGreaterThan(0);
    expect(sample(text, 'db_statements_total', { role: 'worker' })).toBeGreaterThan(0);
    const sdk = await metricsOf(ports.temporalMetrics);
    expect(sdk).toMatch(/^temporal_[a-z_]+/m);
    expect(sdk).toContain(`task_queue="${stack.taskQueue}"`);
  });
});
