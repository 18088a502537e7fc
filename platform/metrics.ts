import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';

/** One Prometheus registry per process, labelled with the process's role, with Node's own metrics (CPU, memory, event loop). */
export function createMetricsRegistry(role: 'api' | 'worker'): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'wallet', role });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/**
 * `db_statements_total`: every statement the process sends to the database (the ORM's, the hot statements', BEGIN and
 * COMMIT included), each a round trip. What a request or an activity costs the database, and what a change saves (the
 * bench reads it per transfer). Answers the function that counts one.
 */
export function databaseStatementCounter(registry: Registry): () => void {
  const counter = new Counter({
    name: 'db_statements_total',
    help: 'Statements sent to the database, each a round trip (BEGIN and COMMIT included)',
    registers: [registry],
  });
  return () => counter.inc();
}

/**
 * Serves `GET /metrics` (Prometheus text format) on its own address, apart from the public API: bind it to a private
 * interface (METRICS_HOST, 127.0.0.1 by default) that only the scraper reaches. Port 0 picks a free port.
 */
export async function serveMetrics(
  registry: Registry,
  host: string,
  port: number,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, url: `http://${host}:${(server.address() as AddressInfo).port}/metrics` };
}
