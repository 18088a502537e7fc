import { keccak256 } from 'ethers';

/**
 * ABI words of static types, as hex without 0x, for the hashes the transfer path computes on every operation (the
 * userOpHash and the paymaster's hash). ethers' AbiCoder and TypedDataEncoder build coders and typed objects on each
 * call: about 320 KiB of garbage per transfer in the worker, the second source of its allocations after JSON-RPC
 * decoding (bench/NOTES.md, step 13). Each value's range and form are checked (a value out of range, or not 0x hex,
 * throws); unlike ethers, an address's checksum case is not: the callers pass addresses they checksummed themselves.
 */
const TWO_256 = 1n << 256n;
const HEX = /^0x[0-9a-fA-F]*$/;

/** uintN (N <= 256) as one word. */
export function uintWord(value: bigint | number, bits = 256): string {
  const n = BigInt(value);
  if (n < 0n || n >= (bits === 256 ? TWO_256 : 1n << BigInt(bits)))
    throw new RangeError(`value out of range for uint${bits}: ${n}`);
  return n.toString(16).padStart(64, '0');
}

/** An address as one word (left-padded). */
export function addressWord(address: string): string {
  if (address.length !== 42 || !HEX.test(address)) throw new TypeError(`not an address: ${address}`);
  return address.slice(2).toLowerCase().padStart(64, '0');
}

/** A bytes32 value as one word. */
export function bytes32Word(value: string): string {
  if (value.length !== 66 || !HEX.test(value)) throw new TypeError(`not a bytes32 value: ${value}`);
  return value.slice(2).toLowerCase();
}

/** keccak256 of hex bytes given with or without 0x; the hash as 0x-hex. */
export function keccakHex(hex: string): string {
  const body = hex.startsWith('0x') ? hex.slice(2) : hex;
  if (body.length % 2 !== 0 || !HEX.test(`0x${body}`)) throw new TypeError('not hex bytes');
  return keccak256(Buffer.from(body, 'hex'));
}

/** `bytes` hashed as EIP-712 and abi.encode(…keccak256(b)…) take it: keccak256 of its bytes, as one word. */
export function bytesHashWord(hex: string): string {
  if (!hex.startsWith('0x')) throw new TypeError('bytes must be 0x-prefixed hex');
  return keccakHex(hex).slice(2);
}
