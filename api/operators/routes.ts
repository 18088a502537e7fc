import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import type { TokenService } from '../auth/tokens';
import type { Logger } from '../../platform/logger';
import { CodecPayloads, OperatorSession, OperatorSignIn } from './schemas';
import { OPERATOR_COOKIE, type Operators } from './operators';
import type { OperatorCodec } from './codec';
import { LOGIN_PAGE } from './login-page';

export interface OperatorRouteDeps {
  operators: Operators;
  tokens: TokenService;
  codec: OperatorCodec;
  logger: Logger;
  sessionSeconds: number;
}

const TAGS = ['Operators'];

/** The cookie lives on /codec only, is never readable by scripts, and goes along on same-site requests only. */
const setSessionCookie = (ctx: Context, value: string | null, maxAgeMs: number) =>
  ctx.cookies.set(OPERATOR_COOKIE, value, {
    path: '/codec',
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.secure,
    maxAge: maxAgeMs,
    overwrite: true,
  });

/** The Temporal UI's codec endpoint and the operator session its browser calls carry. */
export function operatorRoutes({ operators, tokens, codec, logger, sessionSeconds }: OperatorRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/codec/decode',
      operationId: 'codecDecode',
      tags: TAGS,
      auth: 'operator',
      summary: 'Temporal UI codec: decode workflow payloads for an operator, personal data redacted',
      description:
        'The Temporal codec server protocol (POST {endpoint}/decode). Payloads the service sealed are opened; in JSON ones, names, birth dates, phone numbers, CI/DI, pass tokens, backups, bank account numbers, codes, PINs and keys are replaced by "[redacted]". Others are answered as they came.',
      body: CodecPayloads,
      responses: { 200: { description: 'The payloads, decoded', schema: CodecPayloads } },
      handler: async ({ body, operator }, ctx) => {
        const payloads = await codec.decode(body.payloads);
        logger.info(
          { operator, namespace: ctx.get('x-namespace') || undefined, payloads: payloads.length },
          'codec decode',
        );
        return { status: 200, body: { payloads } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/codec/session',
      operationId: 'operatorSignIn',
      tags: TAGS,
      auth: 'none',
      summary: 'Sign an operator in: an HttpOnly, SameSite=Strict session cookie for /codec',
      description:
        'For a browser, so that the Temporal UI can call POST /codec/decode; scripts send `Authorization: Bearer ' +
        'op_…` instead. The cookie holds a signed session sent to /codec paths only, valid ' +
        'OPERATOR_SESSION_SECONDS (8 h, `expiresAt`) unless the operator is removed from OPERATOR_TOKENS first. ' +
        'A wrong token answers 401 and counts against the wrong-credential limit of the client address.',
      body: OperatorSignIn,
      responses: {
        200: { description: 'Signed in (Set-Cookie)', schema: OperatorSession },
        401: { description: 'Unknown token' },
      },
      handler: async ({ body }, ctx) => {
        const operator = operators.byToken(body.token);
        if (!operator) throw problems.invalidCredential('invalid-operator-token', 'The operator token is not valid');
        setSessionCookie(ctx, await tokens.signOperatorSession(operator, sessionSeconds), sessionSeconds * 1000);
        logger.info({ operator }, 'operator signed in');
        return {
          status: 200,
          body: { operator, expiresAt: new Date(Date.now() + sessionSeconds * 1000).toISOString() },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/codec/session',
      operationId: 'operatorSignOut',
      tags: TAGS,
      auth: 'none',
      summary: 'Sign out: clears the session cookie',
      description:
        'Clears the cookie in this browser only: the session itself is not revoked, so a copy of the cookie ' +
        'works until its `expiresAt`; removing the operator from OPERATOR_TOKENS ends all their sessions. ' +
        'Answers 204 with or without a session.',
      responses: { 204: { description: 'Signed out' } },
      handler: async (_input, ctx) => {
        setSessionCookie(ctx, null, 0);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/codec/login',
      operationId: 'operatorLoginPage',
      tags: TAGS,
      auth: 'none',
      summary: 'The operator sign-in page (HTML)',
      description:
        'A form that posts the operator token to POST /codec/session and shows who is signed in until when. Open ' +
        'it in the browser that runs the Temporal UI, then turn on "Include cross-origin credentials" in the ' +
        'codec settings of the UI so its calls carry the cookie.',
      responses: { 200: { description: 'HTML page' } },
      handler: async (_input, ctx) => {
        ctx.type = 'text/html';
        return {
          status: 200,
          body: LOGIN_PAGE,
          headers: {
            'content-security-policy':
              "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
          },
        };
      },
    }),
  ];
}
