import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSigner, getAddressEncoder, address } from '@solana/kit';
import { SolanaChains } from '../../integrations/solana';
import type { SolanaNetwork } from '../../platform/networks';

/**
 * The accounts a v0 transaction can touch include those it loads from address lookup tables: a SOLANA swap's check
 * watches the person's accounts among them too. A node answering getAccountInfo with a table's account data (a 56-byte
 * header, then 32-byte addresses) stands in for the cluster.
 */
describe('the accounts a transaction references, lookup tables resolved', () => {
  let server: Server;
  let url: string;
  let entries: string[];
  beforeAll(async () => {
    entries = await Promise.all([1, 2, 3].map(async () => (await generateKeyPairSigner()).address as string));
    const data = Buffer.concat([
      Buffer.alloc(56),
      ...entries.map((e) => Buffer.from(getAddressEncoder().encode(address(e)))),
    ]);
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const call = JSON.parse(body) as { id: number; params: [string] };
        const value =
          call.params[0] === 'AddressLookupTab1e1111111111111111111111111'
            ? {
                lamports: 1_000_000,
                owner: 'AddressLookupTab1e1111111111111111111111111',
                executable: false,
                rentEpoch: 0,
                space: data.length,
                data: [data.toString('base64'), 'base64'],
              }
            : null;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 1 }, value } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('adds the entries a lookup names to the accounts the transaction names itself', async () => {
    const chain = new SolanaChains(2000).for({ networkId: 'LOCAL', rpcUrl: url } as SolanaNetwork);
    const named = (await generateKeyPairSigner()).address as string;
    const referenced = await chain.referencedAccounts({
      staticAccounts: [named],
      lookups: [{ table: 'AddressLookupTab1e1111111111111111111111111', indexes: [2, 0] }],
    });
    expect([...referenced].sort()).toEqual([named, entries[2], entries[0]].sort());
    // An entry the table does not have, or a table that does not exist, is an error (retried), never ignored.
    await expect(
      chain.referencedAccounts({
        staticAccounts: [],
        lookups: [{ table: 'AddressLookupTab1e1111111111111111111111111', indexes: [3] }],
      }),
    ).rejects.toThrow(/has no entry 3/);
    await expect(
      chain.referencedAccounts({ staticAccounts: [], lookups: [{ table: named, indexes: [0] }] }),
    ).rejects.toThrow(/does not exist/);
  });
});
