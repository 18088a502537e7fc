import { createHash, randomUUID } from 'node:crypto';
import { CompactEncrypt, importJWK, type JWK } from 'jose';
import type { TestStack } from './stack';
import { call } from './http';

/**
 * Encrypts a PIN as the app does: a compact JWE of {pin, iat} to the service's published key; with `request`, it
 * approves that request only, once (a random `jti` is added).
 */
export async function encryptPin(
  stack: Pick<TestStack, 'apiUrl'>, pin: string, options: { iat?: number; request?: Record<string, string | null>; jti?: string } = {},
): Promise<string> {
  const { jwk } = (await call(`${stack.apiUrl}/api/v1/pin/public-key`)).body.data as { jwk: JWK };
  const payload = { pin, iat: options.iat ?? Math.floor(Date.now() / 1000), ...(options.request ? { request: options.request, jti: options.jti ?? randomUUID() } : {}) };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'ECDH-ES+A256KW', enc: 'A256GCM', kid: jwk.kid })
    .encrypt(await importJWK(jwk, 'ECDH-ES+A256KW'));
}

export interface TransferFields { to_address: string; network: string; token: string; amount: string; beneficiary_name?: string }

/** What the PIN of a transfer approves: that transfer and its Idempotency-Key (or none). */
export const transferRequest = (body: TransferFields, idempotencyKey?: string) => ({
  action: 'transfer', to_address: body.to_address, network: body.network, token: body.token, amount: body.amount,
  ...(body.beneficiary_name !== undefined ? { beneficiary_name: body.beneficiary_name } : {}), idempotency_key: idempotencyKey ?? null,
});

/** The encrypted PIN approving this transfer. */
export const transferPin = (stack: Pick<TestStack, 'apiUrl'>, pin: string, body: TransferFields, idempotencyKey?: string) =>
  encryptPin(stack, pin, { request: transferRequest(body, idempotencyKey) });

/** The encrypted current PIN approving a change to the new PIN `newPinJwe` (as sent in new_pin). */
export const pinChangePin = (stack: Pick<TestStack, 'apiUrl'>, pin: string, newPinJwe: string) =>
  encryptPin(stack, pin, { request: { action: 'pin_change', new_pin_sha256: createHash('sha256').update(newPinJwe).digest('base64url') } });

/** The body of a PIN change from `current` to `next`, the current PIN approving that new one. */
export async function pinChangeBody(stack: Pick<TestStack, 'apiUrl'>, current: string, next: string): Promise<{ current_pin: string; new_pin: string }> {
  const newPin = await encryptPin(stack, next);
  return { current_pin: await pinChangePin(stack, current, newPin), new_pin: newPin };
}

/** Sets the user's PIN unless one is set already. */
export async function ensurePin(stack: Pick<TestStack, 'apiUrl'>, user: { accessToken: string }, pin: string): Promise<void> {
  const headers = { authorization: `Bearer ${user.accessToken}` };
  if ((await call(`${stack.apiUrl}/api/v1/pin`, { headers })).body.data.pin_set) return;
  const set = await call(`${stack.apiUrl}/api/v1/pin`, { headers, json: { pin: await encryptPin(stack, pin) } });
  if (set.status !== 201) throw new Error(`setting the PIN failed: ${set.status} ${JSON.stringify(set.body)}`);
}

/** The body of an account closure approved by the PIN. */
export const closeAccountBody = async (stack: Pick<TestStack, 'apiUrl'>, pin: string) =>
  ({ confirm: 'CLOSE', pin: await encryptPin(stack, pin, { request: { action: 'account_close' } }) });
