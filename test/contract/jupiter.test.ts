import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { JupiterSwapApi, WSOL_MINT } from '../../integrations/dex/jupiter';
import { ProviderAnswerInvalid } from '../../integrations/provider-http';
import { JupiterSandbox, JUPITER_POOL_LABEL, jupiterPoolAddress } from '../../sandbox/jupiter';
import { seedJupiterPool, startLocalSolana, type LocalSolana } from '../../dev/solana-local';

/**
 * The Jupiter Swap API V2 adapter against Jupiter's published examples (fixtures/jupiter/SOURCES.md) and the sandbox's
 * emulation against Jupiter's published OpenAPI document, over real HTTP and a real local SOLANA chain.
 */
const fixtures = join(__dirname, 'fixtures/jupiter');
const fixture = (name: string): any => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
const API_KEY = 'sandbox-key-0123456789';

/** The published OpenAPI document's schema of an answer, its $refs inlined (OpenAPI 3.0's `nullable` is Ajv's too). */
const spec = parse(readFileSync(join(fixtures, 'swap-v2-openapi.thirdparty.yaml'), 'utf8'));
const inline = (node: any): any => {
  if (Array.isArray(node)) return node.map(inline);
  if (node && typeof node === 'object') {
    if (typeof node.$ref === 'string')
      return inline(
        node.$ref
          .split('/')
          .slice(1)
          .reduce((at: any, key: string) => at[key], spec),
      );
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  }
  return node;
};
const orderSchema = inline(spec.paths['/order'].get.responses['200'].content['application/json'].schema);
const refusalSchema = inline(spec.paths['/order'].get.responses['400'].content['application/json'].schema);
const ajv = new Ajv({ strict: false, allErrors: true });

let server: Server;
let base: string;
let solana: LocalSolana;
/** What a stub Jupiter answers under /stub (answers the emulator never gives), in turn. */
let stub: Array<{ status: number; body: unknown }>;
const sent: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

beforeAll(async () => {
  solana = await startLocalSolana();
  await seedJupiterPool(solana, await jupiterPoolAddress(), (symbol) => ({ SOL: 210_000, USDT: 1_400 })[symbol]!);
  const sandbox = new JupiterSandbox({ apiKey: API_KEY });
  sandbox.attach({ rpcUrl: solana.rpcUrl, mints: { USDT: solana.usdtMint } });
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    sent.push({ url: ctx.url, headers: ctx.headers });
    if (ctx.path.startsWith('/stub/')) {
      const answer = stub.shift() ?? { status: 500, body: { error: 'no stub' } };
      ctx.status = answer.status;
      ctx.body = answer.body;
      return;
    }
    return next();
  });
  koa.use(sandbox.router().routes());
  server = koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await solana.stop();
});
beforeEach(() => {
  stub = [];
  sent.length = 0;
});

