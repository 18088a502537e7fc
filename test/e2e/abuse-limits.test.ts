import { randomUUID } from 'node:crypto';
import { SignJWT, importJWK, type JWK } from 'jose';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, idCardForm, newPerson, registerUser, verifyIdentity, type RegisteredUser } from '../helpers/http';
import { freePort } from '../helpers/global-setup';
import { runServiceProcess, waitFor, type ServiceProcess } from '../helpers/processes';
import { pinChangeBody, transferPin } from '../helpers/pin';
import { UserEntity } from '../../db/entities';
import { encryptPin } from '../helpers/pin';

const LIMITS = {
  'exchange-quote': { points: 5, seconds: 60 },
  'registration-start-device': { points: 3, seconds: 3600 },
  'bank-send-won': { points: 2, seconds: 3600 },
  'pin-attempt': { points: 4, seconds: 300 },
  'pass-callback': { points: 5, seconds: 60 },
  'failed-credentials': { points: 9, seconds: 60 },
  'registration-upload': { points: 2, seconds: 3600 },
  'email-send': { points: 2, seconds: 3600 },
  'sign-in-device': { points: 3, seconds: 3600 },
  'webauthn-challenge': { points: 3, seconds: 60 },
};

/**
 * Abuse limits - on PostgreSQL shared by two API processes on one database (SQLite is the one-process embedded mode)
 * - and the size limits and headers of every route.
 */
