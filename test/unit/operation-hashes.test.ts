import { randomBytes } from 'node:crypto';
import { AbiCoder, TypedDataEncoder, concat, hexlify, keccak256, toBeHex, zeroPadValue } from 'ethers';
import {
  USER_OPERATION_TYPES,
  packUserOperation,
  userOperationDomain,
  userOperationHash,
  type UserOperation,
} from '../../integrations/evm/user-operation';
import { PAYMASTER_POST_OP_GAS, PAYMASTER_VERIFICATION_GAS, sponsorshipHash } from '../../integrations/evm/paymaster';

/**
 * The transfer path's hashes are written word by word (integrations/evm/abi-words.ts); ethers' TypedDataEncoder and
 * AbiCoder, which they replaced, are the reference here. (test/chain/wallet-account.test.ts compares both with the
 * contracts on a chain.)
 */
const hex = (bytes: number) => hexlify(randomBytes(bytes));
const uint = (bits: number) => BigInt(hex(bits / 8));
const address = () => hex(20);

function randomOperation(): UserOperation {
  return {
    sender: address(),
    nonce: uint(256),
    initCode: Math.random() < 0.5 ? '0x' : hex(20 + Math.floor(Math.random() * 200)),
    callData: hex(Math.floor(Math.random() * 600)),
    callGasLimit: uint(128),
    verificationGasLimit: uint(128),
    preVerificationGas: uint(256),
    maxFeePerGas: uint(128),
    maxPriorityFeePerGas: uint(128),
    paymasterAndData: Math.random() < 0.5 ? '0x' : hex(52 + Math.floor(Math.random() * 80)),
    signature: hex(65),
  };
}

/** The userOpHash as ethers' EIP-712 encoder computes it. */
function referenceUserOperationHash(op: UserOperation, chainId: bigint, entryPoint: string): string {
  const { signature: _unsigned, ...message } = packUserOperation(op);
  return TypedDataEncoder.hash(userOperationDomain(chainId, entryPoint), USER_OPERATION_TYPES, message);
}

/** WalletPaymaster.getHash as ethers' AbiCoder encodes it. */
function referenceSponsorshipHash(
  op: UserOperation,
  chainId: bigint,
  paymaster: string,
  validUntil: number,
  validAfter: number,
): string {
  const uint128 = (value: bigint) => zeroPadValue(toBeHex(value), 16);
  const packed = packUserOperation({
    ...op,
    paymasterAndData: concat([paymaster, uint128(PAYMASTER_VERIFICATION_GAS), uint128(PAYMASTER_POST_OP_GAS)]),
  });
  return keccak256(
    AbiCoder.defaultAbiCoder().encode(
      [
        'address',
        'uint256',
        'bytes32',
        'bytes32',
        'bytes32',
        'uint256',
        'uint256',
        'bytes32',
        'uint256',
        'address',
        'uint48',
        'uint48',
      ],
      [
        packed.sender,
        packed.nonce,
        keccak256(packed.initCode),
        keccak256(packed.callData),
        packed.accountGasLimits,
        BigInt(concat([uint128(PAYMASTER_VERIFICATION_GAS), uint128(PAYMASTER_POST_OP_GAS)])),
        packed.preVerificationGas,
        packed.gasFees,
        chainId,
        paymaster,
        validUntil,
        validAfter,
      ],
    ),
  );
}

describe("the transfer path's operation hashes", () => {
  it('equal the EIP-712 userOpHash of ethers for 300 random operations, on several networks', () => {
    for (let i = 0; i < 300; i += 1) {
      const op = randomOperation();
      const chainId = [1n, 137n, 31337n, uint(64)][i % 4]!;
      const entryPoint = i % 2 ? '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108' : address();
      expect(userOperationHash(op, chainId, entryPoint)).toBe(referenceUserOperationHash(op, chainId, entryPoint));
    }
  });

  it("equal the paymaster's hash as ethers' ABI coder encodes it for 300 random operations", () => {
    for (let i = 0; i < 300; i += 1) {
      const op = randomOperation();
      const chainId = [1n, 31337n, uint(64)][i % 3]!;
      const [validUntil, validAfter] = [Number(uint(48) >> 1n), i % 2 ? 0 : Number(uint(32))];
      const paymaster = address();
      expect(sponsorshipHash(op, chainId, paymaster, validUntil, validAfter)).toBe(
        referenceSponsorshipHash(op, chainId, paymaster, validUntil, validAfter),
      );
    }
  });

  it('refuses values the ABI cannot hold, as the encoders they replace do', () => {
    const op = randomOperation();
    const bad: Array<Partial<UserOperation>> = [
      { nonce: -1n },
      { nonce: 1n << 256n },
      { callGasLimit: 1n << 128n },
      { sender: '0x1234' },
      { sender: `0x${'zz'.repeat(20)}` },
      { callData: '0x123' },
      { initCode: 'nothex' },
      { callData: '1234' },
    ];
    for (const change of bad) {
      const changed = { ...op, ...change };
      expect(() => userOperationHash(changed, 1n, address())).toThrow();
      expect(() => referenceUserOperationHash(changed, 1n, address())).toThrow();
    }
    expect(() => sponsorshipHash(op, 1n, address(), 2 ** 48, 0)).toThrow(RangeError);
    expect(() => referenceSponsorshipHash(op, 1n, address(), 2 ** 48, 0)).toThrow();
  });
});
