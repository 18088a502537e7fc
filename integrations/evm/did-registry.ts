import { Interface, SigningKey, encodeBytes32String, getBytes, isHexString, type InterfaceAbi } from 'ethers';
import { EthereumDIDRegistry } from 'ethr-did-registry';
import type { EvmNetwork } from '../../platform/networks';
import { DomainError } from '../../platform/domain-error';

/** Key types accepted for assertionMethod keys, with the did:ethr attribute each is stored under. */
export const DID_KEY_TYPES = {
  EcdsaSecp256k1VerificationKey2019: { attribute: 'did/pub/Secp256k1/veriKey/hex' },
  Ed25519VerificationKey2018: { attribute: 'did/pub/Ed25519/veriKey/base64' },
} as const;
export type DidKeyType = keyof typeof DID_KEY_TYPES;

/** A public key that is not of its key type's form: the API answers 422 invalid-public-key. */
export class InvalidDidKey extends DomainError {
  constructor(message: string) {
    super('invalid-public-key', message);
  }
}

/** did:ethr of a user's smart account: the account is its own DID controller in the registry. */
export const didOf = (network: EvmNetwork, account: string): string =>
  `did:ethr:0x${network.chainId.toString(16)}:${account}`;

/** Checks the public key for its type and returns its bytes (secp256k1 keys are stored compressed). */
export function publicKeyBytes(keyType: DidKeyType, publicKey: string): string {
  if (!isHexString(publicKey) || publicKey.length % 2 !== 0)
    throw new InvalidDidKey('publicKey must be 0x-prefixed hex of whole bytes');
  if (keyType === 'Ed25519VerificationKey2018') {
    if (getBytes(publicKey).length !== 32) throw new InvalidDidKey('an Ed25519 public key is 32 bytes');
    return publicKey.toLowerCase();
  }
  try {
    return SigningKey.computePublicKey(publicKey, true);
  } catch {
    throw new InvalidDidKey('publicKey is not a valid secp256k1 public key (33 or 65 bytes)');
  }
}

const registry = new Interface(EthereumDIDRegistry.abi as InterfaceAbi);

/** EthereumDIDRegistry.setAttribute(identity, name, value, validity) for an assertionMethod key. */
export const setAttributeCallData = (
  account: string,
  keyType: DidKeyType,
  keyBytes: string,
  validitySeconds: number,
): string =>
  registry.encodeFunctionData('setAttribute', [
    account,
    encodeBytes32String(DID_KEY_TYPES[keyType].attribute),
    keyBytes,
    validitySeconds,
  ]);
