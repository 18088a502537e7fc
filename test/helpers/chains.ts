import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonRpcProvider, Wallet } from 'ethers';
import {
  ANVIL_DEPLOYER_KEY,
  LOCAL_NETWORKS,
  ensureChainContracts,
  startAnvil,
  type ChainContracts,
  type RunningChain,
} from '../../dev/chains';
import { freePort } from './global-setup';
import { seedPools } from '../../dev/uniswap';
import { priceAtMs } from '../../sandbox/upbit-quotation';

export interface TestChain extends RunningChain, ChainContracts {
  provider: JsonRpcProvider;
  funder: Wallet;
}

/**
 * A snapshot of a chain with the contracts deployed, made by a real deployment the first time a test run asks for it
 * (kept in the run's directory, TEST_RUN_DIR, or else this process's) and loaded by every test chain after it:
 * deploying takes seconds, loading none. `ensureChainContracts` still checks every contract is there.
 */
const snapshots = new Map<number, Promise<string>>();
const deployedState = (chainId: number): Promise<string> => {
  let snapshot = snapshots.get(chainId);
  if (!snapshot) {
    snapshots.set(chainId, (snapshot = makeDeployedState(chainId)));
    snapshot.catch(() => snapshots.delete(chainId)); // a failed attempt is not kept: the next chain tries again
  }
  return snapshot;
};

async function makeDeployedState(chainId: number): Promise<string> {
  const dir = join(process.env.TEST_RUN_DIR ?? join(tmpdir(), `wallet-test-${process.pid}`), 'chains');
  const file = join(dir, `chain-${chainId}.json`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const written = `${file}.${process.pid}.tmp`;
  const chain = await startAnvil({ chainId, port: await freePort(), dumpStateFile: written });
  try {
    const contracts = await ensureChainContracts(chain.rpcUrl);
    // The pools at the sandbox market's prices as the run starts (what GET /api/v1/market-price answers then).
    const networkId = chainId === LOCAL_NETWORKS.POLYGON.chainId ? 'POLYGON' : 'ETHEREUM';
    await seedPools(chain.rpcUrl, networkId, contracts.uniswap, contracts.usdt, (symbol) =>
      priceAtMs(symbol, Date.now()),
    );
  } finally {
    await chain.stop(); // anvil writes the snapshot as it exits
  }
  renameSync(written, file);
  return file;
}

/** A real local EVM chain (anvil) with EntryPoint v0.8 and our account factory deployed. */
export async function startTestChain(chainId: number, blockTimeSeconds?: number): Promise<TestChain> {
  const loadStateFile = await deployedState(chainId);
  const chain = await startAnvil({ chainId, port: await freePort(), blockTimeSeconds, loadStateFile });
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
