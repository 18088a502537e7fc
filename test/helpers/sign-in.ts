import { randomUUID } from 'node:crypto';
import { makeIdCardPng, type CardText } from '../../sandbox/id-card-image';
import type { TestStack } from './stack';
import { call, cardOf, verifyIdentity, type HttpResult, type Person, type RegisteredUser } from './http';

/** A device the person signs in on: its own X-Device-Id, and the pass token of a new identity verification. */
export interface NewDevice {
  deviceId: string;
  passToken: string;
  passRequestId: string;
}

/** Waits until the identity provider's callback for a verification was acknowledged by the API. */
export async function callbackDelivered(stack: Pick<TestStack, 'sandboxUrl'>, passRequestId: string): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if ((await call(`${stack.sandboxUrl}/pass/v1/verifications/${passRequestId}`)).body.acknowledged) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the identity callback for ${passRequestId} was never acknowledged`);
}

/** The person verifies again on a new phone (a new number: the CI is the person's, not the phone's). */
export async function verifyOnNewDevice(
  stack: Pick<TestStack, 'sandboxUrl'>,
  person: Person,
  phone = `010${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
): Promise<NewDevice> {
  const { passToken, passRequestId } = await verifyIdentity(stack, { ...person, phone });
  await callbackDelivered(stack, passRequestId);
  return { deviceId: randomUUID(), passToken, passRequestId };
}

export const startSignIn = (
  stack: Pick<TestStack, 'apiUrl'>,
  device: NewDevice,
  deviceLabel = 'New phone',
): Promise<HttpResult> =>
  call(`${stack.apiUrl}/v1/auth/sign-in`, {
    headers: { 'idempotency-key': randomUUID(), 'x-device-id': device.deviceId },
    json: { passToken: device.passToken, deviceLabel },
  });

export const idCardProof = (
  stack: Pick<TestStack, 'apiUrl'>,
  device: NewDevice,
  signInId: string,
  card: CardText,
  idCardType = 'resident_id',
): Promise<HttpResult> => {
  const form = new FormData();
  form.set('idCardType', idCardType);
  form.set('idCardImage', new Blob([makeIdCardPng(card)], { type: 'image/png' }), 'card.png');
  return call(`${stack.apiUrl}/v1/auth/sign-in/${signInId}/id-card`, {
    headers: { 'idempotency-key': randomUUID(), 'x-pass-token': device.passToken },
    form,
  });
};

export const signInTokens = (
  stack: Pick<TestStack, 'apiUrl'>,
  device: NewDevice,
  signInId: string,
): Promise<HttpResult> =>
  call(`${stack.apiUrl}/v1/auth/token`, {
    headers: { 'x-device-id': device.deviceId, 'x-pass-token': device.passToken },
    json: { grantType: 'sign_in', signInId },
  });

/** The whole sign-in on a new device with the person's own ID card: the new device as a RegisteredUser. */
export async function signInWithIdCard(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'>,
  user: RegisteredUser,
): Promise<RegisteredUser & { signInId: string }> {
  const device = await verifyOnNewDevice(stack, user.person);
  const started = await startSignIn(stack, device);
  if (started.status !== 201)
    throw new Error(`sign-in start answered ${started.status}: ${JSON.stringify(started.body)}`);
  const proved = await idCardProof(stack, device, started.body.signInId, cardOf(user.person));
  if (proved.status !== 200) throw new Error(`ID-card proof answered ${proved.status}: ${JSON.stringify(proved.body)}`);
  const tokens = await signInTokens(stack, device, started.body.signInId);
  if (tokens.status !== 200) throw new Error(`sign-in token answered ${tokens.status}: ${JSON.stringify(tokens.body)}`);
  return {
    ...user,
    deviceId: device.deviceId,
    passToken: device.passToken,
    accessToken: tokens.body.accessToken,
    refreshToken: tokens.body.refreshToken,
    signInId: started.body.signInId,
  };
}