const adapter = (path = '/jupiter/swap/v2') =>
  new JupiterSwapApi({ baseUrl: `${base}${path}`, apiKey: API_KEY, timeoutMs: 5000 });
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe("the adapter reads Jupiter's published answers", () => {
  it('takes the published Metis order: amounts, threshold, route plan, price impact', async () => {
    const published = fixture('order-response-metis.thirdparty.json');
    stub.push({ status: 200, body: published });
    const answer = await adapter('/stub').order({
      inputMint: USDC,
      outputMint: WSOL_MINT,
      amount: 100_000_000n,
      slippageBps: 26,
    });
    expect(answer).toEqual({ kind: 'order', order: published });
    // What it asked: the key in its header, ExactIn, our slippage.
    const asked = new URL(sent[0]!.url, base);
    expect(sent[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(Object.fromEntries(asked.searchParams)).toEqual({
      inputMint: USDC,
      outputMint: WSOL_MINT,
      amount: '100000000',
      swapMode: 'ExactIn',
      slippageBps: '26',
    });
    // The published answer fits the published schema too (the schema is read right).
    expect(ajv.validate(orderSchema, published)).toBe(true);
  });

  it("reads the published 400 as Jupiter's refusal, and an answer of another shape or amount as invalid", async () => {
    stub.push({ status: 400, body: fixture('order-response-400.thirdparty.json') });
    await expect(
      adapter('/stub').order({ inputMint: USDC, outputMint: WSOL_MINT, amount: 1n, slippageBps: 50 }),
    ).resolves.toEqual({ kind: 'refused', error: 'Failed to get quotes' });
    const published = fixture('order-response-metis.thirdparty.json');
    const { outAmount: _dropped, ...noOut } = published;
    stub.push({ status: 200, body: noOut });
    await expect(
      adapter('/stub').order({ inputMint: USDC, outputMint: WSOL_MINT, amount: 100_000_000n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(ProviderAnswerInvalid);
    // An answer for another amount than asked is never taken as the quote.
    stub.push({ status: 200, body: published });
    await expect(
      adapter('/stub').order({ inputMint: USDC, outputMint: WSOL_MINT, amount: 5n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(ProviderAnswerInvalid);
  });
});

describe("the sandbox answers as Jupiter's published API, over its pool on the local chain", () => {
  it('quotes SOL to USDT with the fields and types of the published schema, priced from the pool on chain', async () => {
    const answer = await adapter().order({
      inputMint: WSOL_MINT,
      outputMint: solana.usdtMint,
      amount: 1_000_000_000n,
      slippageBps: 50,
    });
    expect(answer.kind).toBe('order');
    const order = (answer as { order: any }).order;
    expect(ajv.validate(orderSchema, order)).toBe(true);
    // No field the published schema does not name.
    expect(Object.keys(order).filter((k) => !(k in orderSchema.properties))).toEqual([]);
    // The pool's reserves, read from the chain by this test: constant product, 0.25 % pool fee, 2 bps platform fee in SOL.
    const pool = await jupiterPoolAddress();
    const sol = solana.balance(pool) - 1_000_000_000n;
    const usdt = await solana.tokenBalance(pool, solana.usdtMint);
    const routed = 1_000_000_000n - 200_000n;
    const out = (routed * 9975n * usdt) / (sol * 10_000n + routed * 9975n);
    expect(order).toMatchObject({
      inAmount: '1000000000',
      outAmount: out.toString(),
      otherAmountThreshold: ((out * 9950n) / 10_000n).toString(),
      swapMode: 'ExactIn',
      slippageBps: 50,
      transaction: null,
      feeMint: WSOL_MINT,
      feeBps: 2,
      router: 'metis',
    });
    expect(order.routePlan).toEqual([
      {
        swapInfo: {
          ammKey: pool,
          label: JUPITER_POOL_LABEL,
          inputMint: WSOL_MINT,
          outputMint: solana.usdtMint,
          inAmount: routed.toString(),
          outAmount: out.toString(),
        },
        percent: 100,
        bps: 10_000,
      },
    ]);
    // 1 SOL at 210,000 KRW against USDT at 1,400: 150 USDT, less the fees and a little impact.
    expect(Number(out) / 1e6).toBeGreaterThan(149);
    expect(Number(out) / 1e6).toBeLessThan(150);
    expect(order.priceImpact).toBeLessThan(0);
    expect(order.priceImpact).toBeGreaterThan(-0.01);
  });

  it('refuses as Jupiter does: no key, ExactOut, the same mint, a pair it has no route for', async () => {
    const get = (query: Record<string, string>, key: string | null = API_KEY) =>
      fetch(`${base}/jupiter/swap/v2/order?${new URLSearchParams(query).toString()}`, {
        headers: key ? { 'x-api-key': key } : {},
      });
    const pair = { inputMint: WSOL_MINT, outputMint: solana.usdtMint, amount: '1000000' };
    expect((await get(pair, null)).status).toBe(401);
    expect((await get(pair, 'another-key')).status).toBe(401);
    for (const query of [
      { ...pair, swapMode: 'ExactOut' },
      { ...pair, outputMint: WSOL_MINT },
      { ...pair, outputMint: USDC },
      { ...pair, amount: '0' },
    ]) {
      const refused = await get(query);
      expect(refused.status).toBe(400);
      expect(ajv.validate(refusalSchema, await refused.json())).toBe(true);
    }
    const noRoute = await adapter().order({ inputMint: WSOL_MINT, outputMint: USDC, amount: 1n, slippageBps: 50 });
    expect(noRoute).toEqual({ kind: 'refused', error: 'Failed to get quotes' });
  });
});
