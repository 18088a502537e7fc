import {
  AbiCoder,
  Contract,
  Transaction,
  dataSlice,
  keccak256,
  type InterfaceAbi,
  type JsonRpcProvider,
  type TransactionReceipt,
  type Wallet,
} from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { packUserOperation, type UserOperation } from './user-operation';
import { ProcessNonceLock, type NonceLock } from './nonce-lock';

/** The EntryPoint refused the operation during validation (bad signature, nonce, funds): never sent, no gas spent. */
export class UserOperationRejected extends Error {
  constructor(readonly reason: string) {
    super(`user operation rejected: ${reason}`);
    this.name = 'UserOperationRejected';
  }
}

/** A transaction of ours the node holds unmined, with what it offered to pay. */
export interface PendingTransaction {
  hash: string;
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface UserOperationOutcome {
  success: boolean;
  userOpHash: string;
  txHash: string;
  actualGasCost: bigint;
  /** Why the account's call reverted, when it said (Error(string)), e.g. "transfer: over the daily cap". */
  revertReason?: string;
}

/** The text of an Error(string) revert, or the raw data. */
function revertText(data: string): string {
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
 * The service acts as its own ERC-4337 bundler: it submits EntryPoint.handleOps from its funded key and is repaid
 * by the EntryPoint out of the paymaster's deposit (the beneficiary). It never deposits for an account. `sign` gives
 * the transaction hash before anything is broadcast, so a caller can record it first and find it after a crash.
 */
/** Told how long each transaction this process broadcast took to its receipt (the worker's metrics). */
export interface ConfirmationObserver {
  confirmed(networkId: string, seconds: number, outcome: 'success' | 'reverted'): void;
}

export class Bundler {
  private readonly entryPoint: Contract;
  /** When this process broadcast each transaction still awaited (a receipt observes and forgets it). */
  private readonly broadcastAt = new Map<string, number>();
  /** The next nonce this bundler will use: nodes can answer nonce queries from a block behind for a moment. */
  private nextNonce = 0;
  /** The transaction that took the nonce before `nextNonce`: if the node no longer knows it (a reorg dropped it), the cache is stale. */
  private lastSent: string | undefined;

  private readonly lockKey: string;

  /** `nonces`: shared by every process that sends with this key (the worker's composition passes one on PostgreSQL). */
  constructor(
    private readonly signer: Wallet,
    entryPointAddress: string,
    private readonly nonces: NonceLock = new ProcessNonceLock(),
    private readonly observer?: { networkId: string; observer: ConfirmationObserver },
  ) {
    this.entryPoint = new Contract(entryPointAddress, EntryPointArtifact.abi as InterfaceAbi, signer);
    this.lockKey = `${entryPointAddress.toLowerCase()}:${signer.address.toLowerCase()}`;
  }

  async nonceOf(sender: string, key = 0n): Promise<bigint> {
    return (await this.entryPoint.getFunction('getNonce')(sender, key)) as bigint;
  }

  async onChainHash(op: UserOperation): Promise<string> {
    return (await this.entryPoint.getFunction('getUserOpHash')(packUserOperation(op))) as string;
  }

  /** The EntryPoint deposit of `address` (the paymaster's pays for sponsored operations; an account's stays 0). */
  async depositOf(address: string): Promise<bigint> {
    return (await this.entryPoint.getFunction('balanceOf')(address)) as bigint;
  }

  /** Simulates handleOps, as a bundler must: a validation failure costs nothing and names its reason (AA2x/AA3x). */
  async simulate(op: UserOperation, beneficiary: string): Promise<void> {
    try {
      await this.entryPoint.getFunction('handleOps').staticCall([packUserOperation(op)], beneficiary);
    } catch (error) {
      const revert = (error as { revert?: { name: string; args: unknown[] } }).revert;
      if (revert?.name === 'FailedOp' || revert?.name === 'FailedOpWithRevert')
        throw new UserOperationRejected(String(revert.args[1]));
      throw error;
    }
  }

  /**
   * Signs the handleOps transaction, hands its hash to `record` (so a caller can store it before anything is sent),
   * then broadcasts it: all under the key's nonce lock, so no other sender takes the same nonce meanwhile.
   */
  async send(op: UserOperation, beneficiary: string, record: (hash: string) => Promise<void>): Promise<string> {
    return this.nonces.exclusive(this.lockKey, async () => {
      const { raw, hash } = await this.sign(op, beneficiary);
      await record(hash);
      await this.broadcast(raw);
      return hash;
    });
  }

  /** Our transaction `hash` when the node still holds it unmined (in its pool), else null. */
  async pendingTransaction(hash: string): Promise<PendingTransaction | null> {
    const tx = (await (this.signer.provider as JsonRpcProvider).send('eth_getTransactionByHash', [hash])) as {
      blockNumber: string | null;
      nonce: string;
      maxFeePerGas?: string;
      maxPriorityFeePerGas?: string;
      gasPrice: string;
    } | null;
    if (!tx || tx.blockNumber) return null;
    return {
      hash,
      nonce: Number(BigInt(tx.nonce)),
      maxFeePerGas: BigInt(tx.maxFeePerGas ?? tx.gasPrice),
      maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas ?? tx.gasPrice),
    };
  }

  /**
   * Replaces a transaction stuck in the pool (priced under what blocks now ask) with the same handleOps at the same
   * nonce and fees raised by at least the 12.5% nodes require, or to the market's if higher; its hash goes to `record`
   * before it is broadcast. Only one of the two can be mined: the nonce is the same.
   */
  async replace(
    stuck: PendingTransaction,
    op: UserOperation,
    beneficiary: string,
    record: (hash: string) => Promise<void>,
  ): Promise<string> {
    return this.nonces.exclusive(this.lockKey, async () => {
      const market = await this.signer.provider!.getFeeData();
      const bump = (fee: bigint) => (fee * 1125n) / 1000n + 1n;
      const max = (a: bigint, b: bigint | null) => (b !== null && b > a ? b : a);
      const { raw, hash } = await this.sign(op, beneficiary, {
        nonce: stuck.nonce,
        maxFeePerGas: max(bump(stuck.maxFeePerGas), market.maxFeePerGas),
        maxPriorityFeePerGas: max(bump(stuck.maxPriorityFeePerGas), market.maxPriorityFeePerGas),
      });
      await record(hash);
      await this.broadcast(raw);
      return hash;
    });
  }

  /** Signs (does not send) the handleOps transaction; its hash is final before broadcast. */
  private async sign(
    op: UserOperation,
    beneficiary: string,
    replacing?: { nonce: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  ): Promise<{ raw: string; hash: string }> {
    const request = await this.entryPoint
      .getFunction('handleOps')
      .populateTransaction([packUserOperation(op)], beneficiary);
    const populated = await this.signer.populateTransaction({
      ...request,
      ...(replacing ?? { nonce: await this.takeNonce() }),
    });
    const raw = await this.signer.signTransaction(populated);
    const hash = Transaction.from(raw).hash!;
    this.lastSent = hash;
    return { raw, hash };
  }

  private async takeNonce(): Promise<number> {
    // Straight from the node: ethers answers repeated identical calls from a 250 ms cache, which another process
    // sending with this key in between makes stale (found by the two-worker test: NONCE_EXPIRED).
    const provider = this.signer.provider as JsonRpcProvider;
    const pending = Number(
      BigInt((await provider.send('eth_getTransactionCount', [this.signer.address, 'pending'])) as string),
    );
    // Ahead of the node only while our last transaction is still known to it: one a reorg removed (or the pool
    // dropped) frees its nonce again, and a nonce past the gap would never be mined.
    const cacheHolds =
      pending < this.nextNonce &&
      this.lastSent !== undefined &&
      (await provider.send('eth_getTransactionByHash', [this.lastSent])) !== null;
    const nonce = cacheHolds ? this.nextNonce : pending;
    this.nextNonce = nonce + 1;
    return nonce;
  }

  private async broadcast(raw: string): Promise<void> {
    const hash = keccak256(raw);
    if (this.observer && this.broadcastAt.size < 10_000) this.broadcastAt.set(hash, Date.now());
    await this.signer.provider!.broadcastTransaction(raw);
  }

  async waitForOutcome(txHash: string, timeoutMs = 120_000): Promise<UserOperationOutcome> {
    const receipt = await this.receiptOf(txHash, timeoutMs);
    if (!receipt) throw new Error(`transaction ${txHash} not mined within ${timeoutMs} ms`);
    const outcome = this.outcomeOf(receipt);
    const sentAt = this.broadcastAt.get(txHash);
    if (sentAt !== undefined && this.observer) {
      this.broadcastAt.delete(txHash);
      this.observer.observer.confirmed(
        this.observer.networkId,
        (Date.now() - sentAt) / 1000,
        outcome.success ? 'success' : 'reverted',
      );
    }
    return outcome;
  }

  /** Polls for the receipt (plain polling works the same on every RPC, with no block subscription). */
  async receiptOf(txHash: string, timeoutMs = 0): Promise<TransactionReceipt | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await this.signer.provider!.getTransactionReceipt(txHash);
      if (receipt || Date.now() >= deadline) return receipt;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Where the chain executed a user operation, found by its UserOperationEvent (whichever transaction carried it: ours,
   * a resubmission, or another bundler's); null when the chain does not show it (not yet, or a reorg removed it).
   */
  async findOperation(
    userOpHash: string,
    fromBlock = 0,
  ): Promise<{ outcome: UserOperationOutcome; receipt: TransactionReceipt } | null> {
    const topic = this.entryPoint.interface.getEvent('UserOperationEvent')!.topicHash;
    const provider = this.signer.provider!;
    const [log] = await provider.getLogs({
      address: await this.entryPoint.getAddress(),
      topics: [topic, userOpHash],
      fromBlock,
    });
    if (!log) return null;
    const receipt = await provider.getTransactionReceipt(log.transactionHash);
    return receipt ? { outcome: this.outcomeOf(receipt), receipt } : null;
  }

  /** simulate, sign, broadcast, wait: for callers that need no crash recovery (tests, scripts). */
  async submit(op: UserOperation, beneficiary: string): Promise<UserOperationOutcome> {
    await this.simulate(op, beneficiary);
    const hash = await this.send(op, beneficiary, async () => undefined);
    return this.waitForOutcome(hash);
  }

  outcomeOf(receipt: TransactionReceipt): UserOperationOutcome {
    let revertReason: string | undefined;
    for (const log of receipt.logs) {
      const parsed = this.entryPoint.interface.parseLog(log);
      if (parsed?.name === 'UserOperationRevertReason') revertReason = revertText(parsed.args.revertReason as string);
      if (parsed?.name === 'UserOperationEvent') {
        return {
          success: parsed.args.success as boolean,
          userOpHash: parsed.args.userOpHash as string,
          txHash: receipt.hash,
          actualGasCost: parsed.args.actualGasCost as bigint,
          ...(revertReason ? { revertReason } : {}),
        };
      }
    }
    throw new Error(`transaction ${receipt.hash} carries no UserOperationEvent`);
  }
}
