import type { Context } from 'koa';
import { problems } from './problems';
import type { TokenService } from '../auth/tokens';
import { safeEqual } from '../auth/tokens';
import type { AuthenticatedUser } from './route-table';

/** Bearer access tokens (JWT) and the identity provider's X-Api-Key. */
export class Authenticator {
  constructor(private readonly tokens: TokenService, private readonly passCallbackApiKey: string) {}

  async bearer(ctx: Context): Promise<AuthenticatedUser> {
    const header = ctx.get('authorization');
    const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+)$/.exec(header);
    if (!header) throw problems.unauthorized('An Authorization: Bearer <access token> header is required');
    if (!match) throw problems.unauthorized('The Authorization header must be "Bearer <access token>"');
    return this.tokens.verifyAccessToken(match[1]!);
  }

  apiKey(ctx: Context): void {
    const key = ctx.get('x-api-key');
    if (!key || !safeEqual(key, this.passCallbackApiKey)) throw problems.invalidCredential('invalid-api-key', 'The X-Api-Key header is missing or wrong');
  }
}
