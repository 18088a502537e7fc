/**
 * The baselines of the API benchmarks, built from the same building blocks as the API, each one step further:
 *   GET /          a bare Koa route answering a constant
 *   GET /jwt       + verifying the ES256 bearer token with jose (the API's public key)
 *   GET /jwt-db    + one PostgreSQL round trip (`select 1`, node-postgres pool)
 *   GET /jwt-user  + reading the token's user row (what the API's status check read before devices existed)
 *   GET /jwt-session + the API's statement of today: the user row and the token's device session (revocation), joined
 *   The last two differ only by the revocation check: their ratio is its cost.
 *   GET /jwt-quote + the chain reads of one uncached ETH -> USDT quote (BENCH_QUOTE_CALLS, bench/quote-calls.ts):
 *                  the newest block number, then every QuoterV2 call and slot0 at that block, at once
 *                  (ethers batches them, as it does for the API).
 * With a Temporal address as a fourth argument it also loads the Temporal client and connects it, as the api must to
 * start workflows: the building block of the api's memory (its generated protobuf code alone is tens of MiB).
 * node dist/bench/bare-koa.js <port> <jwks url> <database url> [<temporal address>] (compiled by npm run bench)
 */
import Koa from 'koa';
import { Pool } from 'pg';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { JsonRpcProvider } from 'ethers';
import { SESSION_SQL } from '../api/common/active-user';
import type { QuoteCalls } from './quote-calls';

/** The API's statement in node-postgres' placeholders. */
const sessionSql = (() => {
  let n = 0;
  return SESSION_SQL.replace(/\?/g, () => `$${++n}`);
})();

async function main(): Promise<void> {
  const [port, jwksUrl, databaseUrl, temporalAddress] = process.argv.slice(2);
  if (temporalAddress) {
    const { Client, Connection } = await import('@temporalio/client');
    const client = new Client({ connection: await Connection.connect({ address: temporalAddress }) });
    await client.workflowService.getSystemInfo({});
  }
  const jwks = createLocalJWKSet((await (await fetch(jwksUrl!)).json()) as JSONWebKeySet);
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const quote = process.env.BENCH_QUOTE_CALLS ? (JSON.parse(process.env.BENCH_QUOTE_CALLS) as QuoteCalls) : undefined;
  // ethers' own cache of identical calls (250 ms) off: every request reads the chain.
  const chain = quote
    ? new JsonRpcProvider(quote.rpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 })
    : undefined;
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path !== '/') {
      const token = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
      if (!token) {
        ctx.status = 401;
        return;
      }
      const { payload } = await jwtVerify(token, jwks, { algorithms: ['ES256'] });
      if (ctx.path === '/jwt-db') await pool.query('select 1');
      // Both prepared (named), as the API runs the session statement.
      if (ctx.path === '/jwt-user')
        await pool.query({ name: 'user', text: 'select * from users where id = $1', values: [payload.sub] });
      if (ctx.path === '/jwt-quote' && quote && chain) {
        const blockTag = await chain.getBlockNumber();
        await Promise.all(quote.calls.map((call) => chain.call({ ...call, blockTag })));
      }
      if (ctx.path === '/jwt-session')
        await pool.query({ name: 'session', text: sessionSql, values: [payload.did, payload.sub] });
    }
    ctx.body = { status: 'ok', data: { constant: true } };
  });
  app.listen(Number(port), '127.0.0.1', () => console.log('ready'));
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
