import type { Context } from 'koa';
import { problems } from './problems';
import type { TokenService } from '../auth/tokens';
import { safeEqual } from '../auth/tokens';
import type { AuthenticatedUser } from './route-table';
import type { Orm } from '../../db/orm';
import { activeSession } from '../common/active-user';
import type { SessionCache } from '../common/session-cache';
import { OPERATOR_COOKIE, type Operators } from '../operators/operators';

/**
 * Bearer access tokens (JWT) and the identity provider's X-Api-Key. A valid token of a user who is no longer active
 * (suspended, closed, gone), or of a device that was signed out, is refused here, once for every Bearer route: no handler has to remember it.
 */
export class Authenticator {
  constructor(
    private readonly tokens: TokenService,
    private readonly passCallbackApiKey: string,
    private readonly orm: Orm,
    /**
     * The check of a route's X-Pass-Token against what its path names: a registration's (`regId`,
     * api/registration/guard.ts) or a sign-in's (`signInId`).
     */
    private readonly verifyPassToken: (params: Record<string, string>, passToken: string) => Promise<unknown>,
    private readonly operators: Operators,
    /** The session rows kept while the database tells of no change (PostgreSQL); absent: read every request. */
    private readonly sessions?: SessionCache,
  ) {}

  /**
   * An operator: a token (`Authorization: Bearer op_…`, scripts) or a session cookie from /codec/session (a browser:
   * the Temporal UI's codec calls). Answers the operator's name.
   */
  async operator(ctx: Context): Promise<string> {
    const header = ctx.get('authorization');
    if (header) {
      const token = /^Bearer (\S+)$/.exec(header)?.[1] ?? '';
      const name = this.operators.byToken(token);
      if (!name) throw problems.invalidCredential('invalid-operator-token', 'The operator token is not valid');
      return name;
    }
    const session = ctx.cookies.get(OPERATOR_COOKIE);
    if (!session)
      throw problems.unauthorized(
        'An operator token (Authorization: Bearer op_…) or an operator session (sign in at /codec/login) is required',
      );
    const name = await this.tokens.verifyOperatorSession(session);
    if (!this.operators.has(name))
      throw problems.invalidCredential('invalid-operator-session', 'This operator is no longer configured');
    return name;
  }

  async bearer(ctx: Context): Promise<AuthenticatedUser> {
    const header = ctx.get('authorization');
    const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+)$/.exec(header);
    if (!header) throw problems.unauthorized('An Authorization: Bearer <access token> header is required');
    if (!match) throw problems.unauthorized('The Authorization header must be "Bearer <access token>"');
    const user = await this.tokens.verifyAccessToken(match[1]!);
    return { ...user, session: await activeSession(this.orm, user, this.sessions) };
  }

  /**
   * The X-Pass-Token of a registration step or a sign-in proof, checked before anything else of the request is read
   * (an unauthenticated upload never reaches the body parser or an Idempotency-Key record).
   */
  async passToken(ctx: Context, params: Record<string, string>): Promise<void> {
    const token = ctx.get('x-pass-token');
    if (!token) throw problems.badHeader('x-pass-token', 'X-Pass-Token (from the identity verification) is required');
    await this.verifyPassToken(params, token);
  }

  apiKey(ctx: Context): void {
    const key = ctx.get('x-api-key');
    if (!key || !safeEqual(key, this.passCallbackApiKey))
      throw problems.invalidCredential('invalid-api-key', 'The X-Api-Key header is missing or wrong');
  }
}
