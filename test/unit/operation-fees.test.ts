import { Wallet, ZeroAddress } from 'ethers';
import { PaymasterSigner, sponsorshipValidUntil } from '../../integrations/evm/paymaster';
import { feesReplacing } from '../../integrations/evm/smart-account';
import type { UserOperation } from '../../integrations/evm/user-operation';

const operation: UserOperation = {
  sender: Wallet.createRandom().address,
  nonce: 7n,
  initCode: '0x',
  callData: '0x',
  callGasLimit: 50_000n,
  verificationGasLimit: 80_000n,
  preVerificationGas: 45_000n,
  maxFeePerGas: 3_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
  paymasterAndData: '0x',
  signature: '0x',
};

describe('fees of a replacement operation', () => {
  it('outbids the stalled operation by at least an eighth on both caps when today is cheaper', () => {
    const fees = feesReplacing({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }, operation);
    expect(fees).toEqual({ maxFeePerGas: 3_375_000_000n, maxPriorityFeePerGas: 1_125_000_000n });
    // Bundlers (Alto) replace an operation only for 10 % more on each cap.
    expect(fees.maxFeePerGas * 100n >= operation.maxFeePerGas * 110n).toBe(true);
    expect(fees.maxPriorityFeePerGas * 100n >= operation.maxPriorityFeePerGas * 110n).toBe(true);
  });

  it("takes today's caps when they are higher", () => {
    const today = { maxFeePerGas: 90_000_000_000n, maxPriorityFeePerGas: 2_000_000_000n };
    expect(feesReplacing(today, operation)).toEqual(today);
  });

  it('rounds the eighth up, so a cap of a few wei still rises', () => {
    expect(
      feesReplacing({ maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
    ).toEqual({ maxFeePerGas: 2n, maxPriorityFeePerGas: 2n });
  });
});

describe('the sponsorship an operation carries', () => {
  it('reads validUntil back from paymasterAndData as the paymaster signed it', () => {
    const signer = new PaymasterSigner(Wallet.createRandom().privateKey);
    const data = signer.sign(operation, { chainId: 31337, paymaster: ZeroAddress }, 1_900_000_123, 5);
    expect(sponsorshipValidUntil(data)).toBe(1_900_000_123);
  });

  it('is 0 for an operation without sponsorship', () => {
    expect(sponsorshipValidUntil('0x')).toBe(0);
  });
});
