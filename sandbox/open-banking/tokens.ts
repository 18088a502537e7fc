import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** Access tokens live 90 days: the test bed answers expires_in 7776000 (oob, 2018) and 7775999 (user, 2021). */
export const ACCESS_TOKEN_SECONDS = 7_776_000;
/** Observed once (the 2021 user token): the refresh token expires 10 days after its access token. Not a known rule. */
const REFRESH_TOKEN_EXTRA_SECONDS = 864_000;
/** How long an authorization code may wait for its exchange: the emulator's choice (RFC 6749 advises 10 minutes at most). */
const CODE_SECONDS = 600;

/** What a Bearer token lets its holder do. */
export type Grant =
  | { kind: 'user'; userSeqNo: string; scopes: string[] }
  | { kind: 'institution'; clientUseCode: string; scopes: ['oob'] };
export type UserGrant = Extract<Grant, { kind: 'user' }>;

interface PendingCode {
  clientId: string;
  redirectUri: string;
  grant: UserGrant;
  expiresAt: number;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface Tokens {
  /** A single-use authorization code, bound to the client and redirect_uri it was asked for. */
  issueCode(code: Omit<PendingCode, 'expiresAt'>): string;
  /** The grant behind a code, once: the code is spent by any attempt, matching or not. */
  redeemCode(code: string, clientId: string, redirectUri: string): UserGrant | undefined;
  issueUserTokens(grant: UserGrant): TokenPair;
  issueInstitutionToken(clientUseCode: string): string;
  /**
   * The grant behind a live refresh token, once: the token is spent (rotated) by its use. One whose grant does not
   * `fit` what is asked is not spent ('scope').
   */
  redeemRefreshToken(refreshToken: string, fits: (grant: UserGrant) => boolean): UserGrant | 'scope' | undefined;
  /** The grant of a live access token. */
  bearer(accessToken: string): Grant | undefined;
}

/**
 * Tokens shaped as the test bed's v2.0 tokens are (HS256 JWTs: aud = user_seq_no, scope as a list, iss, exp, jti), so
 * an adapter meets their real length; it must treat them as opaque. For the oob token the aud is the institution
 * code: an assumption (the only oob token seen is a pre-v2.0 UUID).
 */
export function createTokens(now: () => Date): Tokens {
  const signingKey = randomBytes(32);
  const codes = new Map<string, PendingCode>();
  const access = new Map<string, { grant: Grant; expiresAt: number }>();
  const refresh = new Map<string, { grant: UserGrant; expiresAt: number }>();
  const seconds = () => Math.floor(now().getTime() / 1000);

  const jwt = (audience: string, scopes: string[], expiresAt: number): string => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const payload = { aud: audience, scope: scopes, iss: 'https://www.openbanking.or.kr', exp: expiresAt };
    const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...payload, jti: randomUUID() })}`;
    return `${unsigned}.${createHmac('sha256', signingKey).update(unsigned).digest('base64url')}`;
  };
  const live = <T extends { expiresAt: number }>(entry: T | undefined) =>
    entry && entry.expiresAt > seconds() ? entry : undefined;

  return {
    issueCode: (pending) => {
      const code = randomBytes(20).toString('base64url');
      codes.set(code, { ...pending, expiresAt: seconds() + CODE_SECONDS });
      return code;
    },
    redeemCode: (code, clientId, redirectUri) => {
      const pending = live(codes.get(code));
      codes.delete(code);
      return pending?.clientId === clientId && pending.redirectUri === redirectUri ? pending.grant : undefined;
    },
    issueUserTokens: (grant) => {
      const expiresAt = seconds() + ACCESS_TOKEN_SECONDS;
      const accessToken = jwt(grant.userSeqNo, grant.scopes, expiresAt);
      const refreshExpiresAt = expiresAt + REFRESH_TOKEN_EXTRA_SECONDS;
      const refreshToken = jwt(grant.userSeqNo, grant.scopes, refreshExpiresAt);
      access.set(accessToken, { grant, expiresAt });
      refresh.set(refreshToken, { grant, expiresAt: refreshExpiresAt });
      return { accessToken, refreshToken };
    },
    issueInstitutionToken: (clientUseCode) => {
      const expiresAt = seconds() + ACCESS_TOKEN_SECONDS;
      const accessToken = jwt(clientUseCode, ['oob'], expiresAt);
      access.set(accessToken, { grant: { kind: 'institution', clientUseCode, scopes: ['oob'] }, expiresAt });
      return accessToken;
    },
    redeemRefreshToken: (refreshToken, fits) => {
      const entry = live(refresh.get(refreshToken));
      if (entry && !fits(entry.grant)) return 'scope';
      refresh.delete(refreshToken);
      return entry?.grant;
    },
    bearer: (accessToken) => live(access.get(accessToken))?.grant,
  };
}
