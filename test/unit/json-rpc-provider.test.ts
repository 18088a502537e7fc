import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FetchRequest, JsonRpcProvider } from 'ethers';
import { NativeBodyJsonRpcProvider } from '../../integrations/evm/json-rpc-provider';
import { ChainProviders } from '../../integrations/evm/smart-account';
import type { EvmNetwork } from '../../platform/networks';

/**
 * The chains' provider decodes answers natively (integrations/evm/json-rpc-provider.ts). Each case is asked of it and
 * of ethers' own JsonRpcProvider over the same node: both must read the same answer or fail the same way.
 */
describe("the chains' JSON-RPC provider against ethers' own", () => {
  let server: Server;
  let url: string;
  let next: { status: number; body: Buffer } = { status: 200, body: Buffer.alloc(0) };
  const received: unknown[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ contentType: req.headers['content-type'], body: JSON.parse(Buffer.concat(chunks).toString()) });
        res.writeHead(next.status, { 'content-type': 'application/json' });
        res.end(next.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const both = () => {
    const options = { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 } as const;
    return [
      new NativeBodyJsonRpcProvider(new FetchRequest(url), 1, options),
      new JsonRpcProvider(new FetchRequest(url), 1, options),
    ];
  };
  /** What a call answers or how it fails, comparable across the two providers. */
  const outcome = (call: Promise<unknown>) =>
    call.then(
      (value) => ({ value }),
      (error: { code?: string; shortMessage?: string; info?: unknown }) => ({
        code: error.code,
        shortMessage: error.shortMessage,
      }),
    );
  const answer = (status: number, body: string | Buffer) => {
    next = { status, body: typeof body === 'string' ? Buffer.from(body) : body };
  };

  it('reads an answer with text beyond ASCII (a revert reason in Korean) as ethers does', async () => {
    const reason = '잔액이 부족합니다 — 🚫';
    answer(200, JSON.stringify({ jsonrpc: '2.0', id: 1, result: { reason, n: '0x2a' } }));
    const [ours, theirs] = both();
    const got = await outcome(ours!.send('eth_custom', ['한글']));
    expect(got).toEqual({ value: { reason, n: '0x2a' } });
    expect(got).toEqual(await outcome(theirs!.send('eth_custom', ['한글'])));
    // The same request: a JSON body, the parameter's UTF-8 intact.
    const [mine, ethers] = received.slice(-2) as Array<{ contentType: string; body: { id: number; params: string[] } }>;
    expect(mine).toEqual({ ...ethers, body: { ...ethers!.body, id: mine!.body.id } as never });
    expect(mine!.contentType).toBe('application/json');
    expect(mine!.body.params).toEqual(['한글']);
  });

  it('passes on a node error as ethers does', async () => {
    answer(
      200,
      JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 3, message: 'execution reverted', data: '0x08c379a0' } }),
    );
    const [ours, theirs] = both();
    const call = { to: `0x${'1'.repeat(40)}`, data: '0x12345678' };
    const got = await outcome(ours!.call(call));
    expect(got).toMatchObject({ code: 'CALL_EXCEPTION' });
    expect(got).toEqual(await outcome(theirs!.call(call)));
  });

  it('refuses an answer that is not JSON, or not UTF-8, as ethers does', async () => {
    // The second is JSON once its invalid byte is read as U+FFFD: a lenient decoder would answer it.
    const notUtf8 = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"result":"0x'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    for (const body of ['<html>bad gateway</html>', notUtf8]) {
      answer(200, body);
      const [ours, theirs] = both();
      const got = await outcome(ours!.send('eth_blockNumber', []));
      expect(got).toMatchObject({ code: 'UNSUPPORTED_OPERATION' });
      expect(got).toEqual(await outcome(theirs!.send('eth_blockNumber', [])));
    }
  });

  it('fails an HTTP error as ethers does', async () => {
    answer(502, 'upstream down');
    const [ours, theirs] = both();
    const got = await outcome(ours!.send('eth_blockNumber', []));
    expect(got).toMatchObject({ code: 'SERVER_ERROR' });
    expect(got).toEqual(await outcome(theirs!.send('eth_blockNumber', [])));
  });
});

describe("the chains' provider (ChainProviders.for): one batch per tick, no wait for more", () => {
  let server: Server;
  const requests: Array<Array<{ method: string }>> = [];
  let providers: ChainProviders;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    // A node answering every call of a batch (0x1), and recording each HTTP request's calls.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as unknown;
        const calls = (Array.isArray(body) ? body : [body]) as Array<{ id: number; method: string }>;
        requests.push(calls.map(({ method }) => ({ method })));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(calls.map(({ id }) => ({ jsonrpc: '2.0', id, result: '0x1' }))));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    providers = new ChainProviders();
    const network = {
      networkId: 'LOCAL',
      chainId: 31337,
      rpcUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    } as EvmNetwork;
    provider = providers.for(network);
  });
  afterAll(async () => {
    providers.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the calls asked in one tick as one request', async () => {
    requests.length = 0;
    await Promise.all([provider.send('eth_blockNumber', []), provider.send('eth_gasPrice', [])]);
    expect(requests).toEqual([[{ method: 'eth_blockNumber' }, { method: 'eth_gasPrice' }]]);
  });

  it('sends a call asked a few milliseconds after another at once, not in its batch (ethers waits 10 ms for more by default)', async () => {
    requests.length = 0;
    const first = provider.send('eth_blockNumber', []);
    await new Promise((resolve) => setTimeout(resolve, 3));
    await Promise.all([first, provider.send('eth_gasPrice', [])]);
    expect(requests).toEqual([[{ method: 'eth_blockNumber' }], [{ method: 'eth_gasPrice' }]]);
  });
});
