import { CompactEncrypt, importJWK, type JWK } from 'jose';
import type { TestStack } from './stack';
import { call } from './http';

/** Encrypts a PIN as the app does: a compact JWE of {pin, iat} to the service's published key. */
export async function encryptPin(stack: TestStack, pin: string, iat = Math.floor(Date.now() / 1000)): Promise<string> {
  const { jwk } = (await call(`${stack.apiUrl}/api/v1/pin/public-key`)).body.data as { jwk: JWK };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ pin, iat })))
    .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: jwk.kid })
    .encrypt(await importJWK(jwk, 'ECDH-ES+A256KW'));
}
