import { verifyInNiceWindow } from '../../sandbox/nice-person';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createWalletClient, idempotencyKey } from '@wallet-service/client';
import { makeIdCardPng } from '../../sandbox/id-card-image';
import type { TestStack } from './stack';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = any>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: FormData; raw?: string } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | FormData | undefined;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  }
  if (init.raw !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = init.raw;
  }
  if (init.form) body = init.form;
  const response = await fetch(url, { method: init.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, body: parsed as T, headers: response.headers };
}

/**
 * A person: `residentNumber` is who they are (13 digits, the first six their birth date): the identity provider derives
 * the CI from it (not from the phone), and their resident card shows it with `cardIssueDate`.
 */
export interface Person {
  name: string;
  birthDate: string;
  phone: string;
  residentNumber: string;
  cardIssueDate: string;
}
let counter = 0;
/** A resident number for a birth date: YYMMDD, a gender digit, six random digits. */
export const residentNumberFor = (birthDate: string): string =>
  `${birthDate.replace(/-/g, '').slice(2)}1${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
/** A distinct person each call (CI differs), so registrations never collide on identity. */
export const newPerson = (): Person => {
  counter += 1;
  const birthDate = '1990-01-15';
  return {
    name: `홍길동${counter}${randomUUID().slice(0, 4)}`,
    birthDate,
    phone: `010${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    residentNumber: residentNumberFor(birthDate),
    cardIssueDate: '2019-06-03',
  };
};

/** What the person's resident card says (the sandbox OCR reads it from the image). */
export const cardOf = (person: Person) => ({
  name: person.name,
  birthDate: person.birthDate,
  idNumber: person.residentNumber,
  issueDate: person.cardIssueDate,
});

/** An app's PKCE pair (RFC 7636, S256) for a verification it opens in NICE's window. */
export const newPkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

/**
 * Plays the user in the identity provider's UI. IDENTITY_PROVIDER=callback (the tests' default): creates a
 * verification in the provider's app, which then calls our callback. nice: the app opens a verification (POST
 * /v1/auth/pass/requests) and the person verifies in NICE's window, which sends the browser back to the service.
 */
export async function verifyIdentity(
  stack: Pick<TestStack, 'sandboxUrl'> & Partial<Pick<TestStack, 'apiUrl' | 'config'>>,
  person: Person,
  extra: Record<string, unknown> = {},
): Promise<{ passRequestId: string; passToken: string; expiresAt: string }> {
  const { name, birthDate, phone, residentNumber } = person;
  if (stack.config?.IDENTITY_PROVIDER === 'nice') {
    const pkce = newPkce();
    const opened = await call(`${stack.apiUrl}/v1/auth/pass/requests`, {
      json: { codeChallenge: pkce.challenge, codeChallengeMethod: 'S256' },
    });
    if (opened.status !== 201)
      throw new Error(`opening a verification failed: ${opened.status} ${JSON.stringify(opened.body)}`);
    const back = await verifyInNiceWindow(opened.body.window, {
      name,
      birthDate,
      phone,
      residentNumber,
      outcome: extra.outcome === 'failure' ? 'failure' : 'success',
    });
    if (!back.code) throw new Error(`NICE's return answered ${back.status}: ${back.page}`);
    const issued = await call(`${stack.apiUrl}/v1/auth/pass/requests/${opened.body.passRequestId}/token`, {
      json: { code: back.code, codeVerifier: pkce.verifier },
    });
    if (issued.status !== 201)
      throw new Error(`the pass token was refused: ${issued.status} ${JSON.stringify(issued.body)}`);
    return {
      passRequestId: opened.body.passRequestId,
      passToken: issued.body.passToken,
      expiresAt: issued.body.expiresAt,
    };
  }
  const result = await call(`${stack.sandboxUrl}/pass/v1/verifications`, {
    json: { name, birthDate, phone, residentNumber, ...extra },
  });
  if (result.status !== 201) throw new Error(`sandbox verification failed: ${result.status}`);
  return result.body;
}

export const idCardForm = (
  person: Person,
  idCardType = 'resident_id',
  image = makeIdCardPng(cardOf(person)),
): FormData => {
  const form = new FormData();
  form.set('idCardType', idCardType);
  form.set('idCardImage', new Blob([image], { type: 'image/png' }), 'card.png');
  return form;
};

