import {
  AbiCoder,
  Contract,
  Interface,
  dataSlice,
  type InterfaceAbi,
  type JsonRpcProvider,
  type Log,
  type TransactionReceipt,
} from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { packUserOperation, type UserOperation } from './user-operation';

/** How a user operation ran: the bundle transaction that carried it, whether its call succeeded, what it cost. */
export interface UserOperationOutcome {
  success: boolean;
  userOpHash: string;
  /** The bundle's transaction (a bundler's handleOps), which may carry other users' operations too. */
  txHash: string;
  actualGasCost: bigint;
  /** Why the account's call reverted, when it said (Error(string)), e.g. "transfer: over the daily cap". */
  revertReason?: string;
}

/** EntryPoint v0.8's ABI, parsed once (ethers parses an ABI given as JSON on every `new Contract`). */
export const entryPointInterface = new Interface(EntryPointArtifact.abi as InterfaceAbi);
/** An executed operation's event (topics[1]: its userOpHash). */
const USER_OPERATION_EVENT_TOPIC = entryPointInterface.getEvent('UserOperationEvent')!.topicHash;
/** The two events of an operation's outcome; both index its userOpHash first (topics[1]). */
const OUTCOME_TOPICS = new Set(
  ['UserOperationEvent', 'UserOperationRevertReason'].map((name) => entryPointInterface.getEvent(name)!.topicHash),
);

/**
 * A view call answered by the node itself: ethers shares an identical call's answer for 250 ms (its `cacheTimeout`),
 * and a nonce or balance that old can predate what landed since (a nonce used, a balance spent). Raw `send` is not
 * cached.
 */
export async function freshCall(
  provider: JsonRpcProvider,
  to: string,
  iface: Interface,
  fn: string,
  args: readonly unknown[],
): Promise<unknown> {
  const data = (await provider.send('eth_call', [
    { to, data: iface.encodeFunctionData(fn, args) },
    'latest',
  ])) as string;
  return iface.decodeFunctionResult(fn, data)[0];
}

/** The account's EntryPoint nonce on `key` (its 2D nonce's lane), read fresh. */
export async function entryPointNonce(
  provider: JsonRpcProvider,
  entryPoint: string,
  sender: string,
  key: bigint,
): Promise<bigint> {
  return (await freshCall(provider, entryPoint, entryPointInterface, 'getNonce', [sender, key])) as bigint;
}

/** The text of an Error(string) revert, or the raw data. */
export function revertText(data: string): string {
  if (data.startsWith('0x08c379a0')) {
    try {
      return AbiCoder.defaultAbiCoder().decode(['string'], dataSlice(data, 4))[0] as string;
    } catch {
      /* not a well-formed Error(string) */
    }
  }
  return data;
}

/**
 * The outcome of the operation `userOpHash` among a transaction's logs (its UserOperationEvent and, when its call
 * reverted, its UserOperationRevertReason); null when they do not name it. A bundle carries many operations: only the
 * events of this one count.
 */
export function outcomeOfLogs(logs: readonly Log[], userOpHash: string, txHash: string): UserOperationOutcome | null {
  let revertReason: string | undefined;
  let event: { success: boolean; actualGasCost: bigint } | undefined;
  const wanted = userOpHash.toLowerCase();
  for (const log of logs) {
    // Only this operation's two events are decoded: a bundle of a hundred operations has hundreds of logs, and every
    // operation's finality check reads them all (the transfers-per-second bench found their decoding 12 % of the
    // worker's CPU).
    if (!OUTCOME_TOPICS.has(log.topics[0]?.toLowerCase() ?? '') || log.topics[1]?.toLowerCase() !== wanted) continue;
    let parsed;
    try {
      parsed = entryPointInterface.parseLog({ topics: [...log.topics], data: log.data });
    } catch {
      continue;
    }
    if (parsed?.name !== 'UserOperationEvent' && parsed?.name !== 'UserOperationRevertReason') continue;
    if ((parsed.args.userOpHash as string).toLowerCase() !== userOpHash.toLowerCase()) continue;
    if (parsed.name === 'UserOperationRevertReason') revertReason = revertText(parsed.args.revertReason as string);
    if (parsed.name === 'UserOperationEvent')
      event = { success: parsed.args.success as boolean, actualGasCost: parsed.args.actualGasCost as bigint };
  }
  if (!event) return null;
  return { ...event, userOpHash, txHash, ...(revertReason ? { revertReason } : {}) };
}

