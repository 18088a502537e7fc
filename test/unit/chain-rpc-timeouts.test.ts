import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChainProviders } from '../../integrations/evm/smart-account';
import { SolanaChains } from '../../integrations/solana';
import type { EvmNetwork, SolanaNetwork } from '../../platform/networks';

/**
 * A chain node that accepts the connection and never answers: every call fails after CHAIN_RPC_TIMEOUT_MS instead of
 * holding the request (ethers waits five minutes by default, the Solana kit's transport forever).
 */
describe('chain JSON-RPC calls to a node that hangs', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fail after the timeout on EVM networks (node and bundler)', async () => {
    const providers = new ChainProviders(300);
    const network = { networkId: 'HANG', chainId: 1, rpcUrl: url, bundlerUrl: url, entryPoint: `0x${'1'.repeat(40)}` };
    await expect(providers.for(network as EvmNetwork).getBlockNumber()).rejects.toMatchObject({ code: 'TIMEOUT' });
    await expect(providers.bundler(network as EvmNetwork).supportedEntryPoints()).rejects.toThrow();
    providers.destroy();
  }, 10_000);

  it('fail after the timeout on SOLANA', async () => {
    const chain = new SolanaChains(300).for({ networkId: 'HANG', rpcUrl: url } as SolanaNetwork);
    await expect((await chain.rpc()).getSlot().send()).rejects.toThrow();
  }, 10_000);
});
