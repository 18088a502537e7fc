import { spawn, type ChildProcess } from 'node:child_process';
import {
  Contract,
  ContractFactory,
  JsonRpcProvider,
  Wallet,
  concat,
  getCreate2Address,
  keccak256,
  type InterfaceAbi,
  type TransactionReceipt,
} from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { EthereumDIDRegistry } from 'ethr-did-registry';
import { loadArtifact } from '../contracts/build';
import { hasExited, stopChild } from './child-process';
import { ensureUniswapV3, type UniswapV3Deployment } from './uniswap';

/** The local EVM chains of the embedded stack: one anvil per network, with different chain ids. */
export const LOCAL_NETWORKS = {
  ETHEREUM: { chainId: 31337, defaultPort: 8545 },
  POLYGON: { chainId: 31338, defaultPort: 8546 },
} as const;
export type LocalNetworkId = keyof typeof LOCAL_NETWORKS;
/** NETWORKS.<id>.inclusionWatchMs of the local chains: anvil mines a transaction's block at once. */
export const LOCAL_INCLUSION_WATCH_MS = 50;

/** anvil's first well-known development account: funded on every local chain, never used outside them. */
export const ANVIL_DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** anvil's fourth development account: the embedded stack's paymaster sponsor key (signs paymasterAndData). */
export const ANVIL_PAYMASTER_SIGNER_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
/** anvil's seventh development account: the embedded stack's recovery key (schedules and executes owner recoveries). */
export const ANVIL_RECOVERY_KEY = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';
export const ANVIL_RECOVERY_ADDRESS = '0x976EA74026E726554dB657fA54763abd0C3a0aa9';
/** What the paymaster keeps deposited at the EntryPoint on a local chain (topped up at every start). */
const LOCAL_PAYMASTER_DEPOSIT = 1_000n * 10n ** 18n;
/** The deterministic-deployment proxy anvil preinstalls, so contracts land on the same address on every chain. */
const CREATE2_FACTORY = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
/**
 * EntryPoint v0.8's canonical address, as on every public chain: deployed through the deterministic deployer with the
 * salt eth-infinitism published. Bundlers (Alto) tell the EntryPoint's version by its address.
 */
export const ENTRY_POINT_V08 = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
const ENTRY_POINT_V08_SALT = '0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9';

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
};

/** The anvil binary shipped inside the npm package for this platform (no download at install time). */
export function resolveAnvil(): string {
  if (process.env.ANVIL_PATH) return process.env.ANVIL_PATH;
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`no anvil package for ${process.platform}-${process.arch}; set ANVIL_PATH`);
  return require.resolve(`${pkg}/bin/anvil`);
}

