import { randomBytes, randomUUID, createHash, timingSafeEqual } from 'node:crypto';
import { SignJWT, errors, exportJWK, importJWK, jwtVerify, type JWK, type KeyLike } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Orm } from '../../db/orm';
import { DeviceEntity, RefreshTokenEntity } from '../../db/entities';
import { problems } from '../http/problems';
import { LEGACY_SESSION, assertActive } from '../common/active-user';
import type { AuthenticatedUser } from '../http/route-table';

const ALGORITHM = 'ES256';
const OPERATOR_SESSION_TYPE = 'operator+jwt';

export interface TokenSettings {
  privateJwk: string;
  issuer: string;
  audience: string;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}
export interface IssuedTokens {
  tokenType: 'Bearer';
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshTokenExpiresIn: number;
  userId: string;
}

/**
 * Access tokens: ES256 JWTs signed with the service key (published as JWKS), verified with an algorithm allow-list,
 * issuer, audience and expiry. Refresh tokens: random, stored hashed, bound to the device, rotated on every use;
 * presenting a rotated one again revokes its whole family (token theft detection).
 */
export class TokenService {
  private constructor(
    private readonly settings: TokenSettings,
    private readonly kid: string,
    private readonly privateKey: KeyLike | Uint8Array,
    private readonly publicKey: KeyLike | Uint8Array,
    readonly publicJwk: JWK,
  ) {}

  private readonly verified = new LRUCache<string, { user: AuthenticatedUser; expiresAt: number }>({ max: 20_000 });

