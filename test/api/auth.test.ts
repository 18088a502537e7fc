import { randomUUID, generateKeyPairSync } from 'node:crypto';
import { SignJWT, UnsecuredJWT, importJWK, type JWK } from 'jose';
import { testDatabases } from '../helpers/databases';
import { startTestStack, type TestStack } from '../helpers/stack';
import { call, registerUser, type RegisteredUser } from '../helpers/http';

describe('bearer tokens', () => {
  let stack: TestStack;
  let user: RegisteredUser;
  beforeAll(async () => {
    stack = await startTestStack(testDatabases()[0]!);
    user = await registerUser(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const profile = (token: string) =>
    call(`${stack.apiUrl}/v1/account/profile`, { headers: { authorization: `Bearer ${token}` } });
  const refresh = (refreshToken: string, deviceId = user.deviceId) =>
    call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': deviceId },
      json: { grantType: 'refresh_token', refreshToken },
    });
  const serviceKey = async () => {
    const jwk = JSON.parse(stack.config.JWT_PRIVATE_JWK) as JWK;
    return { key: await importJWK(jwk, 'ES256'), kid: jwk.kid! };
  };
  const claims = (overrides: { iss?: string; aud?: string; exp?: number } = {}) => ({
    iss: overrides.iss ?? stack.config.JWT_ISSUER,
    aud: overrides.aud ?? stack.config.JWT_AUDIENCE,
    exp: overrides.exp ?? Math.floor(Date.now() / 1000) + 300,
  });

  it('publishes the verification key as a JWKS without the private part', async () => {
    const jwks = await call(`${stack.apiUrl}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.body.keys[0].d).toBeUndefined();
  });

  it('answers 401 without a token, with a malformed header, or with alg none', async () => {
    expect((await call(`${stack.apiUrl}/v1/account/profile`)).status).toBe(401);
    expect((await call(`${stack.apiUrl}/v1/account/profile`, { headers: { authorization: 'Basic abc' } })).status).toBe(
      401,
    );
    const unsigned = new UnsecuredJWT({ did: user.deviceId })
      .setSubject(user.userId)
      .setIssuer(stack.config.JWT_ISSUER)
      .setAudience(stack.config.JWT_AUDIENCE)
      .setExpirationTime('5m')
      .encode();
    expect((await profile(`${unsigned}x`)).status).toBe(401);
    expect((await profile(unsigned.replace(/\.$/, '.e30'))).status).toBe(401);
  });

  it('answers 401 for a wrong issuer, audience, expiry, signing key, or a tampered token', async () => {
    const { key, kid } = await serviceKey();
    // The device session the service signed in (the token's sid): a token naming none is refused once the device has one.
    const { sid } = JSON.parse(Buffer.from(user.accessToken.split('.')[1]!, 'base64url').toString()) as { sid: string };
    expect(
      (
        await profile(
          await new SignJWT({ did: user.deviceId, ...claims() })
            .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
            .setSubject(user.userId)
            .sign(key),
        )
      ).status,
    ).toBe(401);
    const sign = (payload: Record<string, unknown>, signingKey = key) =>
      new SignJWT({ did: user.deviceId, sid, ...payload })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
        .setSubject(user.userId)
        .sign(signingKey);
    expect((await profile(await sign(claims()))).status).toBe(200);
    expect((await profile(await sign(claims({ iss: 'someone-else' })))).status).toBe(401);
    expect((await profile(await sign(claims({ aud: 'another-app' })))).status).toBe(401);
    expect((await profile(await sign(claims({ exp: Math.floor(Date.now() / 1000) - 10 })))).status).toBe(401);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect((await profile(await sign(claims(), privateKey))).status).toBe(401);
    const [header, payload, signature] = user.accessToken.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'usr_someone' }),
    ).toString('base64url');
    expect((await profile(`${header}.${forged}.${signature}`)).status).toBe(401);
    // Algorithm confusion: HS256 with the published public key as the HMAC secret.
    const publicJwk = (await call(`${stack.apiUrl}/.well-known/jwks.json`)).body.keys[0];
    const hmac = await new SignJWT({ did: user.deviceId, ...claims() })
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' })
      .setSubject(user.userId)
      .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    expect((await profile(hmac)).status).toBe(401);
    // A verified token is remembered, but never past its own expiry.
    const shortLived = await sign(claims({ exp: Math.floor(Date.now() / 1000) + 2 }));
    expect((await profile(shortLived)).status).toBe(200);
    expect((await profile(shortLived)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await profile(shortLived)).status).toBe(401);
  });

  it('rotates refresh tokens and revokes the chain when a rotated token is replayed', async () => {
    const fresh = await registerUser(stack);
    const first = await refresh(fresh.refreshToken, fresh.deviceId);
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(fresh.refreshToken);
    expect((await profile(first.body.accessToken)).status).toBe(200);
    const replay = await refresh(fresh.refreshToken, fresh.deviceId);
    expect(replay.status).toBe(401);
    // The replay revoked the whole chain, including the newest token.
    expect((await refresh(first.body.refreshToken, fresh.deviceId)).status).toBe(401);
  });

  it('binds refresh tokens to the device', async () => {
    const fresh = await registerUser(stack);
    expect((await refresh(fresh.refreshToken, randomUUID())).status).toBe(401);
  });

  it('issues tokens only for a completed registration, to the device that made it', async () => {
    const other = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': randomUUID(), 'x-pass-token': user.passToken },
      json: { grantType: 'registration', regId: user.regId },
    });
    expect(other.status).toBe(403);
    const noPass = await call(`${stack.apiUrl}/v1/auth/token`, {
      headers: { 'x-device-id': user.deviceId },
      json: { grantType: 'registration', regId: user.regId },
    });
    expect(noPass.status).toBe(401); // the pass token is this grant's credential
  });

  it('validates basic info: bad nationality and missing names get 400 in the /api/v1 error envelope', async () => {
    const result = await call(`${stack.apiUrl}/api/v1/kyc/basic-info`, {
      headers: { authorization: `Bearer ${user.accessToken}` },
      json: { full_name: '홍길동', nationality: 'Korea' },
    });
    expect(result.status).toBe(400);
    expect(result.body.status).toBe('error');
    expect(result.body.error.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'body', pointer: '/eng_surname' }),
        expect.objectContaining({ in: 'body', pointer: '/nationality' }),
      ]),
    );
  });
});
