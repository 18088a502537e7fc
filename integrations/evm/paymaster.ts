import { Wallet, concat, getBytes, hashMessage, hexlify, toBeHex, zeroPadValue } from 'ethers';
import { addressWord, bytes32Word, bytesHashWord, keccakHex, uintWord } from './abi-words';
import { packUserOperation, type UserOperation } from './user-operation';

/** Gas the paymaster's validation may use (an ecrecover and hashing the operation); it returns no context, so no postOp. */
export const PAYMASTER_VERIFICATION_GAS = 60_000n;
export const PAYMASTER_POST_OP_GAS = 0n;

const uint128 = (value: bigint): string => zeroPadValue(toBeHex(value), 16);
const uint48 = (value: number): string => zeroPadValue(toBeHex(value), 6);

/** The first 52 bytes of paymasterAndData: the paymaster and its gas limits, which its signature also covers. */
const staticFields = (paymaster: string): string =>
  concat([paymaster, uint128(PAYMASTER_VERIFICATION_GAS), uint128(PAYMASTER_POST_OP_GAS)]);

/** The most a sponsored operation can cost in wei (every gas limit at its maximum fee): what the paymaster may pay. */
export function maxCostOf(op: UserOperation): bigint {
  const gas =
    op.verificationGasLimit +
    op.callGasLimit +
    op.preVerificationGas +
    PAYMASTER_VERIFICATION_GAS +
    PAYMASTER_POST_OP_GAS;
  return gas * op.maxFeePerGas;
}

/** Until when (unix seconds) a paymasterAndData signed by PaymasterSigner is valid; 0 when it carries no sponsorship. */
export function sponsorshipValidUntil(paymasterAndData: string): number {
  const bytes = getBytes(paymasterAndData);
  if (bytes.length < 58) return 0;
  return Number(BigInt(hexlify(bytes.slice(52, 58))));
}

/** WalletPaymaster.getHash(userOp, validUntil, validAfter), computed off chain (its abi.encode's words written directly). */
export function sponsorshipHash(
  op: UserOperation,
  chainId: bigint | number,
  paymaster: string,
  validUntil: number,
  validAfter: number,
): string {
  const packed = packUserOperation({ ...op, paymasterAndData: staticFields(paymaster) });
  return keccakHex(
    addressWord(packed.sender) +
      uintWord(packed.nonce) +
      bytesHashWord(packed.initCode) +
      bytesHashWord(packed.callData) +
      bytes32Word(packed.accountGasLimits) +
      uintWord((PAYMASTER_VERIFICATION_GAS << 128n) | PAYMASTER_POST_OP_GAS) +
      uintWord(packed.preVerificationGas) +
      bytes32Word(packed.gasFees) +
      uintWord(chainId) +
      addressWord(paymaster) +
      uintWord(validUntil, 48) +
      uintWord(validAfter, 48),
  );
}

/**
 * The service's sponsor key: signs paymasterAndData for an operation so WalletPaymaster pays for it. Held by the
 * worker only; whoever calls `sign` must have checked the user's gas budget first.
 */
export class PaymasterSigner {
  private readonly key: Wallet;

  constructor(privateKey: string) {
    this.key = new Wallet(privateKey);
  }

  get address(): string {
    return this.key.address;
  }

  /** paymasterAndData for `op` (its own paymasterAndData is ignored), valid in [validAfter, validUntil] (unix seconds). */
  sign(op: UserOperation, network: { chainId: number; paymaster: string }, validUntil: number, validAfter = 0): string {
    const hash = sponsorshipHash(op, network.chainId, network.paymaster, validUntil, validAfter);
    const signature = this.key.signingKey.sign(hashMessage(getBytes(hash))).serialized; // EIP-191, as the contract recovers
    return concat([staticFields(network.paymaster), uint48(validUntil), uint48(validAfter), signature]);
  }
}
