import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * Stand-in for a crypto exchange's OAuth 2.0 API (authorization code with PKCE). The authorize endpoint plays the
 * user's consent screen: it approves at once for the exchange user named by login_hint and redirects back with a
 * code. Tokens grant the scopes asked for (read, withdraw); /cex/v1/me and /cex/v1/balances read with them.
 */
interface CexUser {
  userId: string;
  name: string;
  balances: Record<string, string>;
}
interface Grant {
  userId: string;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string;
  used: boolean;
}

export function cexRouter(options: { clientId: string; clientSecret: string }): Router {
  const users = new Map<string, CexUser>();
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, { userId: string; scopes: string[] }>();
  const router = new Router({ prefix: '/cex' });
  const body = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const fail = (ctx: Context, status: number, error: string, description: string) => {
    ctx.status = status;
    ctx.body = { error, error_description: description };
  };
  const bearer = (ctx: Context) => tokens.get(ctx.get('authorization').replace(/^Bearer /, ''));

  router.post('/_users', (ctx) => {
    const { userId, name, balances = {} } = body(ctx) as Partial<CexUser>;
    if (!userId || !name) return fail(ctx, 400, 'invalid_request', 'userId and name are required');
    users.set(userId, { userId, name, balances });
    ctx.status = 201;
    ctx.body = users.get(userId);
  });

  router.get('/oauth/authorize', (ctx) => {
    const q = ctx.query as Record<string, string | undefined>;
    if (q.client_id !== options.clientId || q.response_type !== 'code' || !q.redirect_uri || !q.state) {
      return fail(ctx, 400, 'invalid_request', 'client_id, response_type=code, redirect_uri and state are required');
    }
    if (q.code_challenge_method !== 'S256' || !q.code_challenge)
      return fail(ctx, 400, 'invalid_request', 'PKCE (S256) is required');
    const user = users.get(q.login_hint ?? '');
    if (!user) return fail(ctx, 400, 'access_denied', 'no such exchange user (login_hint)');
    const scopes = (q.scope ?? 'read').split(' ').filter((s) => s === 'read' || s === 'withdraw');
    const code = randomBytes(16).toString('hex');
    codes.set(code, {
      userId: user.userId,
      scopes,
      redirectUri: q.redirect_uri,
      codeChallenge: q.code_challenge,
      used: false,
    });
    const target = new URL(q.redirect_uri);
    target.searchParams.set('code', code);
    target.searchParams.set('state', q.state);
    ctx.redirect(target.toString());
  });

  router.post('/oauth/token', (ctx) => {
    const input = body(ctx) as Record<string, string | undefined>;
    if (input.client_id !== options.clientId || input.client_secret !== options.clientSecret)
      return fail(ctx, 401, 'invalid_client', 'bad client credentials');
    const grant = codes.get(input.code ?? '');
    if (input.grant_type !== 'authorization_code' || !grant || grant.used || grant.redirectUri !== input.redirect_uri) {
      return fail(ctx, 400, 'invalid_grant', 'unknown, used or mismatched code');
    }
    const challenge = createHash('sha256')
      .update(input.code_verifier ?? '')
      .digest('base64url');
    if (challenge !== grant.codeChallenge) return fail(ctx, 400, 'invalid_grant', 'code_verifier does not match');
    grant.used = true;
    const accessToken = randomBytes(24).toString('base64url');
    tokens.set(accessToken, { userId: grant.userId, scopes: grant.scopes });
    ctx.body = {
      access_token: accessToken,
      refresh_token: randomBytes(24).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: grant.scopes.join(' '),
    };
  });

  router.get('/v1/me', (ctx) => {
    const token = bearer(ctx);
    if (!token) return fail(ctx, 401, 'invalid_token', 'access token required');
    const user = users.get(token.userId)!;
    ctx.body = {
      accountId: `cex-${user.userId}`,
      name: user.name,
      permissions: { read: token.scopes.includes('read'), withdraw: token.scopes.includes('withdraw') },
    };
  });
  router.get('/v1/balances', (ctx) => {
    const token = bearer(ctx);
    if (!token?.scopes.includes('read')) return fail(ctx, 403, 'insufficient_scope', 'read scope required');
    ctx.body = {
      balances: Object.entries(users.get(token.userId)!.balances).map(([currency, balance]) => ({ currency, balance })),
    };
  });
  return router;
}
