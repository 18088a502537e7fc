/**
 * The baselines of the API benchmarks, built from the same building blocks as the API, each one step further:
 *   GET /          a bare Koa route answering a constant
 *   GET /jwt       + verifying the ES256 bearer token with jose (the API's public key)
 *   GET /jwt-db    + one PostgreSQL round trip (`select 1`, node-postgres pool)
 * node --import tsx bench/bare-koa.ts <port> <jwks url> <database url>
 */
import Koa from 'koa';
import { Pool } from 'pg';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';

async function main(): Promise<void> {
  const [port, jwksUrl, databaseUrl] = process.argv.slice(2);
  const jwks = createLocalJWKSet(await (await fetch(jwksUrl!)).json() as JSONWebKeySet);
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path !== '/') {
      const token = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
      if (!token) { ctx.status = 401; return; }
      await jwtVerify(token, jwks, { algorithms: ['ES256'] });
      if (ctx.path === '/jwt-db') await pool.query('select 1');
    }
    ctx.body = { status: 'ok', data: { constant: true } };
  });
  app.listen(Number(port), '127.0.0.1', () => console.log('ready'));
}
main().catch((error) => { console.error(error); process.exit(1); });
