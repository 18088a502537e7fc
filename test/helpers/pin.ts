import { createHash } from 'node:crypto';
import type { JWK } from 'jose';
import { PinEncryptor, kycRenewRequest, type TransferFields } from '@wallet-service/client';
import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { verifiedIdentityCheck } from './identity-checks';

/** The client's PIN encryptor, reading the stack's public key each time (stacks come and go on reused ports). */
const encryptorFor = (apiUrl: string): PinEncryptor =>
  new PinEncryptor(async () => (await call(`${apiUrl}/api/v1/pin/public-key`)).body.data.jwk as JWK);

/**
 * Encrypts a PIN as the app does (the client's PinEncryptor): a compact JWE of {pin, iat} to the service's published
 * key; with `request`, it approves that request only, once (a random `jti` is added).
 */
export function encryptPin(
  stack: Pick<TestStack, 'apiUrl'>,
  pin: string,
  options: { iat?: number; request?: Record<string, string | null>; jti?: string } = {},
): Promise<string> {
  return encryptorFor(stack.apiUrl).encrypt(pin, options);
}

export { transferRequest, backupReplaceRequest, type TransferFields } from '@wallet-service/client';

/** What approves a KYC renewal with this form: its ID-card image (the file's bytes; none: empty) and idCardType. */
export const kycRenewalRequest = async (form: FormData) => {
  const image = form.get('idCardImage') as Blob | null;
  return kycRenewRequest(new Uint8Array(image ? await image.arrayBuffer() : []), String(form.get('idCardType')));
};

/** The encrypted PIN approving this transfer. */
export const transferPin = (
  stack: Pick<TestStack, 'apiUrl'>,
  pin: string,
  body: TransferFields,
  idempotencyKey?: string,
) => encryptorFor(stack.apiUrl).forTransfer(pin, body, idempotencyKey);

/** What an identity check approving the first PIN names: that PIN, by the digest of its JWE as sent. */
export const pinSetRequest = (pinJwe: string) => ({
  action: 'pin_set',
  new_pin_sha256: createHash('sha256').update(pinJwe).digest('base64url'),
});

/** The encrypted current PIN approving a change to the new PIN `newPinJwe` (as sent in new_pin). */
export const pinChangePin = (stack: Pick<TestStack, 'apiUrl'>, pin: string, newPinJwe: string) =>
  encryptPin(stack, pin, {
    request: { action: 'pin_change', new_pin_sha256: createHash('sha256').update(newPinJwe).digest('base64url') },
  });

/** The body of a PIN change from `current` to `next`, the current PIN approving that new one. */
export async function pinChangeBody(
  stack: Pick<TestStack, 'apiUrl'>,
  current: string,
  next: string,
): Promise<{ current_pin: string; new_pin: string }> {
  const newPin = await encryptPin(stack, next);
  return { current_pin: await pinChangePin(stack, current, newPin), new_pin: newPin };
}

/**
 * Sets the user's PIN unless one is set already, as an app does after registration: with a fresh identity check (the
 * access token alone cannot). A user registered with a PIN keeps theirs.
 */
export async function ensurePin(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  pin: string,
): Promise<void> {
  const headers = { authorization: `Bearer ${user.accessToken}` };
  if ((await call(`${stack.apiUrl}/api/v1/pin`, { headers })).body.data.pin_set) return;
  const jwe = await encryptPin(stack, pin);
  const identityCheckId = await verifiedIdentityCheck(stack, user, pinSetRequest(jwe));
  const set = await call(`${stack.apiUrl}/api/v1/pin`, { headers, json: { pin: jwe, identityCheckId } });
  if (set.status !== 201) throw new Error(`setting the PIN failed: ${set.status} ${JSON.stringify(set.body)}`);
  user.pin = pin;
}

/** The body of an account closure approved by the PIN. */
export const closeAccountBody = async (stack: Pick<TestStack, 'apiUrl'>, pin: string) => ({
  confirm: 'CLOSE',
  pin: await encryptPin(stack, pin, { request: { action: 'account_close' } }),
});
