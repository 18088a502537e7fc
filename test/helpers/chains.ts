import { JsonRpcProvider, Wallet } from 'ethers';
import {
  ANVIL_DEPLOYER_KEY,
  ensureChainContracts,
  startAnvil,
  type ChainContracts,
  type RunningChain,
} from '../../dev/chains';
import { freePort } from './global-setup';

export interface TestChain extends RunningChain, ChainContracts {
  provider: JsonRpcProvider;
  funder: Wallet;
}

/** A real local EVM chain (anvil) with EntryPoint v0.8 and our account factory deployed. */
export async function startTestChain(chainId: number, blockTimeSeconds?: number): Promise<TestChain> {
  const chain = await startAnvil({ chainId, port: await freePort(), blockTimeSeconds });
  const contracts = await ensureChainContracts(chain.rpcUrl);
  const provider = new JsonRpcProvider(chain.rpcUrl, chainId, { staticNetwork: true, pollingInterval: 100 });
  const funder = new Wallet(ANVIL_DEPLOYER_KEY, provider);
  return {
    ...chain,
    ...contracts,
    provider,
    funder,
    stop: async () => {
      provider.destroy();
      await chain.stop();
    },
  };
}
