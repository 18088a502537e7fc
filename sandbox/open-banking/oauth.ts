import type Router from '@koa/router';
import type { Context } from 'koa';
import { GATEWAY } from './codes';
import { consentPage, refusalPage } from './consent-page';
import type { Ledger } from './ledger';
import { derivedCi, type People } from './people';
import { ACCESS_TOKEN_SECONDS, type Tokens, type UserGrant } from './tokens';
import { refuse } from './wire';

export interface OAuthDeps {
  clientId: string;
  clientSecret: string;
  institutionCode: string;
  ledger: Ledger;
  people: People;
  tokens: Tokens;
  log?: (line: string) => void;
  /** The identity agency the consent screens authenticate a person by phone with: their CI, if it verified them. */
  ciOf?: (name: string, birthDate: string, phone: string) => string | undefined;
}

const USER_SCOPES = ['login', 'inquiry', 'transfer'];
const AUTHORIZE_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'auth_type', 'client_info'];

/** An authorize request as the institution sent it (research §2.1). */
type AuthorizeRequest = { params: Record<string, string>; redirectUri: string; scopes: string[] };

/**
 * Reads the authorize parameters. Every problem is answered with a page (400), none by a redirect: KFTC's behaviour
 * for a bad request is unknown, and a page fails loudly. `state` must be 32 characters: the spec's description ("난수값
 * 32자리", as copied by third parties); whether KFTC enforces it is unconfirmed.
 */
function readAuthorizeRequest(
  input: Record<string, unknown>,
  clientId: string,
): AuthorizeRequest | { problem: string } {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZE_PARAMS) if (typeof input[name] === 'string') params[name] = input[name];
  if (params.client_id !== clientId) return { problem: 'client_id: 등록되지 않은 이용기관입니다' };
  if (params.response_type !== 'code') return { problem: 'response_type must be "code"' };
  let redirect: URL | undefined;
  try {
    redirect = new URL(params.redirect_uri ?? '');
  } catch {
    /* not a URL */
  }
  if (!redirect || !/^https?:$/.test(redirect.protocol) || redirect.hash)
    return { problem: 'redirect_uri must be an absolute http(s) URL without a fragment' };
  const scopes = (params.scope ?? '').split(' ');
  if (!scopes.every((s) => USER_SCOPES.includes(s)) || new Set(scopes).size !== scopes.length)
    return { problem: `scope must be space-separated values of: ${USER_SCOPES.join(', ')}` };
  if (params.state?.length !== 32) return { problem: 'state must be 32 characters' };
  if (!['0', '1', '2'].includes(params.auth_type ?? ''))
    return { problem: 'auth_type must be 0 (최초인증), 1 (재인증) or 2 (인증생략)' };
  return { params, redirectUri: params.redirect_uri!, scopes };
}

