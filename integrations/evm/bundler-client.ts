import { ApplicationFailure } from '@temporalio/common';
import { Type } from '@sinclair/typebox';
import { dataSlice, getAddress, toBeHex, type Log } from 'ethers';
import { DomainError } from '../../platform/domain-error';
import { PROVIDER_REJECTED, ProviderUnavailable, callProvider, expectAnswer } from '../provider-http';
import type { UserOperation } from './user-operation';
import { outcomeOfLogs, revertText, type UserOperationOutcome } from './entry-point';

/**
 * The bundler refused the operation (ERC-7769 error codes -32500..-32507, -32602: validation failed in the account or
 * the paymaster, a bad nonce, a time range, a signature): it was not accepted, no gas was spent.
 */
export class UserOperationRejected extends DomainError {
  constructor(
    readonly reason: string,
    readonly code?: number,
  ) {
    super('user-operation-refused', `user operation rejected: ${reason}`);
    this.name = 'UserOperationRejected';
  }

  /** AA25: the nonce is not the account's next one (used already: perhaps by this very operation, or never valid). */
  get nonceUsed(): boolean {
    return /\bAA25\b/.test(this.reason);
  }
}

/**
 * ERC-7769's codes for an operation refused on its merits (-32521: its call reverts in the estimate's simulation); any
 * other error (throttled, internal) may pass on retry.
 */
const REFUSAL_CODES = new Set([-32602, -32500, -32501, -32502, -32503, -32505, -32506, -32507, -32521]);

/** The gas an operation needs, as the bundler estimated it by simulation. */
export interface GasEstimate {
  preVerificationGas: bigint;
  verificationGasLimit: bigint;
  callGasLimit: bigint;
  paymasterVerificationGasLimit: bigint;
  paymasterPostOpGasLimit: bigint;
}

/** Where and how an operation ran: its outcome and the bundle transaction that carried it. */
export interface UserOperationReceipt extends UserOperationOutcome {
  actualGasUsed: bigint;
  blockNumber: number;
  blockHash: string;
}

const Hex = Type.String({ pattern: '^0x[0-9a-fA-F]*$' });
const RpcAnswer = Type.Object({
  jsonrpc: Type.Optional(Type.String()),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(
    Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
  ),
});
const EstimateAnswer = Type.Object({
  preVerificationGas: Hex,
  verificationGasLimit: Hex,
  callGasLimit: Hex,
  paymasterVerificationGasLimit: Type.Optional(Type.Union([Hex, Type.Null()])),
  paymasterPostOpGasLimit: Type.Optional(Type.Union([Hex, Type.Null()])),
});
const LogAnswer = Type.Object({
  address: Hex,
  topics: Type.Array(Hex),
  data: Hex,
  transactionHash: Hex,
  blockNumber: Hex,
  blockHash: Hex,
  logIndex: Hex,
});
const ReceiptAnswer = Type.Object({
  userOpHash: Hex,
  success: Type.Boolean(),
  actualGasCost: Hex,
  actualGasUsed: Hex,
  logs: Type.Array(LogAnswer),
  receipt: Type.Object({ transactionHash: Hex, blockHash: Hex, blockNumber: Hex }),
});
const ByHashAnswer = Type.Union([Type.Null(), Type.Object({ transactionHash: Type.Union([Hex, Type.Null()]) })]);

const hex = (value: bigint): string => toBeHex(value);

/** Our packed-form operation (initCode, paymasterAndData) in the bundler RPC's unpacked form (EntryPoint v0.7/v0.8). */
export function toRpcOperation(op: UserOperation): Record<string, string> {
  const rpc: Record<string, string> = {
    sender: op.sender,
    nonce: hex(op.nonce),
    callData: op.callData,
    callGasLimit: hex(op.callGasLimit),
    verificationGasLimit: hex(op.verificationGasLimit),
    preVerificationGas: hex(op.preVerificationGas),
    maxFeePerGas: hex(op.maxFeePerGas),
    maxPriorityFeePerGas: hex(op.maxPriorityFeePerGas),
    signature: op.signature,
  };
  if (op.initCode !== '0x') {
    rpc.factory = getAddress(dataSlice(op.initCode, 0, 20));
    rpc.factoryData = dataSlice(op.initCode, 20);
  }
  if (op.paymasterAndData !== '0x') {
    rpc.paymaster = getAddress(dataSlice(op.paymasterAndData, 0, 20));
    rpc.paymasterVerificationGasLimit = hex(BigInt(dataSlice(op.paymasterAndData, 20, 36)));
    rpc.paymasterPostOpGasLimit = hex(BigInt(dataSlice(op.paymasterAndData, 36, 52)));
    rpc.paymasterData = dataSlice(op.paymasterAndData, 52);
  }
  return rpc;
}