export interface RunningChain {
  rpcUrl: string;
  chainId: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * `blockTimeSeconds`: besides mining every transaction at once, a block every so many seconds, as a live chain makes
 * them, so transfers reach their confirmations.
 */
export async function startAnvil(options: {
  chainId: number;
  port: number;
  /** Loaded at start and written on stop (the dev chains keep their state across restarts). */
  stateFile?: string;
  /** Only loaded: the chain starts from this snapshot, which it never writes. */
  loadStateFile?: string;
  /** Only written, on stop. */
  dumpStateFile?: string;
  blockTimeSeconds?: number;
  log?: (line: string) => void;
}): Promise<RunningChain> {
  const args = [
    '--chain-id',
    String(options.chainId),
    '--port',
    String(options.port),
    '--host',
    '127.0.0.1',
    '--silent',
  ];
  if (options.blockTimeSeconds) args.push('--mixed-mining', '--block-time', String(options.blockTimeSeconds));
  if (options.stateFile) args.push('--state', options.stateFile);
  if (options.loadStateFile) args.push('--load-state', options.loadStateFile);
  if (options.dumpStateFile) args.push('--dump-state', options.dumpStateFile);
  const child = spawn(resolveAnvil(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (d: Buffer) => options.log?.(d.toString().trimEnd()));
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (hasExited(child))
      throw new Error(
        `anvil (chain ${options.chainId}) exited with code ${child.exitCode}; is port ${options.port} free?`,
      );
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (response.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`anvil on ${rpcUrl} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    rpcUrl,
    chainId: options.chainId,
    process: child,
    stop: () => stopChild(child), // anvil writes --state on SIGTERM
  };
}

/**
 * Deploys a contract through the CREATE2 factory, so it lands on the same address on every chain;
 * a no-op when it is already there. Returns the address.
 */
/**
 * The receipt of a transaction sent to a local chain, asked for until the chain has it (a minute at most). Not ethers'
 * `wait()`: when the chain mined the transaction between `wait()`'s first receipt read and its subscription to new
 * blocks, that wait is for a next block, which a chain that mines only on transactions never makes (seen under load
 * as a test stack's start that never ended).
 */
export async function mined(
  sent: { hash: string; provider: { getTransactionReceipt(hash: string): Promise<TransactionReceipt | null> } | null },
  what: string,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const receipt = await sent.provider!.getTransactionReceipt(sent.hash);
    if (receipt) {
      if (receipt.status !== 1) throw new Error(`${what} (${sent.hash}) reverted`);
      return receipt;
    }
    if (Date.now() > deadline) throw new Error(`${what} (${sent.hash}) was not mined within a minute`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function ensureDeployed(
  rpcUrl: string,
  artifact: { abi: unknown; bytecode: string },
  args: unknown[],
  saltLabel: string,
  /** A salt of its own instead of keccak256("wallet-service/<label>"): a contract's canonical address. */
  canonicalSalt?: string,
): Promise<string> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const deployer = new Wallet(ANVIL_DEPLOYER_KEY, provider);
    const factory = new ContractFactory(artifact.abi as InterfaceAbi, artifact.bytecode, deployer);
    const initCode = (await factory.getDeployTransaction(...args)).data;
    const salt = canonicalSalt ?? keccak256(Buffer.from(`wallet-service/${saltLabel}`));
    const address = getCreate2Address(CREATE2_FACTORY, salt, keccak256(initCode));
    if ((await provider.getCode(address)) !== '0x') return address;
    const tx = await deployer.sendTransaction({
      to: CREATE2_FACTORY,
      data: concat([salt, initCode]),
      gasLimit: 15_000_000n,
    });
    await mined(tx, `deployment of ${saltLabel} to ${address}`);
    // anvil can answer eth_getCode from the previous block for a moment after mining; wait until it shows.
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if ((await provider.getCode(address)) !== '0x') return address;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`deployment of ${saltLabel} to ${address} left no code`);
  } finally {
    provider.destroy();
  }
}

export interface ChainContracts {
  entryPoint: string;
  accountFactory: string;
  paymaster: string;
  didRegistry: string;
  usdt: string;
  recoverableImplementation: string;
  /** Uniswap v3 and the tokens its local pools trade (dev/uniswap.ts). */
  uniswap: UniswapV3Deployment;
}

/** Our verifying paymaster (owner: the deployer key; sponsor: the dev sponsor key), its EntryPoint deposit topped up. */
async function ensurePaymaster(rpcUrl: string, entryPoint: string): Promise<string> {
  const owner = new Wallet(ANVIL_DEPLOYER_KEY).address;
  const paymaster = await ensureDeployed(
    rpcUrl,
    loadArtifact('WalletPaymaster'),
    [entryPoint, owner, new Wallet(ANVIL_PAYMASTER_SIGNER_KEY).address],
    'wallet-paymaster-v1',
  );
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const contract = new Contract(
      paymaster,
      loadArtifact('WalletPaymaster').abi as InterfaceAbi,
      new Wallet(ANVIL_DEPLOYER_KEY, provider),
    );
    const deposit = (await contract.getFunction('getDeposit')()) as bigint;
    if (deposit < LOCAL_PAYMASTER_DEPOSIT)
      await mined(
        await contract.getFunction('deposit')({ value: LOCAL_PAYMASTER_DEPOSIT - deposit }),
        "the paymaster's deposit",
      );
    return paymaster;
  } finally {
    provider.destroy();
  }
}

/**
 * EntryPoint v0.8 (@account-abstraction/contracts), our WalletAccountFactory and WalletPaymaster (funded),
 * EthereumDIDRegistry (ethr-did-registry), a USDT (6 decimals, as Tether's contract) and Uniswap v3 with its test
 * tokens (dev/uniswap.ts; the pools are seeded apart, at the market's prices).
 */
export async function ensureChainContracts(rpcUrl: string): Promise<ChainContracts> {
  const entryPoint = await ensureDeployed(rpcUrl, EntryPointArtifact, [], 'entrypoint-v0.8', ENTRY_POINT_V08_SALT);
  if (entryPoint !== ENTRY_POINT_V08)
    throw new Error(`EntryPoint v0.8 landed at ${entryPoint}, not its canonical ${ENTRY_POINT_V08}: another artifact?`);
  const accountFactory = await ensureDeployed(
    rpcUrl,
    loadArtifact('WalletAccountFactory'),
    [entryPoint],
    'wallet-account-factory-v1',
  );
  const paymaster = await ensurePaymaster(rpcUrl, entryPoint);
  const didRegistry = await ensureDeployed(rpcUrl, EthereumDIDRegistry, [], 'ethereum-did-registry-v1');
  // The USDT stand-in's minter is the deployer key (the dev faucet).
  const usdt = await ensureDeployed(
    rpcUrl,
    loadArtifact('TestUSDT'),
    [new Wallet(ANVIL_DEPLOYER_KEY).address],
    'test-usdt-v1',
  );
  // The implementation accounts upgrade to for owner recovery (the factory keeps deploying today's WalletAccount).
  const recoverableImplementation = await ensureDeployed(
    rpcUrl,
    loadArtifact('WalletAccountRecoverable'),
    [entryPoint],
    'wallet-account-recoverable-v1',
  );
  const uniswap = await ensureUniswapV3(rpcUrl);
  return { entryPoint, accountFactory, paymaster, didRegistry, usdt, recoverableImplementation, uniswap };
}