  static async create(settings: TokenSettings): Promise<TokenService> {
    let jwk: JWK;
    try {
      jwk = JSON.parse(settings.privateJwk) as JWK;
    } catch {
      throw new Error('JWT_PRIVATE_JWK is not valid JSON');
    }
    if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.kid)
      throw new Error('JWT_PRIVATE_JWK must be a P-256 private key with a kid');
    const privateKey = await importJWK(jwk, ALGORITHM);
    const { d: _private, ...publicPart } = jwk;
    const publicKey = await importJWK(publicPart, ALGORITHM);
    const publicJwk = { ...(await exportJWK(publicKey)), kid: jwk.kid, alg: ALGORITHM, use: 'sig' };
    return new TokenService(settings, jwk.kid, privateKey, publicKey, publicJwk);
  }

  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  async signAccessToken(user: Pick<AuthenticatedUser, 'userId' | 'deviceId' | 'sessionId'>): Promise<string> {
    return new SignJWT({ did: user.deviceId, sid: user.sessionId })
      .setProtectedHeader({ alg: ALGORITHM, kid: this.kid, typ: 'at+jwt' })
      .setSubject(user.userId)
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${this.settings.accessTtlSeconds}s`)
      .sign(this.privateKey);
  }

  /** An operator's browser session (the cookie of /codec/session): its own type and audience, never an access token. */
  async signOperatorSession(operator: string, ttlSeconds: number): Promise<string> {
    return new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM, kid: this.kid, typ: OPERATOR_SESSION_TYPE })
      .setSubject(operator)
      .setIssuer(this.settings.issuer)
      .setAudience(`${this.settings.audience}:operator`)
      .setIssuedAt()
      .setJti(randomUUID())
      .setExpirationTime(`${ttlSeconds}s`)
      .sign(this.privateKey);
  }

  /** The operator of a session cookie; an access token, an expired or a forged session is refused. */
  async verifyOperatorSession(token: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: [ALGORITHM],
        issuer: this.settings.issuer,
        audience: `${this.settings.audience}:operator`,
        typ: OPERATOR_SESSION_TYPE,
        requiredClaims: ['sub', 'exp'],
      });
      return String(payload.sub);
    } catch {
      throw problems.invalidCredential(
        'invalid-operator-session',
        'The operator session is invalid or expired: sign in again at /codec/login',
      );
    }
  }

  /**
   * Verifies an access token. A token that verified before is answered from a cache until its own expiry: the same
   * bytes verify the same way, so only the ES256 signature check (the largest CPU cost of a Bearer request) is saved.
   */
  async verifyAccessToken(token: string): Promise<AuthenticatedUser> {
    const cached = this.verified.get(token);
    if (cached && cached.expiresAt > Date.now()) return cached.user;
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        algorithms: [ALGORITHM],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        typ: 'at+jwt',
        requiredClaims: ['sub', 'exp'],
      });
      const user: AuthenticatedUser = {
        userId: String(payload.sub),
        deviceId: String(payload.did ?? ''),
        ...(payload.sid ? { sessionId: String(payload.sid) } : {}),
      };
      this.verified.set(
        token,
        { user, expiresAt: payload.exp! * 1000 },
        { ttl: Math.max(1, payload.exp! * 1000 - Date.now()) },
      );
      return user;
    } catch (error) {
      // Our own signature over a token that has run out is not a guess: told apart, and not counted as a failed credential.
      if (error instanceof errors.JWTExpired)
        throw problems.unauthorized(
          'The access token expired: get a new one with the refresh token (POST /v1/auth/token)',
          'token-expired',
        );
      throw problems.invalidCredential('invalid-token', 'The access token is invalid or expired');
    }
  }

  /** Tokens for a signed-in device session (`user.sessionId`: its row in `devices`; undefined for a legacy session). */
  async issue(
    orm: Orm,
    user: { userId: string; deviceId: string; sessionId: string | undefined },
    familyId: string = randomUUID(),
  ): Promise<IssuedTokens> {
    const refreshToken = randomBytes(32).toString('base64url');
    const em = orm.em.fork();
    em.create(RefreshTokenEntity, {
      id: randomUUID(),
      tokenHash: hashToken(refreshToken),
      userId: user.userId,
      deviceId: user.deviceId,
      familyId,
      expiresAt: new Date(Date.now() + this.settings.refreshTtlSeconds * 1000),
    });
    await em.flush();
    return {
      tokenType: 'Bearer',
      accessToken: await this.signAccessToken(user),
      expiresIn: this.settings.accessTtlSeconds,
      refreshToken,
      refreshTokenExpiresIn: this.settings.refreshTtlSeconds,
      userId: user.userId,
    };
  }

  async refresh(orm: Orm, refreshToken: string, deviceId: string): Promise<IssuedTokens> {
    const em = orm.em.fork();
    const stored = await em.findOne(RefreshTokenEntity, { tokenHash: hashToken(refreshToken) });
    const invalid = problems.invalidCredential(
      'invalid-refresh-token',
      'The refresh token is invalid, expired or revoked',
    );
    if (!stored || !safeEqual(stored.deviceId, deviceId)) throw invalid;
    if (stored.revokedAt) {
      await em.nativeUpdate(
        RefreshTokenEntity,
        { familyId: stored.familyId, revokedAt: null },
        { revokedAt: new Date() },
      );
      throw invalid;
    }
    if (stored.expiresAt.getTime() < Date.now()) throw invalid;
    await assertActive(orm, stored.userId); // a suspended or closed user gets no new tokens (the token stays unused)
    // A signed-out device's refresh tokens were revoked with it; this also covers one issued while the revocation ran.
    const device = await em.findOne(DeviceEntity, { userId: stored.userId, deviceId, revokedAt: null });
    if (!device) throw invalid;
    const revoked = await em.nativeUpdate(
      RefreshTokenEntity,
      { id: stored.id, revokedAt: null },
      { revokedAt: new Date() },
    );
    if (revoked !== 1) throw invalid; // a concurrent refresh won the race
    await em.nativeUpdate(DeviceEntity, { id: device.id }, { lastUsedAt: new Date() });
    // A legacy session (tokens from before devices existed) keeps naming none, so its access tokens stay valid.
    const sessionId = device.sessionId === LEGACY_SESSION ? undefined : device.sessionId;
    return this.issue(orm, { userId: stored.userId, deviceId, sessionId }, stored.familyId);
  }
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export const safeEqual = (a: string, b: string): boolean => {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
};
