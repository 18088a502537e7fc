import { randomUUID } from 'node:crypto';
import type { TestStack } from './stack';
import { call, cardOf, type HttpResult, type RegisteredUser } from './http';
import { verifyOnNewDevice } from './sign-in';
import { makeIdCardPng, type CardText } from '../../sandbox/id-card-image';

const bearerOf = (user: { accessToken: string }) => ({ authorization: `Bearer ${user.accessToken}` });

/** Starts a step-up identity check for `request` with a verification the person just did (its callback delivered). */
export async function startIdentityCheck(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  request: Record<string, string | null>,
  passToken?: string,
): Promise<HttpResult> {
  const token = passToken ?? (await verifyOnNewDevice(stack, user.person, user.person.phone)).passToken;
  return call(`${stack.apiUrl}/v1/auth/identity-checks`, {
    headers: { ...bearerOf(user), 'idempotency-key': randomUUID() },
    json: { passToken: token, request },
  });
}

/** Proves an identity check with an ID card (the person's own unless `card` says another). */
export function proveIdentityCheck(
  stack: Pick<TestStack, 'apiUrl'>,
  user: RegisteredUser,
  identityCheckId: string,
  card: CardText = cardOf(user.person),
): Promise<HttpResult> {
  const form = new FormData();
  form.set('idCardType', 'resident_id');
  form.set('idCardImage', new Blob([makeIdCardPng(card)], { type: 'image/png' }), 'card.png');
  return call(`${stack.apiUrl}/v1/auth/identity-checks/${identityCheckId}/id-card`, {
    headers: { ...bearerOf(user), 'idempotency-key': randomUUID() },
    form,
  });
}

/**
 * A verified identity check approving `request`, as an app gets one: the person verifies again with the identity
 * provider, the app starts the check, and shows the ID card when the request needs it. Answers its id.
 */
export async function verifiedIdentityCheck(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
  request: Record<string, string | null>,
): Promise<string> {
  const started = await startIdentityCheck(stack, user, request);
  if (started.status !== 201)
    throw new Error(`identity check answered ${started.status}: ${JSON.stringify(started.body)}`);
  if (started.body.status === 'verified') return started.body.identityCheckId;
  const proved = await proveIdentityCheck(stack, user, started.body.identityCheckId);
  if (proved.status !== 200 || proved.body.status !== 'verified')
    throw new Error(`identity check's ID card answered ${proved.status}: ${JSON.stringify(proved.body)}`);
  return started.body.identityCheckId;
}