export const backupBody = () => ({
  encryptedMnemonic: Buffer.from(`cipher-${randomUUID()}`).toString('base64'),
  encryptedDerivationPaths: Buffer.from("m/44'/60'/0'/0/0").toString('base64'),
  encryptionMethod: 'AES-256-GCM',
});

/** The PIN a registered user of the tests has, unless the test registered them with another or none. */
export const TEST_PIN = '482915';

export interface RegisteredUser {
  person: Person;
  /** The PIN set at registration (POST /v1/account/register/{regId}/pin), or null: a user who set none. */
  pin: string | null;
  deviceId: string;
  passToken: string;
  regId: string;
  accessToken: string;
  refreshToken: string;
  userId: string;
  /** The encrypted wallet backup sent at registration. */
  backup: ReturnType<typeof backupBody>;
}

/** The client's answer, or the step's failure with what the service said. */
const ensure = <T>(answer: { data?: T; error?: unknown; response: Response }, status: number, step: string): T => {
  if (answer.response.status !== status || answer.data === undefined) {
    throw new Error(
      `registration ${step} answered ${answer.response.status}, not ${status}: ${JSON.stringify(answer.error)}`,
    );
  }
  return answer.data;
};

/** A registration driven through its last step (backup), before any PIN or token. */
export type CompletedRegistration = Pick<RegisteredUser, 'person' | 'deviceId' | 'passToken' | 'regId' | 'backup'>;

/**
 * Drives a whole registration as an app does, through the typed client (clients/typescript), checking each step's
 * status; sets the PIN within the registration (TEST_PIN unless `pin` says another, or null for none), then returns
 * the tokens. (Used by most suites and the benchmarks: a change that breaks the client breaks them.)
 */
export async function registerUser(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'> & Partial<Pick<TestStack, 'config'>>,
  person = newPerson(),
  options: { pin?: string | null } = {},
): Promise<RegisteredUser> {
  const pin = options.pin === undefined ? TEST_PIN : options.pin;
  const api = createWalletClient({ baseUrl: stack.apiUrl });
  const { deviceId, passToken, regId, backup } = await completeRegistration(stack, person);
  if (pin)
    ensure(
      await api.POST('/v1/account/register/{regId}/pin', {
        params: { path: { regId }, header: { 'x-pass-token': passToken } },
        body: { pin: await api.pin.encrypt(pin) },
      }),
      201,
      'PIN',
    );
  const token = ensure(
    await api.POST('/v1/auth/token', {
      params: { header: { 'x-device-id': deviceId, 'x-pass-token': passToken } },
      body: { grantType: 'registration', regId },
    }),
    200,
    'token',
  );
  return {
    person,
    pin,
    deviceId,
    passToken,
    regId,
    accessToken: token.accessToken,
    refreshToken: token.refreshToken!,
    userId: token.userId!,
    backup,
  };
}

/** The registration's steps (identity verification, eKYC, backup) through the typed client, without a PIN or token. */
export async function completeRegistration(
  stack: Pick<TestStack, 'apiUrl' | 'sandboxUrl'> & Partial<Pick<TestStack, 'config'>>,
  person = newPerson(),
): Promise<CompletedRegistration> {
  const api = createWalletClient({ baseUrl: stack.apiUrl });
  const deviceId = randomUUID();
  const { passToken } = await verifyIdentity(stack, person);
  const { regId } = ensure(
    await api.POST('/v1/account/register', {
      params: { header: { 'idempotency-key': idempotencyKey(), 'x-device-id': deviceId } },
      body: { passToken },
    }),
    201,
    'start',
  );
  const step = { path: { regId }, header: { 'x-pass-token': passToken } };
  ensure(
    await api.POST('/v1/account/register/{regId}/ekyc', {
      params: { ...step, header: { ...step.header, 'idempotency-key': idempotencyKey() } },
      // The image as multipart/form-data, as a phone uploads it (openapi-fetch sends FormData as it is).
      body: idCardForm(person) as never,
      bodySerializer: (form) => form,
    }),
    200,
    'eKYC',
  );
  const backupSent = backupBody();
  ensure(
    await api.POST('/v1/account/register/{regId}/backup', {
      params: { ...step, header: { ...step.header, 'idempotency-key': idempotencyKey() } },
      body: backupSent,
    }),
    200,
    'backup',
  );
  return { person, deviceId, passToken, regId, backup: backupSent };
}
