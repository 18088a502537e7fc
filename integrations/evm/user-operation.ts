import {
  AbiCoder,
  Signature,
  TypedDataEncoder,
  concat,
  hexlify,
  toUtf8Bytes,
  type TypedDataDomain,
  type TypedDataField,
} from 'ethers';
import { addressWord, bytes32Word, bytesHashWord, keccakHex, uintWord } from './abi-words';

/** An ERC-4337 v0.8 user operation with its gas fields unpacked, as the service builds it. */
export interface UserOperation {
  sender: string;
  nonce: bigint;
  initCode: string;
  callData: string;
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymasterAndData: string;
  signature: string;
}

/** The on-chain PackedUserOperation struct (EntryPoint v0.8). */
export interface PackedUserOperation {
  sender: string;
  nonce: bigint;
  initCode: string;
  callData: string;
  accountGasLimits: string;
  preVerificationGas: bigint;
  gasFees: string;
  paymasterAndData: string;
  signature: string;
}

const pack128 = (high: bigint, low: bigint): string =>
  `0x${uintWord(high, 128).slice(32)}${uintWord(low, 128).slice(32)}`;

export function packUserOperation(op: UserOperation): PackedUserOperation {
  return {
    sender: op.sender,
    nonce: op.nonce,
    initCode: op.initCode,
    callData: op.callData,
    accountGasLimits: pack128(op.verificationGasLimit, op.callGasLimit),
    preVerificationGas: op.preVerificationGas,
    gasFees: pack128(op.maxPriorityFeePerGas, op.maxFeePerGas),
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  };
}

export const USER_OPERATION_TYPES: Record<string, TypedDataField[]> = {
  PackedUserOperation: [
    { name: 'sender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'initCode', type: 'bytes' },
    { name: 'callData', type: 'bytes' },
    { name: 'accountGasLimits', type: 'bytes32' },
    { name: 'preVerificationGas', type: 'uint256' },
    { name: 'gasFees', type: 'bytes32' },
    { name: 'paymasterAndData', type: 'bytes' },
  ],
};

/** eip712-erc4337-userop-v1: the domain EntryPoint v0.8 hashes user operations in. */
export const userOperationDomain = (chainId: bigint | number, entryPoint: string): TypedDataDomain => ({
  name: 'ERC4337',
  version: '1',
  chainId,
  verifyingContract: entryPoint,
});

/** keccak256 of PackedUserOperation's EIP-712 type, as ethers' encoder writes it from USER_OPERATION_TYPES. */
const USER_OPERATION_TYPE_HASH = bytesHashWord(
  hexlify(toUtf8Bytes(TypedDataEncoder.from(USER_OPERATION_TYPES).encodeType('PackedUserOperation'))),
);
/** Each network's domain separator, computed once (ethers' TypedDataEncoder.hashDomain). */
const domainSeparators = new Map<string, string>();
const domainSeparator = (chainId: bigint | number, entryPoint: string): string => {
  const key = `${chainId}:${entryPoint.toLowerCase()}`;
  let separator = domainSeparators.get(key);
  if (!separator) {
    separator = TypedDataEncoder.hashDomain(userOperationDomain(chainId, entryPoint)).slice(2);
    domainSeparators.set(key, separator);
  }
  return separator;
};

/**
 * The userOpHash, equal to EntryPoint.getUserOpHash(op): EIP-712's hash of the packed operation (its signature
 * left out), the struct's words written directly (abi-words.ts) rather than through ethers' TypedDataEncoder, which
 * test/unit/operation-hashes.test.ts checks it against.
 */
export function userOperationHash(op: UserOperation, chainId: bigint | number, entryPoint: string): string {
  const packed = packUserOperation(op);
  const struct = keccakHex(
    USER_OPERATION_TYPE_HASH +
      addressWord(packed.sender) +
      uintWord(packed.nonce) +
      bytesHashWord(packed.initCode) +
      bytesHashWord(packed.callData) +
      bytes32Word(packed.accountGasLimits) +
      uintWord(packed.preVerificationGas) +
      bytes32Word(packed.gasFees) +
      bytesHashWord(packed.paymasterAndData),
  );
  return keccakHex(`1901${domainSeparator(chainId, entryPoint)}${struct.slice(2)}`);
}

/** eip712-erc4337-merkleroot-v1: one signature over the root of several userOpHashes (one per network). */
export const MERKLE_ROOT_DOMAIN: TypedDataDomain = { name: 'ERC4337', version: '1' };
export const MERKLE_ROOT_TYPES: Record<string, TypedDataField[]> = {
  UserOperationMerkleRoot: [{ name: 'root', type: 'bytes32' }],
};
export const merkleRootDigest = (root: string): string =>
  TypedDataEncoder.hash(MERKLE_ROOT_DOMAIN, MERKLE_ROOT_TYPES, { root });

/**
 * The tree over userOpHashes: OpenZeppelin's StandardMerkleTree with leaf type bytes32, so
 * leaf(h) = keccak256(keccak256(abi.encode(h))) and pairs are sorted, as WalletAccount verifies on chain.
 */
export async function userOperationMerkleTree(
  hashes: string[],
): Promise<{ root: string; proofOf(hash: string): string[] }> {
  // Loaded by the first key rotation (about 1.3 MiB of an api at rest: issue 52).
  const { StandardMerkleTree } = await import('@openzeppelin/merkle-tree');
  const tree = StandardMerkleTree.of(
    hashes.map((h) => [h]),
    ['bytes32'],
  );
  return { root: tree.root, proofOf: (hash) => tree.getProof([hash]) };
}

const SINGLE = '0x00';
const MERKLE = '0x01';

/** userOp.signature for WalletAccount: 0x00 || owner signature over the userOpHash. */
export const singleSignature = (ownerSignature: string): string =>
  concat([SINGLE, Signature.from(ownerSignature).serialized]);

/** userOp.signature for WalletAccount: 0x02 || the transfer signer's signature over the userOpHash (transfers only). */
export const transferSignature = (signerSignature: string): string =>
  concat(['0x02', Signature.from(signerSignature).serialized]);

/** userOp.signature for WalletAccount: 0x01 || abi.encode(root, proof, owner signature over the root). */
export const merkleSignature = (root: string, proof: string[], ownerSignature: string): string =>
  concat([
    MERKLE,
    AbiCoder.defaultAbiCoder().encode(
      ['bytes32', 'bytes32[]', 'bytes'],
      [root, proof, Signature.from(ownerSignature).serialized],
    ),
  ]);
