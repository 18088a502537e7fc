import { Contract, type InterfaceAbi, type Wallet } from 'ethers';
import EntryPointArtifact from '@account-abstraction/contracts/artifacts/EntryPoint.json';
import { packUserOperation, type UserOperation } from '../../integrations/evm/user-operation';
import { EntryPointReader, type UserOperationOutcome } from '../../integrations/evm/entry-point';
import type { JsonRpcProvider } from 'ethers';

/**
 * A harness for contract tests, not a bundler: calls EntryPoint.handleOps directly from a funded key, one operation per
 * transaction, so a test of WalletAccount or WalletPaymaster sees exactly what the EntryPoint does. The service sends
 * user operations through a real bundler (integrations/evm/bundler-client.ts; Alto in tests).
 */
export class EntryPointHarness extends EntryPointReader {
  private readonly contract: Contract;

  constructor(
    private readonly signer: Wallet,
    entryPointAddress: string,
  ) {
    super(signer.provider as JsonRpcProvider, entryPointAddress);
    this.contract = new Contract(entryPointAddress, EntryPointArtifact.abi as InterfaceAbi, signer);
  }

  /** Simulates handleOps: a validation failure costs nothing and names its reason (AA2x/AA3x). */
  async simulate(op: UserOperation, beneficiary: string): Promise<void> {
    try {
      await this.contract.getFunction('handleOps').staticCall([packUserOperation(op)], beneficiary);
    } catch (error) {
      const revert = (error as { revert?: { name: string; args: unknown[] } }).revert;
      if (revert?.name === 'FailedOp' || revert?.name === 'FailedOpWithRevert')
        throw new Error(`user operation rejected: ${String(revert.args[1])}`);
      throw error;
    }
  }

  /** Simulates, sends handleOps([op]) and waits for its receipt. */
  async submit(op: UserOperation, beneficiary: string): Promise<UserOperationOutcome> {
    await this.simulate(op, beneficiary);
    // The nonce straight from the node: ethers answers repeated identical calls from a short cache, stale right after
    // a transaction of the same key.
    const nonce = Number(
      BigInt(
        (await (this.signer.provider as JsonRpcProvider).send('eth_getTransactionCount', [
          this.signer.address,
          'pending',
        ])) as string,
      ),
    );
    const tx = await this.contract.getFunction('handleOps')([packUserOperation(op)], beneficiary, { nonce });
    const receipt = await tx.wait();
    const outcome = receipt && this.outcomeIn(receipt, await this.onChainHash(op));
    if (!outcome) throw new Error(`transaction ${tx.hash} carries no UserOperationEvent`);
    return outcome;
  }
}
