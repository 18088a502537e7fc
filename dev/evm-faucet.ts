/**
 * The dev faucet of the local EVM chains (the SOLANA chain has its own): `POST /faucet {network, address}` sends the
 * address 1 of the network's coin and mints it 1,000 test USDT, once per network and address, from anvil's first
 * development account (the USDT minter). Development only: the launcher starts it; production has no such thing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Contract,
  JsonRpcProvider,
  NonceManager,
  Wallet,
  isAddress,
  parseEther,
  parseUnits,
  type InterfaceAbi,
} from 'ethers';
import { loadArtifact } from '../contracts/build';
import { ANVIL_DEPLOYER_KEY, mined } from './chains';

export interface EvmFaucetChain {
  networkId: string;
  rpcUrl: string;
  usdt: string;
  nativeSymbol: string;
}
export interface RunningEvmFaucet {
  url: string;
  stop(): Promise<void>;
}

export async function startEvmFaucet(chains: EvmFaucetChain[], port: number): Promise<RunningEvmFaucet> {
  const funded = new Set<string>();
  const signers = new Map(
    chains.map((c) => {
      const provider = new JsonRpcProvider(c.rpcUrl, undefined, { staticNetwork: true });
      return [c.networkId, { chain: c, provider, signer: new NonceManager(new Wallet(ANVIL_DEPLOYER_KEY, provider)) }];
    }),
  );
  // One request at a time: the faucet key's nonces stay in order.
  let queue: Promise<unknown> = Promise.resolve();

  const fund = async (networkId: string, address: string) => {
    const entry = signers.get(networkId)!;
    const key = `${networkId}:${address.toLowerCase()}`;
    if (funded.has(key)) return { funded: false };
    funded.add(key);
    await mined(await entry.signer.sendTransaction({ to: address, value: parseEther('1') }), "the faucet's ETH");
    const usdt = new Contract(entry.chain.usdt, loadArtifact('TestUSDT').abi as InterfaceAbi, entry.signer);
    await mined(await usdt.getFunction('mint')(address, parseUnits('1000', 6)), "the faucet's USDT");
    return { funded: true };
  };

  const server: Server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/faucet')
        return reply(404, { error: 'POST /faucet {"network":"ETHEREUM","address":"0x…"}' });
      let body: { network?: string; address?: string };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        return reply(400, { error: 'body must be JSON' });
      }
      if (!body.network || !signers.has(body.network))
        return reply(400, { error: `network must be one of ${[...signers.keys()].join(', ')}` });
      if (!body.address || !isAddress(body.address)) return reply(400, { error: 'address must be a 0x address' });
      const { network, address } = body as { network: string; address: string };
      const symbol = signers.get(network)!.chain.nativeSymbol;
      const run = queue.then(() => fund(network, address));
      queue = run.catch(() => undefined);
      run.then(
        (result) => reply(200, { network, address, ...result, coin: `1 ${symbol}`, usdt: '1000' }),
        (error: Error) => reply(500, { error: error.message }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/faucet`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const { provider } of signers.values()) provider.destroy();
    },
  };
}
