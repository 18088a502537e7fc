import { createHash, randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';

/**
 * Upbit's and Bithumb's Exchange API as far as an account connection uses it, under /upbit and /bithumb:
 * `GET /v1/accounts` (balances) and, at Upbit, `GET /v1/api_keys` (the account's keys and their expiry), each
 * authenticated as the exchanges document: `Authorization: Bearer <JWT>` signed with the key's secret as it is (Upbit
 * HS512 or HS256, Bithumb HS256), claims `access_key`, `nonce` (Upbit refuses one used before: nonce_used), Bithumb's
 * `timestamp`, and `query_hash` (SHA-512 of the unencoded query string) with `query_hash_alg` when there are
 * parameters. Keys carry permissions (Upbit's names: view_account, view_orders, make_orders, withdraw, ...), an IP
 * allow-list (empty: any) and an expiry. Errors `{"error": {"name", "message"}}` with the names each exchange lists.
 * Administration: `POST /{exchange}/_keys` `{balances: {BTC: "0.5" | {balance, locked}}, permissions?, allowedIps?,
 * expiresAt?}` issues a key pair of a new account.
 */
type Exchange = 'upbit' | 'bithumb';

interface IssuedKey {
  accessKey: string;
  secretKey: string;
  permissions: string[];
  allowedIps: string[];
  expiresAt: number;
  balances: Array<{ currency: string; balance: string; locked: string; avgBuyPrice: string }>;
}

const YEAR_MS = 365 * 24 * 3_600_000;
const alnum = (length: number) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(length), (b) => chars[b % chars.length]).join('');
};

/** Each exchange's names for the same refusals (Upbit's error list; Bithumb's "API 주요 에러 코드"). */
const NAMES: Record<Exchange, Record<string, [status: number, name: string, message: string]>> = {
  upbit: {
    noToken: [401, 'no_authorization_token', 'Authorization 토큰이 없습니다.'],
    unknownKey: [401, 'invalid_access_key', '잘못된 엑세스 키입니다.'],
    signature: [401, 'jwt_verification', 'Jwt 토큰 검증에 실패했습니다.'],
    queryHash: [401, 'invalid_query_payload', 'Jwt 토큰의 쿼리 정보가 올바르지 않습니다.'],
    nonce: [401, 'nonce_used', '이미 요청한 nonce값이 다시 사용되었습니다.'],
    expired: [401, 'expired_access_key', 'API 키가 만료되었습니다.'],
    ip: [401, 'no_authorization_ip', '허용되지 않은 IP 주소입니다.'],
    scope: [403, 'out_of_scope', '권한이 부족합니다.'],
  },
  bithumb: {
    noToken: [401, 'jwt_verification', 'Jwt 토큰 검증에 실패했습니다.'],
    unknownKey: [401, 'jwt_verification', 'Jwt 토큰 검증에 실패했습니다.'],
    signature: [401, 'jwt_verification', 'Jwt 토큰 검증에 실패했습니다.'],
    queryHash: [401, 'invalid_query_payload', 'Jwt 토큰의 쿼리 정보가 올바르지 않습니다.'],
    nonce: [401, 'jwt_verification', 'Jwt 토큰 검증에 실패했습니다.'],
    expired: [401, 'expired_jwt', '만료된 토큰입니다.'],
    ip: [401, 'NotAllowIP', '허용되지 않은 IP 입니다.'],
    scope: [401, 'out_of_scope', '권한이 부족합니다.'],
  },
};

