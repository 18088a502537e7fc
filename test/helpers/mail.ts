import type { TestStack } from './stack';
import { call, type RegisteredUser } from './http';
import { encryptPin } from './pin';
import { verifiedIdentityCheck } from './identity-checks';

export interface DeliveredMail {
  subject: string;
  text: string;
}

/** What the sandbox's mail provider delivered to an address, newest first. */
export const inbox = async (stack: Pick<TestStack, 'sandboxUrl'>, email: string): Promise<DeliveredMail[]> =>
  (await call(`${stack.sandboxUrl}/mail/v1/_inbox/${encodeURIComponent(email)}`)).body.messages;

/**
 * Verifies `email` for the user as the app would: approved by the user's PIN (or, without one, a fresh identity
 * check), the code mailed through the provider, sent back. Answers the confirmation's body.
 */
export async function verifyEmail(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  email: string,
): Promise<{ verified: boolean; email: string }> {
  const headers = { authorization: `Bearer ${user.accessToken}` };
  const request = { action: 'email_change', email };
  const proof = user.pin
    ? { pin: await encryptPin(stack, user.pin, { request }) }
    : { identityCheckId: await verifiedIdentityCheck(stack, user, request) };
  const started = await call(`${stack.apiUrl}/v1/account/email`, { headers, json: { email, ...proof } });
  if (started.status !== 200)
    throw new Error(`email verification failed: ${started.status} ${JSON.stringify(started.body)}`);
  const code = /code is (\d{6})/.exec((await inbox(stack, email))[0]!.text)![1]!;
  const confirmed = await call(`${stack.apiUrl}/v1/account/email/confirm`, {
    headers,
    json: { verificationId: started.body.verificationId, code },
  });
  if (confirmed.status !== 200)
    throw new Error(`email confirmation failed: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
  return confirmed.body;
}
