import { getAddress } from 'ethers';
import { isAddress } from '@solana/kit';
import { problems } from '../http/problems';

/** An EVM address from a request: 0x and 40 hex digits, EIP-55 checksummed when in mixed case (else 422 invalid-address). */
export function evmAddress(text: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text))
    throw problems.unprocessable('invalid-address', 'An EVM address is 0x and 40 hex digits');
  const body = text.slice(2);
  const checksummed = getAddress(text.toLowerCase());
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && checksummed !== text) {
    throw problems.unprocessable('invalid-address', 'The address fails its EIP-55 checksum (a typo?)');
  }
  return checksummed;
}

/** A Solana address from a request: a base58 32-byte public key (else 422 invalid-address). */
export function solanaAddress(text: string): string {
  if (!isAddress(text))
    throw problems.unprocessable('invalid-address', 'A Solana address is a base58 32-byte public key');
  return text;
}

/** An address from a request for this network: Solana base58, else EVM (checksummed). The one place that tells them apart. */
export function addressOn(network: { kind: string }, text: string): string {
  return network.kind === 'solana' ? solanaAddress(text) : evmAddress(text);
}