/**
 * A client of one network's ERC-4337 bundler over the standard JSON-RPC (ERC-7769): Pimlico, Alchemy, Candide or a
 * self-hosted one (the embedded stack runs Pimlico's Alto). The service holds no bundler key: the bundler packs
 * operations into handleOps transactions from its own executor keys and is repaid by the EntryPoint.
 *
 * An unreachable, slow or failing bundler is ProviderUnavailable (retried, answered 503 by the API); an operation the
 * bundler refuses on its merits is UserOperationRejected.
 */
export class BundlerClient {
  private id = 0;

  constructor(
    readonly url: string,
    readonly entryPoint: string,
    private readonly timeoutMs = 15_000,
  ) {}

  private async call<T = unknown>(method: string, params: unknown[]): Promise<T> {
    let body: unknown;
    try {
      ({ body } = await callProvider<unknown>({ baseUrl: this.url, timeoutMs: this.timeoutMs }, 'POST', this.url, {
        jsonrpc: '2.0',
        id: (this.id += 1),
        method,
        params,
      }));
    } catch (error) {
      // A JSON-RPC error may come with a 4xx: it is read like one that came with 200.
      if (!(error instanceof ApplicationFailure && error.type === PROVIDER_REJECTED)) throw error;
      body = (error.details as unknown[] | undefined)?.[0];
      if (!body || typeof body !== 'object' || !('error' in body))
        throw new ProviderUnavailable(`bundler ${this.url} refused ${method}: ${error.message}`);
    }
    const answer = expectAnswer(RpcAnswer, body, `bundler ${method}`);
    if (answer.error) {
      if (REFUSAL_CODES.has(answer.error.code))
        // A revert's Error(string) data in the message is shown as its text ("transfer: over the daily cap").
        throw new UserOperationRejected(
          answer.error.message.replace(/0x08c379a0[0-9a-fA-F]*/g, (data) => revertText(data)),
          answer.error.code,
        );
      throw new ProviderUnavailable(
        `bundler ${this.url} failed ${method}: ${answer.error.code} ${answer.error.message}`,
      );
    }
    return answer.result as T;
  }

  async supportedEntryPoints(): Promise<string[]> {
    return this.call<string[]>('eth_supportedEntryPoints', []);
  }

  /** The gas `op` needs by the bundler's simulation; its signature and paymaster data need only be well-formed. */
  async estimate(op: UserOperation): Promise<GasEstimate> {
    const answer = expectAnswer(
      EstimateAnswer,
      await this.call('eth_estimateUserOperationGas', [toRpcOperation(op), this.entryPoint]),
      'eth_estimateUserOperationGas',
    );
    return {
      preVerificationGas: BigInt(answer.preVerificationGas),
      verificationGasLimit: BigInt(answer.verificationGasLimit),
      callGasLimit: BigInt(answer.callGasLimit),
      paymasterVerificationGasLimit: BigInt(answer.paymasterVerificationGasLimit ?? 0),
      paymasterPostOpGasLimit: BigInt(answer.paymasterPostOpGasLimit ?? 0),
    };
  }

  /** Hands the signed operation to the bundler's mempool; returns the userOpHash it computed. */
  async send(op: UserOperation): Promise<string> {
    const hash = await this.call('eth_sendUserOperation', [toRpcOperation(op), this.entryPoint]);
    return expectAnswer(Hex, hash, 'eth_sendUserOperation');
  }

  /** Whether the bundler still knows the operation (pending in its mempool, or included); null: it dropped it or never had it. */
  async known(userOpHash: string): Promise<{ included: boolean } | null> {
    const answer = expectAnswer(
      ByHashAnswer,
      await this.call('eth_getUserOperationByHash', [userOpHash]),
      'eth_getUserOperationByHash',
    );
    return answer && { included: answer.transactionHash !== null };
  }

  /** The operation's receipt once a bundle carrying it is mined, else null. */
  async receipt(userOpHash: string): Promise<UserOperationReceipt | null> {
    const result = await this.call('eth_getUserOperationReceipt', [userOpHash]);
    if (result === null) return null;
    const answer = expectAnswer(ReceiptAnswer, result, 'eth_getUserOperationReceipt');
    const logs = answer.logs.map((log) => ({
      ...log,
      blockNumber: Number(BigInt(log.blockNumber)),
      index: Number(BigInt(log.logIndex)),
    })) as unknown as Log[];
    const outcome = outcomeOfLogs(logs, userOpHash, answer.receipt.transactionHash);
    return {
      ...(outcome ?? {
        success: answer.success,
        userOpHash,
        txHash: answer.receipt.transactionHash,
        actualGasCost: BigInt(answer.actualGasCost),
      }),
      actualGasUsed: BigInt(answer.actualGasUsed),
      blockNumber: Number(BigInt(answer.receipt.blockNumber)),
      blockHash: answer.receipt.blockHash,
    };
  }
}