/** redirect_uri with the answer appended, values percent-encoded (a space in scope as %20, not +). */
function redirectTo(redirectUri: string, answer: Record<string, string | undefined>): string {
  const query = Object.entries(answer)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}`;
}

const html = (ctx: Context, status: number, body: string) => {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
};
const formOf = (ctx: Context) =>
  ctx.is('application/x-www-form-urlencoded')
    ? ((ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {})
    : undefined;

export function mountOAuth(router: Router, deps: OAuthDeps): void {
  const { tokens, people, ledger } = deps;
  const approve = (ctx: Context, request: AuthorizeRequest, grant: UserGrant) => {
    const code = tokens.issueCode({ clientId: deps.clientId, redirectUri: request.redirectUri, grant });
    const { scope, state, client_info } = request.params;
    ctx.redirect(redirectTo(request.redirectUri, { code, scope, client_info, state }));
  };

  router.get('/oauth/2.0/authorize', (ctx) => {
    const request = readAuthorizeRequest(ctx.query, deps.clientId);
    if ('problem' in request) return html(ctx, 400, refusalPage(request.problem));
    if (request.params.auth_type !== '2') return html(ctx, 200, consentPage({ request: request.params }));
    // 인증생략: the institution vouches for a person already registered with a live token of theirs (Kftc-Bfop-* headers).
    const userSeqNo = ctx.get('kftc-bfop-userseqno');
    const grant = tokens.bearer(ctx.get('kftc-bfop-accesstoken'));
    if (grant?.kind !== 'user' || grant.userSeqNo !== userSeqNo || !people.byUserSeqNo(userSeqNo))
      return html(
        ctx,
        400,
        refusalPage('auth_type=2 needs Kftc-Bfop-UserSeqNo and a live Kftc-Bfop-AccessToken of that user'),
      );
    approve(ctx, request, { kind: 'user', userSeqNo, scopes: request.scopes });
  });

  router.post('/oauth/2.0/authorize', (ctx) => {
    const form = formOf(ctx) ?? {};
    const request = readAuthorizeRequest(form, deps.clientId);
    if ('problem' in request) return html(ctx, 400, refusalPage(request.problem));
    const { state } = request.params;
    if (form.action === 'deny') {
      const refusal = { error: 'access_denied', error_description: '사용자가 인증을 취소했습니다', state };
      return ctx.redirect(redirectTo(request.redirectUri, refusal));
    }
    const typed = {
      name: String(form.name ?? '').trim(),
      birth_date: String(form.birth_date ?? ''),
      phone: String(form.phone ?? '').replace(/\D/g, ''),
      bank_code: String(form.bank_code ?? ''),
      account_num: String(form.account_num ?? ''),
    };
    const account = ledger.find(typed.bank_code, typed.account_num);
    if (!account || account.holder !== typed.name || account.birthDate !== typed.birth_date) {
      const problem = '입력하신 정보와 일치하는 계좌가 없습니다 (이름, 생년월일, 은행, 계좌번호를 확인하세요)';
      return html(ctx, 200, consentPage({ request: request.params, typed, problem }));
    }
    // 휴대폰 본인인증: the agency's CI for this person (one it never verified: a CI derived from name and birth date).
    const ci = deps.ciOf?.(typed.name, typed.birth_date, typed.phone) ?? derivedCi(typed.name, typed.birth_date);
    const { person } = people.register(account, typed.birth_date, ci);
    deps.log?.(`kftc registered ${account.bankCode}-${account.accountNo} for user ${person.userSeqNo}`);
    approve(ctx, request, { kind: 'user', userSeqNo: person.userSeqNo, scopes: request.scopes });
  });

  router.post('/oauth/2.0/token', (ctx) => {
    const form = formOf(ctx);
    const noStore = () => ctx.set({ 'cache-control': 'no-store', pragma: 'no-cache' });
    if (!form) return refuse(ctx, GATEWAY.invalidRequest, 'the body must be application/x-www-form-urlencoded');
    const field = (name: string) => (typeof form[name] === 'string' ? (form[name] as string) : '');
    if (field('client_id') !== deps.clientId || field('client_secret') !== deps.clientSecret)
      return refuse(ctx, GATEWAY.invalidClient);
    const userTokens = (grant: UserGrant) => {
      const { accessToken, refreshToken } = tokens.issueUserTokens(grant);
      noStore();
      ctx.body = {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_SECONDS,
        refresh_token: refreshToken,
        scope: grant.scopes.join(' '),
        user_seq_no: grant.userSeqNo,
      };
    };
    switch (field('grant_type')) {
      case 'authorization_code': {
        if (!field('code') || !field('redirect_uri'))
          return refuse(ctx, GATEWAY.invalidRequest, 'code and redirect_uri are required');
        const grant = tokens.redeemCode(field('code'), field('client_id'), field('redirect_uri'));
        if (!grant)
          return refuse(ctx, GATEWAY.invalidGrant, 'code unknown, used, expired or issued for another redirect_uri');
        return userTokens(grant);
      }
      case 'client_credentials': {
        if (field('scope') !== 'oob') return refuse(ctx, GATEWAY.invalidScope, 'scope must be "oob"');
        noStore();
        ctx.body = {
          access_token: tokens.issueInstitutionToken(deps.institutionCode),
          token_type: 'Bearer',
          expires_in: ACCESS_TOKEN_SECONDS,
          scope: 'oob',
          client_use_code: deps.institutionCode,
        };
        return;
      }
      case 'refresh_token': {
        // Unconfirmed grant (research §2.2c): standard OAuth fields. A scope, when sent, may not exceed the original.
        const asked = field('scope') ? field('scope').split(' ') : undefined;
        const redeemed = tokens.redeemRefreshToken(field('refresh_token'), (grant) =>
          (asked ?? []).every((s) => grant.scopes.includes(s)),
        );
        if (redeemed === 'scope') return refuse(ctx, GATEWAY.invalidScope, 'scope exceeds what was granted');
        if (!redeemed) return refuse(ctx, GATEWAY.invalidGrant, 'refresh_token unknown, used or expired');
        return userTokens(asked ? { ...redeemed, scopes: asked } : redeemed);
      }
      default:
        return refuse(
          ctx,
          GATEWAY.invalidRequest,
          'grant_type must be authorization_code, client_credentials or refresh_token',
        );
    }
  });
}
