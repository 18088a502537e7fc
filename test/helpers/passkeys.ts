import type { TestStack } from './stack';
import type { Orm } from '../../db/orm';
import { PasskeyEntity } from '../../db/entities';
import { TEST_PIN, call, type RegisteredUser } from './http';
import { encryptPin, ensurePin } from './pin';
import { SoftwarePasskey } from '@wallet-service/client';

/** The PIN enrolments use when a test does not name one and the user has none (set for them then). */
export const ENROLMENT_PIN = TEST_PIN;

/**
 * Adds a passkey as an app does: creation options, the authenticator's response, and the user's PIN bound to that
 * enrolment (set first if the user has no PIN). Answers the passkey and the registration's answer body.
 */
export async function enrolPasskey(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'> & { orm?: Orm },
  user: RegisteredUser,
  options: { passkey?: SoftwarePasskey; pin?: string; name?: string; pastItsHold?: boolean } = {},
): Promise<{ passkey: SoftwarePasskey; passkeyId: string }> {
  const passkey = options.passkey ?? new SoftwarePasskey();
  const pin = options.pin ?? user.pin ?? ENROLMENT_PIN;
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
  if (options.pastItsHold) await passkeyPastItsHold(stack as { orm: Orm }, added.body.passkeyId);
  return { passkey, passkeyId: added.body.passkeyId };
}

/**
 * Makes a passkey one the person added days ago, past its new-passkey hold (what a test cannot wait for): until then
 * it approves no step-up, and a sign-in with it gives a held device.
 */
export async function passkeyPastItsHold(stack: { orm: Orm }, passkeyId: string): Promise<void> {
  const daysAgo = new Date(Date.now() - 3 * 24 * 3600 * 1000);
  await stack.orm.em.fork().nativeUpdate(PasskeyEntity, { passkeyId }, { createdAt: daysAgo });
}