export function exchangeAccountsRouter(exchange: Exchange, options: { now?: () => number } = {}): Router {
  const now = options.now ?? Date.now;
  const keys = new Map<string, IssuedKey>();
  const nonces = new Set<string>();
  let second = 0;
  let calls = 0;
  const router = new Router({ prefix: `/${exchange}` });
  const fail = (ctx: Context, kind: string) => {
    const [status, name, message] = NAMES[exchange][kind]!;
    ctx.status = status;
    ctx.body = { error: { name, message } };
  };

  router.post('/_keys', (ctx) => {
    const input = ((ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {}) as {
      balances?: Record<string, string | { balance: string; locked?: string; avgBuyPrice?: string }>;
      permissions?: string[];
      allowedIps?: string[];
      expiresAt?: string;
    };
    const decimal = /^\d+(\.\d+)?$/;
    const balances = Object.entries(input.balances ?? {}).map(([currency, value]) =>
      typeof value === 'string'
        ? { currency, balance: value, locked: '0', avgBuyPrice: '0' }
        : { currency, balance: value.balance, locked: value.locked ?? '0', avgBuyPrice: value.avgBuyPrice ?? '0' },
    );
    if (
      !balances.every(
        (b) =>
          /^[A-Z0-9]{1,16}$/.test(b.currency) && [b.balance, b.locked, b.avgBuyPrice].every((d) => decimal.test(d)),
      )
    ) {
      ctx.status = 400;
      ctx.body = { error: 'balances: {CURRENCY: "decimal" | {balance, locked?, avgBuyPrice?}}' };
      return;
    }
    const key: IssuedKey = {
      accessKey: alnum(40),
      secretKey: alnum(40),
      permissions: input.permissions ?? ['view_account'],
      allowedIps: input.allowedIps ?? [],
      expiresAt: input.expiresAt ? Date.parse(input.expiresAt) : now() + YEAR_MS,
      balances,
    };
    keys.set(key.accessKey, key);
    ctx.status = 201;
    ctx.body = { accessKey: key.accessKey, secretKey: key.secretKey, expiresAt: new Date(key.expiresAt).toISOString() };
  });

  /** The key a request's JWT proves, or undefined once a refusal is answered. */
  const authenticate = async (ctx: Context, permission?: string): Promise<IssuedKey | undefined> => {
    const authorization = ctx.get('authorization');
    if (!authorization.startsWith('Bearer ')) return void fail(ctx, 'noToken');
    const token = authorization.slice('Bearer '.length);
    let claims: Record<string, unknown>;
    try {
      claims = decodeJwt(token);
      if (decodeProtectedHeader(token).typ !== 'JWT') throw new Error('not a JWT');
    } catch {
      return void fail(ctx, 'signature');
    }
    const key = typeof claims.access_key === 'string' ? keys.get(claims.access_key) : undefined;
    if (!key) return void fail(ctx, 'unknownKey');
    const algorithms = exchange === 'upbit' ? ['HS512', 'HS256'] : ['HS256'];
    try {
      await jwtVerify(token, new TextEncoder().encode(key.secretKey), { algorithms });
    } catch {
      return void fail(ctx, 'signature');
    }
    if (typeof claims.nonce !== 'string' || !claims.nonce) return void fail(ctx, 'signature');
    if (exchange === 'bithumb' && typeof claims.timestamp !== 'number') return void fail(ctx, 'signature');
    // The hash of the query as received, unencoded, in its order.
    const query = decodeURIComponent(ctx.querystring.replace(/\+/g, ' '));
    if (query) {
      const expected = createHash('sha512').update(query, 'utf8').digest('hex');
      if (claims.query_hash !== expected || claims.query_hash_alg !== 'SHA512') return void fail(ctx, 'queryHash');
    } else if (claims.query_hash !== undefined) return void fail(ctx, 'queryHash');
    const nonceKey = `${key.accessKey} ${claims.nonce}`;
    if (nonces.has(nonceKey)) return void fail(ctx, 'nonce');
    if (nonces.size > 100_000) nonces.clear();
    nonces.add(nonceKey);
    if (now() >= key.expiresAt) return void fail(ctx, 'expired');
    if (key.allowedIps.length && !key.allowedIps.includes(ctx.ip.replace(/^::ffff:/, ''))) return void fail(ctx, 'ip');
    if (permission && !key.permissions.includes(permission)) return void fail(ctx, 'scope');
    // Upbit's Exchange API: 30 calls a second (the default group), said in Remaining-Req.
    const at = Math.floor(now() / 1000);
    if (at !== second) [second, calls] = [at, 0];
    calls += 1;
    if (exchange === 'upbit') ctx.set('Remaining-Req', `group=default; min=1800; sec=${Math.max(30 - calls, 0)}`);
    return key;
  };

  router.get('/v1/accounts', async (ctx) => {
    const key = await authenticate(ctx, 'view_account');
    if (!key) return;
    ctx.body = key.balances.map((b) => ({
      currency: b.currency,
      balance: b.balance,
      locked: b.locked,
      avg_buy_price: b.avgBuyPrice,
      avg_buy_price_modified: false,
      unit_currency: 'KRW',
    }));
  });

  if (exchange === 'upbit')
    // No permission needed ("별도 권한은 필요하지 않습니다").
    router.get('/v1/api_keys', async (ctx) => {
      const key = await authenticate(ctx);
      if (!key) return;
      ctx.body = [
        {
          access_key: key.accessKey,
          expire_at: new Date(key.expiresAt + 9 * 3_600_000).toISOString().slice(0, 19) + '+09:00',
        },
      ];
    });
  return router;
}
