import { Contract, type Signer, type TransactionReceipt, type InterfaceAbi } from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { packUserOperation, type UserOperation } from './user-operation';

/** The EntryPoint refused the operation during validation (bad signature, nonce, funds): never sent, no gas spent. */
export class UserOperationRejected extends Error {
  constructor(readonly reason: string) {
    super(`user operation rejected: ${reason}`);
    this.name = 'UserOperationRejected';
  }
}

export interface UserOperationOutcome { success: boolean; userOpHash: string; txHash: string; actualGasCost: bigint; revertReason?: string }

/**
 * The service acts as its own ERC-4337 bundler: it pays for the user operation (topping up the account's EntryPoint
 * deposit when needed) and submits EntryPoint.handleOps from its funded key.
 */
export class Bundler {
  private readonly entryPoint: Contract;

  constructor(signer: Signer, entryPointAddress: string) {
    this.entryPoint = new Contract(entryPointAddress, EntryPointArtifact.abi as InterfaceAbi, signer);
  }

  async nonceOf(sender: string, key = 0n): Promise<bigint> {
    return (await this.entryPoint.getFunction('getNonce')(sender, key)) as bigint;
  }

  async onChainHash(op: UserOperation): Promise<string> {
    return (await this.entryPoint.getFunction('getUserOpHash')(packUserOperation(op))) as string;
  }

  /** Deposits to the EntryPoint for `sender` so its deposit covers `required` wei. */
  async ensureDeposit(sender: string, required: bigint): Promise<void> {
    const deposit = (await this.entryPoint.getFunction('balanceOf')(sender)) as bigint;
    if (deposit >= required) return;
    const tx = await this.entryPoint.getFunction('depositTo')(sender, { value: required - deposit });
    await tx.wait();
  }

  /** Submits one user operation and waits for its receipt; a validation failure throws (EntryPoint FailedOp). */
  async submit(op: UserOperation, beneficiary: string): Promise<UserOperationOutcome> {
    const maxCost = (op.callGasLimit + op.verificationGasLimit + op.preVerificationGas) * op.maxFeePerGas;
    await this.ensureDeposit(op.sender, maxCost);
    const handleOps = this.entryPoint.getFunction('handleOps');
    // Simulate first, as a bundler must: a validation failure costs nothing and names its reason (AA2x/AA3x).
    try {
      await handleOps.staticCall([packUserOperation(op)], beneficiary);
    } catch (error) {
      const revert = (error as { revert?: { name: string; args: unknown[] } }).revert;
      if (revert?.name === 'FailedOp' || revert?.name === 'FailedOpWithRevert') throw new UserOperationRejected(String(revert.args[1]));
      throw error;
    }
    const tx = await handleOps([packUserOperation(op)], beneficiary);
    const receipt = (await tx.wait()) as TransactionReceipt;
    return this.outcomeOf(receipt);
  }

  outcomeOf(receipt: TransactionReceipt): UserOperationOutcome {
    for (const log of receipt.logs) {
      const parsed = this.entryPoint.interface.parseLog(log);
      if (parsed?.name === 'UserOperationEvent') {
        return { success: parsed.args.success as boolean, userOpHash: parsed.args.userOpHash as string, txHash: receipt.hash, actualGasCost: parsed.args.actualGasCost as bigint };
      }
    }
    throw new Error(`transaction ${receipt.hash} carries no UserOperationEvent`);
  }
}