/** What the chain says of user operations at one EntryPoint: reads only, no key. */
export class EntryPointReader {
  private readonly entryPoint: Contract;

  constructor(
    private readonly provider: JsonRpcProvider,
    readonly address: string,
  ) {
    this.entryPoint = new Contract(address, EntryPointArtifact.abi as InterfaceAbi, provider);
  }

  async nonceOf(sender: string, key = 0n): Promise<bigint> {
    return entryPointNonce(this.provider, this.address, sender, key);
  }

  async onChainHash(op: UserOperation): Promise<string> {
    return (await this.entryPoint.getFunction('getUserOpHash')(packUserOperation(op))) as string;
  }

  /** The EntryPoint deposit of `address` (the paymaster's pays for sponsored operations; an account's stays 0). */
  async depositOf(address: string): Promise<bigint> {
    return (await this.entryPoint.getFunction('balanceOf')(address)) as bigint;
  }

  /** The chain's newest block number. */
  async headNumber(): Promise<number> {
    return Number(await this.provider.send('eth_blockNumber', []));
  }

  /** Whether the block `blockHash` is still the chain's at its height (a reorg may have replaced it). */
  async isCanonical(blockNumber: number, blockHash: string): Promise<boolean> {
    return (await this.hashAt(blockNumber)) === blockHash;
  }

  /** The hash of the chain's block at `blockNumber` (null above the head). */
  async hashAt(blockNumber: number): Promise<string | null> {
    const block = (await this.provider.send('eth_getBlockByNumber', [`0x${blockNumber.toString(16)}`, false])) as {
      hash: string;
    } | null;
    return block?.hash ?? null;
  }

  /**
   * The user operations this EntryPoint executed in the block `blockHash` (that block, canonical or not: a reorg does
   * not change what a block holds), each by its userOpHash (lower case) with the transaction that carried it.
   */
  async operationsInBlock(blockHash: string): Promise<Map<string, string>> {
    const logs = (await this.provider.send('eth_getLogs', [
      { blockHash, address: this.address, topics: [USER_OPERATION_EVENT_TOPIC] },
    ])) as Array<{ topics: string[]; transactionHash: string }>;
    return new Map(logs.map((log) => [log.topics[1]!.toLowerCase(), log.transactionHash.toLowerCase()]));
  }

  /** The chain's latest block: its base fee (what an operation's maxFeePerGas must cover to be included) and time. */
  async latestBlock(): Promise<{ baseFeePerGas: bigint; timestamp: number }> {
    const block = await this.provider.getBlock('latest');
    if (!block) throw new Error('the chain has no latest block');
    return { baseFeePerGas: block.baseFeePerGas ?? 0n, timestamp: block.timestamp };
  }

  async receiptOf(txHash: string): Promise<TransactionReceipt | null> {
    return this.provider.getTransactionReceipt(txHash);
  }

  /** The outcome of `userOpHash` in a mined transaction's receipt; null when that transaction did not carry it. */
  outcomeIn(receipt: TransactionReceipt, userOpHash: string): UserOperationOutcome | null {
    return outcomeOfLogs(
      receipt.logs.filter((log) => log.address.toLowerCase() === this.address.toLowerCase()),
      userOpHash,
      receipt.hash,
    );
  }

  /**
   * Where the chain executed a user operation, found by its UserOperationEvent (whichever bundle carried it); null when
   * the chain does not show it (not yet, or a reorg removed it).
   */
  async findOperation(
    userOpHash: string,
    fromBlock = 0,
  ): Promise<{ outcome: UserOperationOutcome; receipt: TransactionReceipt } | null> {
    const topic = this.entryPoint.interface.getEvent('UserOperationEvent')!.topicHash;
    const [log] = await this.provider.getLogs({ address: this.address, topics: [topic, userOpHash], fromBlock });
    if (!log) return null;
    const receipt = await this.provider.getTransactionReceipt(log.transactionHash);
    const outcome = receipt && this.outcomeIn(receipt, userOpHash);
    return receipt && outcome ? { outcome, receipt } : null;
  }
}
