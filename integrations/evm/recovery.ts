import { Contract, Interface, Wallet, ZeroAddress, type InterfaceAbi, type JsonRpcProvider } from 'ethers';
import { loadArtifact } from '../../contracts/build';
import type { EvmNetwork } from '../../platform/networks';
import type { ChainProviders } from './smart-account';
import type { NonceLock } from './nonce-lock';

const RECOVERABLE = new Interface(loadArtifact('WalletAccountRecoverable').abi as InterfaceAbi);
/** Both calls are a few storage writes; a fixed limit keeps them off eth_estimateGas's "pending" block. */
const GAS_LIMIT = 200_000n;

/** What an account says about recovery on one network, read from its latest block. */
export interface RecoveryState {
  owner: string;
  /** The account runs WalletAccountRecoverable and names this service's recovery key. */
  recoverable: boolean;
  recoveryDelay: number;
  pendingOwner: string | null;
  executeAfter: number | null;
  /** The chain's time for a transaction sent now (the pending block's), which the delay is counted in. */
  chainTime: number;
}

export const upgradeToRecoverableCallData = (
  implementation: string,
  recoveryKey: string,
  delaySeconds: number,
): string =>
  RECOVERABLE.encodeFunctionData('upgradeToAndCall', [
    implementation,
    RECOVERABLE.encodeFunctionData('configureRecovery', [recoveryKey, delaySeconds]),
  ]);
export const cancelRecoveryCallData = (): string => RECOVERABLE.encodeFunctionData('cancelRecovery');

/**
 * The service's recovery key (worker only): schedules a new owner on an account and, after the account's delay,
 * executes it. It can do nothing else on chain (WalletAccountRecoverable). Its transactions take their nonce from the
 * latest block under a lock per network (shared by worker processes on PostgreSQL), as the bundler's do.
 */
export class RecoveryKey {
  private readonly address: string;

  constructor(
    private readonly privateKey: string,
    private readonly providers: ChainProviders,
    private readonly lock: NonceLock,
  ) {
    this.address = new Wallet(privateKey).address;
  }

  get keyAddress(): string {
    return this.address;
  }

  async state(network: EvmNetwork, account: string): Promise<RecoveryState> {
    return readRecoveryState(this.providers.for(network), account, this.address);
  }

  /** Sends scheduleRecovery or executeRecovery and waits for its receipt; a revert throws with the account's reason. */
  async send(
    network: EvmNetwork,
    account: string,
    call: 'scheduleRecovery' | 'executeRecovery',
    newOwner: string,
  ): Promise<{ txHash: string; blockTimestamp: number }> {
    const provider = this.providers.for(network);
    const data = RECOVERABLE.encodeFunctionData(call, [newOwner]);
    // The caller has read the state (pending, due); a call the account refuses anyway reverts and is reported.
    const response = await this.lock.exclusive(`recovery:${network.networkId}`, async () => {
      const wallet = new Wallet(this.privateKey, provider);
      const nonce = Number(await provider.send('eth_getTransactionCount', [this.address, 'latest']));
      const fees = await provider.getFeeData();
      return wallet.sendTransaction({
        to: account,
        data,
        nonce,
        gasLimit: GAS_LIMIT,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
        chainId: network.chainId,
      });
    });
    const receipt = await response.wait();
    if (!receipt || receipt.status !== 1)
      throw new Error(`${call} reverted on ${network.networkId} (${response.hash})`);
    return { txHash: response.hash, blockTimestamp: await blockTime(provider, receipt.blockNumber) };
  }
}

/** An account's recovery state at the latest block; `recoverable` only when it names `recoveryKey`. */
export async function readRecoveryState(
  provider: JsonRpcProvider,
  account: string,
  recoveryKey: string,
): Promise<RecoveryState> {
  const contract = new Contract(account, RECOVERABLE, provider);
  const read = async (name: string) =>
    contract.getFunction(name).staticCall({ blockTag: 'latest' }) as Promise<unknown>;
  // The time a transaction sent now is included at: the pending block's (a chain that mines on demand, as the local
  // ones do, has an old latest block), else the latest block's.
  const pendingBlock = (await provider.send('eth_getBlockByNumber', ['pending', false]).catch(() => null)) as {
    timestamp: string;
  } | null;
  const block =
    pendingBlock ?? ((await provider.send('eth_getBlockByNumber', ['latest', false])) as { timestamp: string });
  const chainTime = Number(block.timestamp);
  const owner = String(await read('owner'));
  let key: string;
  try {
    key = String(await read('recoveryKey'));
  } catch {
    key = ZeroAddress;
  } // today's WalletAccount: no such function
  if (key.toLowerCase() !== recoveryKey.toLowerCase())
    return { owner, recoverable: false, recoveryDelay: 0, pendingOwner: null, executeAfter: null, chainTime };
  const pending = String(await read('pendingOwner'));
  return {
    owner,
    recoverable: true,
    recoveryDelay: Number(await read('recoveryDelay')),
    pendingOwner: pending === ZeroAddress ? null : pending,
    executeAfter: pending === ZeroAddress ? null : Number(await read('recoveryExecuteAfter')),
    chainTime,
  };
}

async function blockTime(provider: JsonRpcProvider, blockNumber: number): Promise<number> {
  const block = (await provider.send('eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])) as {
    timestamp: string;
  };
  return Number(block.timestamp);
}
