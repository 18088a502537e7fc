import { getBytes, hashMessage, isHexString, keccak256, recoverAddress, Signature } from 'ethers';

/**
 * The on-chain signing algorithms of signing slots (docs/interface.md 2.1). Every slot's `payload` is 0x-hex bytes; the
 * signer signs `digest(algorithm, payload)` with its secp256k1 key and answers a 65-byte r||s||v signature.
 *  - ecdsa-secp256k1-keccak:       digest = keccak256(payload)
 *  - eip191-personal-sign:         digest = keccak256("\x19Ethereum Signed Message:\n" + len + payload)  (personal_sign)
 *  - eip712-erc4337-userop-v1:     payload is the 32-byte EIP-712 userOpHash, domain {name:"ERC4337", version:"1",
 *                                  chainId, verifyingContract: EntryPoint}; digest = payload (eth_signTypedData_v4)
 *  - eip712-erc4337-merkleroot-v1: payload is the 32-byte EIP-712 digest of UserOperationMerkleRoot(root) in the
 *                                  domain {name:"ERC4337", version:"1"}; digest = payload
 */
export const SIGNING_ALGORITHMS = [
  'ecdsa-secp256k1-keccak',
  'eip191-personal-sign',
  'eip712-erc4337-userop-v1',
  'eip712-erc4337-merkleroot-v1',
] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export class SlotSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlotSignatureError';
  }
}

export const isSigningAlgorithm = (value: string): value is SigningAlgorithm =>
  (SIGNING_ALGORITHMS as readonly string[]).includes(value);

export function slotDigest(algorithm: SigningAlgorithm, payload: string): string {
  if (!isHexString(payload)) throw new SlotSignatureError('payload must be 0x-prefixed hex');
  switch (algorithm) {
    case 'ecdsa-secp256k1-keccak':
      return keccak256(payload);
    case 'eip191-personal-sign':
      return hashMessage(getBytes(payload));
    case 'eip712-erc4337-userop-v1':
    case 'eip712-erc4337-merkleroot-v1':
      if (!isHexString(payload, 32)) throw new SlotSignatureError(`${algorithm} payload must be a 32-byte digest`);
      return payload;
  }
}

/** The address whose key made `signature` over the slot; throws SlotSignatureError for a malformed signature. */
export function recoverSlotSigner(algorithm: SigningAlgorithm, payload: string, signature: string): string {
  if (!isHexString(signature, 65)) throw new SlotSignatureError('signature must be 65 bytes of 0x-hex (r, s, v)');
  const digest = slotDigest(algorithm, payload);
  try {
    return recoverAddress(digest, Signature.from(signature));
  } catch {
    throw new SlotSignatureError('signature is not a valid secp256k1 signature');
  }
}

/** keyUri of an on-chain signing key: `key:secp256k1:<checksummed address>`. */
export const keyUriOf = (address: string): string => `key:secp256k1:${address}`;
export const addressOfKeyUri = (keyUri: string): string | undefined =>
  /^key:secp256k1:(0x[0-9a-fA-F]{40})$/.exec(keyUri)?.[1];