describe.each(testDatabases())('abuse limits on $name', (kind) => {
  let stack: TestStack;
  let other: ServiceProcess | undefined;
  let otherUrl: string;
  let user: RegisteredUser;
  beforeAll(async () => {
    stack = await startTestStack(kind, {
      env: { RATE_LIMITS: JSON.stringify(LIMITS), CORS_ORIGINS: 'https://app.example', TRUST_PROXY: 'true' },
    });
    otherUrl = stack.apiUrl;
    if (kind.name === 'postgresql') {
      const port = await freePort();
      otherUrl = `http://127.0.0.1:${port}`;
      const second = runServiceProcess('api/main.ts', stack.apiProcessEnv(port));
      other = second;
      await waitFor(
        async () => (await fetch(`${otherUrl}/healthz`).catch(() => undefined))?.ok === true,
        60_000,
        'second API process',
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${second.output()}`);
      });
    }
    user = await registerUser(stack);
  });
  afterAll(async () => {
    other?.child.kill('SIGTERM');
    await other?.exited;
    await stack?.stop();
  });

  /** Alternates between the in-process API and the separate API process. */
  const apiFor = (i: number) => (i % 2 === 0 ? stack.apiUrl : otherUrl);
  const bearer = (u: RegisteredUser) => ({ authorization: `Bearer ${u.accessToken}` });
  const statuses = async (count: number, send: (base: string, i: number) => Promise<{ status: number }>) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i += 1) seen.push((await send(apiFor(i), i)).status);
    return seen;
  };

  it('limits quotes per user (across both API processes on PostgreSQL), with Retry-After, and leaves other users alone', async () => {
    const quote = (base: string, u = user) =>
      call(`${base}/v1/exchange/quote`, {
        method: 'POST',
        headers: bearer(u),
        json: { source: 'ETH', target: 'USDT', networkId: 'ETHEREUM', direction: 'exactInput', amount: '1' },
      });
    // Each answer tells the route's limit and what is left of it, counted across both processes (RateLimit fields,
    // draft-ietf-httpapi-ratelimit-headers-11), so a client can slow down before it is refused.
    const answers: Array<{ status: number; policy: string | null; left: string | null }> = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await quote(apiFor(i));
      answers.push({
        status: answer.status,
        policy: answer.headers.get('ratelimit-policy'),
        left: answer.headers.get('ratelimit')?.replace(/;t=\d+$/, '') ?? null,
      });
    }
    // This stack runs no chains, so ETHEREUM has no exchange here (404): the limit counts every request all the same.
    expect(answers).toEqual(
      [4, 3, 2, 1, 0].map((left) => ({
        status: 404,
        policy: '"exchange-quote";q=5;w=60',
        left: `"exchange-quote";r=${left}`,
      })),
    );
    const limited = await quote(otherUrl);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // Refused: nothing left until the window ends, which is when Retry-After says to come back.
    expect(limited.headers.get('ratelimit')).toBe(`"exchange-quote";r=0;t=${limited.headers.get('retry-after')}`);
    expect(limited.headers.get('ratelimit-policy')).toBe('"exchange-quote";q=5;w=60');
    expect(limited.body).toMatchObject({
      type: '/problems/rate-limited',
      status: 429,
      detail: expect.stringContaining('exchange-quote'),
    });
    expect((await quote(stack.apiUrl)).status).toBe(429);
    expect((await quote(stack.apiUrl, await registerUser(stack))).status).toBe(404); // another user is not limited (no exchange on this chain-less stack)
  });

  it('limits registration and sign-in starts per device, 1-KRW sends per user, PIN-bearing requests per user and identity callbacks', async () => {
    const deviceId = randomUUID();
    const start = (base: string) =>
      call(`${base}/v1/account/register`, {
        method: 'POST',
        headers: { 'x-device-id': deviceId, 'idempotency-key': randomUUID() },
        json: { passToken: `bogus-${randomUUID()}` },
      });
    const starts = await statuses(4, start);
    expect(starts.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(starts[3]).toBe(429);

    // Sign-in starts on a new device share the same kind of budget, per device, across processes.
    const signInDevice = randomUUID();
    const signIn = (base: string) =>
      call(`${base}/v1/auth/sign-in`, {
        method: 'POST',
        headers: { 'x-device-id': signInDevice, 'idempotency-key': randomUUID() },
        json: { passToken: `bogus-${randomUUID()}` },
      });
    const signIns = await statuses(4, signIn);
    expect(signIns.slice(0, 3).every((s) => s !== 429)).toBe(true);
    expect(signIns[3]).toBe(429);

    const sendWon = (base: string) =>
      call(`${base}/api/v1/bank/send-won`, {
        method: 'POST',
        headers: bearer(user),
        json: { bank_code: '004', account_no: '12345678901' },
      });
    const sends = await statuses(3, sendWon);
    expect(sends.slice(0, 2).every((s) => s !== 429)).toBe(true);
    expect(sends[2]).toBe(429);

    // A transfer and a PIN change both carry the PIN; together they share one budget.
    const sample = {
      to_address: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
      network: 'ETHEREUM',
      token: 'ETH',
      amount: '0.1',
    };
    const pinned = async (base: string, i: number) =>
      i % 2 === 0
        ? call(`${base}/api/v1/transfer/crypto/execute`, {
            method: 'POST',
            headers: bearer(user),
            json: { ...sample, pin: await transferPin(stack, '135790', sample) },
          })
        : call(`${base}/api/v1/pin`, {
            method: 'PUT',
            headers: bearer(user),
            json: await pinChangeBody(stack, '135790', '246810'),
          });
    const pins = await statuses(5, pinned);
    expect(pins.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(pins[4]).toBe(429);

    // Behind the proxy (TRUST_PROXY) the caller is the X-Forwarded-For address: this one has not called before.
    const callback = (base: string) =>
      call(`${base}/v1/auth/pass/callback`, {
        method: 'POST',
        headers: { 'x-api-key': stack.config.PASS_CALLBACK_API_KEY, 'x-forwarded-for': '203.0.113.7' },
        json: { passRequestId: `unknown-${randomUUID()}`, success: false },
      });
    const callbacks = await statuses(6, callback);
    expect(callbacks.slice(0, 5).every((s) => s !== 429)).toBe(true);
    expect(callbacks[5]).toBe(429);
    const elsewhere = await call(`${otherUrl}/v1/auth/pass/callback`, {
      method: 'POST',
      headers: { 'x-api-key': stack.config.PASS_CALLBACK_API_KEY, 'x-forwarded-for': '203.0.113.8' },
      json: { passRequestId: `unknown-${randomUUID()}`, success: false },
    });
    expect(elsewhere.status).not.toBe(429);
  });

  it('counts wrong credentials per address (bearer token, API key, webhook signature) across processes, then refuses the address', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const webhook = JSON.stringify({
      event: 'withdrawal.settled',
      reference: `chg_${randomUUID()}`,
      withdrawalId: 'wd_1',
      status: 'completed',
      reason: null,
    });
    const wrong = [
      (base: string) =>
        call(`${base}/v1/account/profile`, {
          headers: { ...from('198.51.100.1'), authorization: 'Bearer e30.e30.forged' },
        }),
      (base: string) =>
        call(`${base}/v1/auth/pass/callback`, {
          method: 'POST',
          headers: { ...from('198.51.100.1'), 'x-api-key': 'guessed' },
          json: { passRequestId: `unknown-${randomUUID()}`, success: false },
        }),
      (base: string) =>
        call(`${base}/api/v1/bank/webhooks/withdrawals`, {
          headers: { ...from('198.51.100.1'), 'x-bank-signature': `sha256=${'0'.repeat(64)}` },
          raw: webhook,
        }),
    ];
    const guesses: Array<{ status: number; fields: Array<string | null> }> = [];
    for (let i = 0; i < 9; i += 1) {
      const answer = await wrong[i % 3]!(apiFor(i));
      guesses.push({
        status: answer.status,
        fields: [answer.headers.get('ratelimit'), answer.headers.get('ratelimit-policy')],
      });
    }
    // No answer tells a guesser how many guesses are left (no RateLimit fields for the failed-credential budget).
    expect(guesses).toEqual(Array(9).fill({ status: 401, fields: [null, null] }));
    // Over the limit, every further wrong credential from the address is refused (429), on either process...
    for (const base of [stack.apiUrl, otherUrl]) {
      for (const attempt of wrong) {
        const refused = await attempt(base);
        expect(refused.status).toBe(429);
        expect(JSON.stringify(refused.body)).toContain('failed-credentials');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect([refused.headers.get('ratelimit'), refused.headers.get('ratelimit-policy')]).toEqual([null, null]);
      }
    }
    // ...but a user behind the same address (a carrier's NAT) with a valid token is served: others' guesses lock out
    // no one but the guesser (issue 24, point 7; before, this answered 429 for the whole window).
    for (const base of [stack.apiUrl, otherUrl]) {
      expect(
        (await call(`${base}/v1/account/profile`, { headers: { ...from('198.51.100.1'), ...bearer(user) } })).status,
      ).toBe(200);
      expect(
        (
          await call(`${base}/v1/auth/pass/callback`, {
            method: 'POST',
            headers: { ...from('198.51.100.1'), 'x-api-key': stack.config.PASS_CALLBACK_API_KEY },
            json: { passRequestId: `unknown-${randomUUID()}`, success: false },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(`${base}/v1/account/profile`, {
            headers: { ...from('198.51.100.1'), authorization: 'Bearer e30.e30.forged' },
          })
        ).status,
      ).toBe(429);
    }
    expect(
      (await call(`${stack.apiUrl}/v1/account/profile`, { headers: { ...from('198.51.100.2'), ...bearer(user) } }))
        .status,
    ).toBe(200);
    // Routes that read no credential (health, documents, public keys) still answer the refused address: a health check
    // through the proxy is never taken down by one client's guessing, and they skip the database read of the check.
    for (const path of ['/healthz', '/openapi.json', '/.well-known/jwks.json'])
      expect((await call(`${stack.apiUrl}${path}`, { headers: from('198.51.100.1') })).status).toBe(200);
    // A missing credential is not a wrong one.
    expect(await statuses(12, (base) => call(`${base}/v1/account/profile`, { headers: from('198.51.100.3') }))).toEqual(
      Array(12).fill(401),
    );
    // Nor is one of our own tokens that expired (an app that slept past the 15 minutes): told apart, never counted.
    const jwk = JSON.parse(stack.config.JWT_PRIVATE_JWK) as JWK;
    const expired = await new SignJWT({ did: user.deviceId })
      .setProtectedHeader({ alg: 'ES256', kid: jwk.kid, typ: 'at+jwt' })
      .setSubject(user.userId)
      .setIssuer(stack.config.JWT_ISSUER)
      .setAudience(stack.config.JWT_AUDIENCE)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 1000)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 100)
      .sign(await importJWK(jwk, 'ES256'));
    const answers = [];
    for (let i = 0; i < 12; i += 1)
      answers.push(
        await call(`${apiFor(i)}/v1/account/profile`, {
          headers: { ...from('198.51.100.5'), authorization: `Bearer ${expired}` },
        }),
      );
    expect(answers.map((a) => [a.status, a.body.type])).toEqual(Array(12).fill([401, '/problems/token-expired']));
    expect(
      (await call(`${stack.apiUrl}/v1/account/profile`, { headers: { ...from('198.51.100.5'), ...bearer(user) } }))
        .status,
    ).toBe(200);
    // Nor is the valid token of a user who was suspended: refused every time, never counted.
    const suspended = await registerUser(stack);
    await stack.orm.em.fork().nativeUpdate(UserEntity, { id: suspended.userId }, { status: 'suspended' });
    expect(
      await statuses(12, (base) =>
        call(`${base}/v1/account/profile`, { headers: { ...from('198.51.100.4'), ...bearer(suspended) } }),
      ),
    ).toEqual(Array(12).fill(401));
  });

  it('an address refused on one process is refused by the other after at most one more wrong credential, or within a second', async () => {
    if (kind.name !== 'postgresql') return; // one process only in the embedded mode
    const from = (address: string) => ({ 'x-forwarded-for': address });
    const forged = { authorization: 'Bearer e30.e30.forged' };
    const profile = (base: string, address: string, headers: Record<string, string>) =>
      call(`${base}/v1/account/profile`, { headers: { ...from(address), ...headers } });
    // Each process keeps "under the limit" answers for a second. Make this process hold one for each address.
    for (const address of ['198.51.100.21', '198.51.100.22'])
      expect((await profile(stack.apiUrl, address, forged)).status).toBe(401);
    // Both addresses go over the limit on the other process only.
    for (const address of ['198.51.100.21', '198.51.100.22']) {
      for (let i = 0; i < 8; i += 1) expect((await profile(otherUrl, address, forged)).status).toBe(401);
      expect((await profile(otherUrl, address, forged)).status).toBe(429);
    }
    // A guess on this process is counted in the shared store, which answers the total: the next guess is refused.
    const guess = await profile(stack.apiUrl, '198.51.100.21', forged);
    expect([401, 429]).toContain(guess.status);
    expect((await profile(stack.apiUrl, '198.51.100.21', forged)).status).toBe(429);
    // The valid token behind the refused address is served on both processes.
    expect((await profile(stack.apiUrl, '198.51.100.21', bearer(user))).status).toBe(200);
    // Without a guess here, the kept answer expires within a second and the shared store refuses the address.
    await new Promise((r) => setTimeout(r, 1100));
    const refused = await profile(stack.apiUrl, '198.51.100.22', forged);
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toContain('failed-credentials');
  });

  it('limits WebAuthn challenges per user (registration and approval options alike, each a stored row), across both API processes', async () => {
    // (The suite's user, whose challenges nothing else asks for: no new user, as the identity callbacks are limited.)
    const registration = (base: string) =>
      call(`${base}/v1/auth/passkeys/registration/options`, { method: 'POST', headers: bearer(user) });
    const approval = (base: string) =>
      call(`${base}/v1/auth/passkeys/approvals/options`, {
        headers: bearer(user),
        json: { request: { action: 'account_close' } },
      });
    // Two registrations and an approval (409: no passkey yet, still a request that counts) spend the three.
    const seen = await statuses(3, (base, i) => (i === 2 ? approval(base) : registration(base)));
    expect(seen).toEqual([200, 200, 409]);
    const over = [await registration(stack.apiUrl), await approval(otherUrl)];
    expect(over.map((r) => r.status)).toEqual([429, 429]);
    expect(Number(over[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits email codes per user (each mails an address the user names), across both API processes', async () => {
    // (No new user here: the sandbox's identity callbacks all come from one address, limited to 5 a minute above.)
    const send = async (base: string) => {
      const email = `limit.${randomUUID().slice(0, 8)}@example.com`;
      return call(`${base}/v1/account/email`, {
        headers: bearer(user),
        json: { email, pin: await encryptPin(stack, user.pin!, { request: { action: 'email_change', email } }) },
      });
    };
    const seen = await statuses(3, send);
    expect(seen).toEqual([200, 200, 429]);
  });

  it('limits ID-card uploads per registration, before the image is read', async () => {
    const person = newPerson();
    const { passToken } = await verifyIdentity(stack, person);
    const started = await call(`${stack.apiUrl}/v1/account/register`, {
      headers: { 'idempotency-key': randomUUID(), 'x-device-id': randomUUID() },
      json: { passToken },
    });
    const upload = (base: string) => {
      const form = idCardForm(person);
      form.delete('idCardType');
      return call(`${base}/v1/account/register/${started.body.regId}/uploads`, {
        headers: { 'x-pass-token': passToken },
        form,
      });
    };
    expect(await statuses(3, upload)).toEqual([201, 201, 429]);
  });

  it('refuses oversized bodies and headers, and sends security headers and CORS only for configured origins', async () => {
    // A user who has not used their quote budget: limits are counted before the body is read.
    const big = await call(`${stack.apiUrl}/v1/exchange/quote`, {
      method: 'POST',
      headers: bearer(await registerUser(stack)),
      raw: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }),
    });
    expect(big.status).toBe(413);
    const hugeHeader = await fetch(`${stack.apiUrl}/healthz`, { headers: { 'x-padding': 'x'.repeat(32 * 1024) } });
    expect(hugeHeader.status).toBe(431);

    const answer = await fetch(`${stack.apiUrl}/v1/account/profile`, { headers: bearer(user) });
    expect(
      Object.fromEntries(
        ['x-content-type-options', 'x-frame-options', 'referrer-policy', 'cache-control'].map((h) => [
          h,
          answer.headers.get(h),
        ]),
      ),
    ).toEqual({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
    const preflight = (origin: string) =>
      fetch(`${stack.apiUrl}/v1/account/profile`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
      });
    expect((await preflight('https://app.example')).headers.get('access-control-allow-origin')).toBe(
      'https://app.example',
    );
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();
    expect(
      (await fetch(`${stack.apiUrl}/healthz`, { headers: { origin: 'https://evil.example' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBeNull();
    // The second process runs with the same configuration and shows the same.
    expect(
      (await fetch(`${otherUrl}/healthz`, { headers: { origin: 'https://evil.example' } })).headers.get(
        'access-control-allow-origin',
      ),
    ).toBeNull();
  });
});
