import { AbiCoder, Wallet, concat, keccak256, toBeHex, toUtf8Bytes, zeroPadValue } from 'ethers';
import type { BundlerClient } from './bundler-client';
import { PAYMASTER_POST_OP_GAS, PAYMASTER_VERIFICATION_GAS } from './paymaster';
import type { UserOperation } from './user-operation';

/**
 * The signature an operation will carry, so its gas is estimated with one of the same form and size: the owner's
 * (0x00 || 65 bytes), the transfer key's (0x02 || 65 bytes), or the owner's over a merkle root of `leaves` operations
 * (0x01 || abi.encode(root, proof, 65 bytes)).
 */
export type SignatureShape =
  | { kind: 'owner' }
  | { kind: 'transfer' }
  | { kind: 'merkle'; leaves: number }
  /** 65 bytes alone: accounts of other kinds (the bench's SimpleAccount). */
  | { kind: 'plain' };

/**
 * The margins over the bundler's estimate, on purpose small. callGasLimit: +10 % (EntryPoint v0.8 charges 10 % of the
 * unused part only past 40,000 unused, so this costs nothing on our calls). verificationGasLimit: +10 % (unused
 * verification gas is not charged; the margin absorbs a real signature's few gas more or less than the stand-in's).
 * preVerificationGas: +1 % (charged in full: it is the bundler's overhead share, computed from the operation's size,
 * which the stand-in signature and paymaster data match byte for byte).
 */
export const GAS_MARGINS = { callGasLimit: 110n, verificationGasLimit: 110n, preVerificationGas: 101n } as const;

/** A throwaway key: its signatures go through ecrecover like the real signer's and are refused by the account. */
const STAND_IN_SIGNER = new Wallet(keccak256(toUtf8Bytes('wallet-service/gas-estimation-stand-in')));
const STAND_IN_SIGNATURE = STAND_IN_SIGNER.signingKey.sign(keccak256(toUtf8Bytes('gas-estimation'))).serialized;

/** A signature of the right form and size that the account refuses (SIG_VALIDATION_FAILED, never a revert). */
export function standInSignature(shape: SignatureShape): string {
  if (shape.kind === 'plain') return STAND_IN_SIGNATURE;
  if (shape.kind === 'owner') return concat(['0x00', STAND_IN_SIGNATURE]);
  if (shape.kind === 'transfer') return concat(['0x02', STAND_IN_SIGNATURE]);
  const depth = Math.max(0, Math.ceil(Math.log2(Math.max(1, shape.leaves))));
  const proof = Array.from({ length: depth }, (_, i) => keccak256(toUtf8Bytes(`proof-${i}`)));
  return concat([
    '0x01',
    AbiCoder.defaultAbiCoder().encode(
      ['bytes32', 'bytes32[]', 'bytes'],
      [keccak256(toUtf8Bytes('root')), proof, STAND_IN_SIGNATURE],
    ),
  ]);
}

/** paymasterAndData of WalletPaymaster's form and size with a refused signature (validation fails, nothing reverts). */
export function standInPaymasterData(paymaster: string): string {
  const uint128 = (v: bigint) => zeroPadValue(toBeHex(v), 16);
  return concat([
    paymaster,
    uint128(PAYMASTER_VERIFICATION_GAS),
    uint128(PAYMASTER_POST_OP_GAS),
    zeroPadValue('0xffffffffffff', 6), // validUntil
    zeroPadValue('0x01', 6), // validAfter
    STAND_IN_SIGNATURE,
  ]);
}

const withMargin = (value: bigint, percent: bigint): bigint => (value * percent + 99n) / 100n;

/**
 * The operation with its gas limits from the bundler's simulation (eth_estimateUserOperationGas) plus GAS_MARGINS,
 * instead of constants: what the paymaster reserves and the EntryPoint charges follows what the operation needs. It is
 * estimated as it will be sent: sponsored by `paymaster` and signed in `shape`.
 */
export async function withEstimatedGas(
  bundler: BundlerClient,
  op: UserOperation,
  paymaster: string,
  shape: SignatureShape,
): Promise<UserOperation> {
  const estimate = await bundler.estimate({
    ...op,
    paymasterAndData: standInPaymasterData(paymaster),
    signature: standInSignature(shape),
  });
  return {
    ...op,
    callGasLimit: withMargin(estimate.callGasLimit, GAS_MARGINS.callGasLimit),
    verificationGasLimit: withMargin(estimate.verificationGasLimit, GAS_MARGINS.verificationGasLimit),
    preVerificationGas: withMargin(estimate.preVerificationGas, GAS_MARGINS.preVerificationGas),
  };
}
