import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { encryptPin, ensurePin } from './pin';
import { SoftwarePasskey } from '@wallet-service/client';

/** The PIN enrolments use when a test does not name one (set for the user if they have none). */
export const ENROLMENT_PIN = '482913';

/**
 * Adds a passkey as an app does: creation options, the authenticator's response, and the user's PIN bound to that
 * enrolment (set first if the user has no PIN). Answers the passkey and the registration's answer body.
 */
export async function enrolPasskey(
  stack: Pick<TestStack, 'apiUrl'>,
  user: RegisteredUser,
  options: { passkey?: SoftwarePasskey; pin?: string; name?: string } = {},
): Promise<{ passkey: SoftwarePasskey; passkeyId: string }> {
  const passkey = options.passkey ?? new SoftwarePasskey();
  const pin = options.pin ?? ENROLMENT_PIN;
  await ensurePin(stack, user, pin);
  const headers = { authorization: `Bearer ${user.accessToken}` };
  const { body } = await call(`${stack.apiUrl}/v1/auth/passkeys/registration/options`, { method: 'POST', headers });
  const added = await call(`${stack.apiUrl}/v1/auth/passkeys`, {
    headers,
    json: {
      challengeId: body.challengeId,
      name: options.name ?? 'Test phone',
      credential: passkey.create(body.publicKey),
      pin: await encryptPin(stack, pin, { request: { action: 'passkey_enrol', challenge_id: body.challengeId } }),
    },
  });
  if (added.status !== 201)
    throw new Error(`passkey registration failed: ${added.status} ${JSON.stringify(added.body)}`);
  return { passkey, passkeyId: added.body.passkeyId };
}
