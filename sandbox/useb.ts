import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { SignJWT, jwtVerify } from 'jose';
import { AuthorityRecords } from './useb-records';

/**
 * Stand-in for useB's token service and status API, on their paths under /useb/auth (auth.useb.co.kr) and /useb/api
 * (api3.useb.co.kr): `POST /useb/auth/oauth/token` (HTTP Basic client id and secret) answers a JWT that expires in an
 * hour, `expires_in` as Korean wall-clock time; `POST /useb/api/status/idcard` and `/status/driver` take it and answer
 * `{success, message, transaction_id}`, a failure with `error_code`. The authorities behind it are useb-records.ts.
 * Sandbox administration: `POST /useb/_reports {idNumber | licenseNumber, status: 'lost' | 'superseded'}`,
 * `POST /useb/_licenses {licenseNumber, serial}` (the serial the licence's card carries), `GET /useb/_stats`.
 */

/** useB's failure codes and messages. Only A001's message is published (its Node SDK's README); the others say the doc's meaning. */
export const USEB_ERRORS = {
  A001: 'ID number is invalid',
  A002: 'Issue date is invalid',
  A003: 'Required parameter is missing',
  A004: 'Name or issue date does not match',
  A005: 'Locked after five wrong issue dates: unlock it at gov.kr',
  A006: 'The ID card is reported lost',
  A011: 'Resident registration number is invalid',
  A013: 'License number, birth date or name is wrong or missing',
  A014: 'Serial number does not match',
  A015: 'Scrapping error',
  A016: 'License number is no longer valid',
  C001: 'Content-Type is invalid',
  C003: 'Client info is invalid',
  C004: 'Account is suspended',
  C011: 'Token is invalid',
  C013: 'Token issuer mismatch',
  C016: 'Network time out',
  C061: 'Server error',
  C071: 'Out of credit',
  C429: 'Too many requests',
  C504: 'Gateway time out',
} as const;
export type UsebErrorCode = keyof typeof USEB_ERRORS;

/**
 * The HTTP status of a failure. useB's docs (a third-party copy) give 401 for a missing, wrong or expired token and
 * 500 for the authority's outage; the status of the other codes is not published: 400 is inferred from its SDKs,
 * which take any non-200 answer as a failure and read the same JSON from it.
 */
const statusOf = (code: UsebErrorCode): number =>
  ['C003', 'C011', 'C013'].includes(code) ? 401 : ['C016', 'C061', 'C504'].includes(code) ? 500 : 400;

const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const ISSUER = 'useb-sandbox';

export interface UsebOptions {
  clientId: string;
  clientSecret: string;
  /** The sandbox's time (tests move it to expire tokens); the real time by default. */
  now?: () => Date;
  /** Asked at every check: a code to fail it with, for the failures only an outage or the account brings (C061, C071...). */
  failWith?: () => UsebErrorCode | undefined;
}

export function usebRouter(options: UsebOptions): Router {
  const now = options.now ?? (() => new Date());
  const key = randomBytes(32);
  const records = new AuthorityRecords(now);
  const stats = { tokens: 0, checks: 0 };
  const router = new Router({ prefix: '/useb' });
  const body = (ctx: Context) => (ctx.request as { body?: Record<string, unknown> }).body ?? {};
  const transactionId = () => randomBytes(12).toString('hex');
  const fail = (ctx: Context, code: UsebErrorCode) => {
    ctx.status = statusOf(code);
    ctx.body = { success: false, message: USEB_ERRORS[code], error_code: code, transaction_id: transactionId() };
  };

  router.post('/auth/oauth/token', async (ctx) => {
    const [id, secret] = basicCredentials(ctx.get('authorization'));
    if (id !== options.clientId || secret !== options.clientSecret) return fail(ctx, 'C003');
    const expires = new Date(Math.floor((now().getTime() + TOKEN_LIFETIME_MS) / 1000) * 1000);
    const jwt = await new SignJWT({ client_id: id })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setIssuedAt(Math.floor(now().getTime() / 1000))
      .setExpirationTime(expires.getTime() / 1000)
      .sign(key);
    stats.tokens += 1;
    ctx.body = {
      success: true,
      message: 'Token issued successfully',
      jwt,
      expires_in: kst(expires),
      transaction_id: transactionId(),
    };
  });

  /** The token as useB's SDK sends it (bare) or as its docs say (`Bearer …`); an unknown or expired one is C011. */
  const tokenValid = async (ctx: Context): Promise<boolean> => {
    const token = ctx.get('authorization').replace(/^Bearer\s+/i, '');
    try {
      await jwtVerify(token, key, { issuer: ISSUER, algorithms: ['HS256'], currentDate: now() });
      return true;
    } catch {
      return false;
    }
  };

  const check = (path: string, verdict: (body: Record<string, unknown>) => UsebErrorCode | undefined) =>
    router.post(`/api${path}`, async (ctx) => {
      if (!(await tokenValid(ctx))) return fail(ctx, 'C011');
      if (!ctx.is('application/json')) return fail(ctx, 'C001');
      const injected = options.failWith?.();
      if (injected) return fail(ctx, injected);
      stats.checks += 1;
      const code = verdict(body(ctx));
      if (code) return fail(ctx, code);
      ctx.body = {
        success: true,
        message: '입력하신 내용은 등록된 내용과 일치합니다.',
        transaction_id: transactionId(),
      };
    });
  check('/status/idcard', (input) => records.residentCard(input));
  check('/status/driver', (input) => records.driverLicence(input));

  router.post('/_reports', (ctx) => {
    const { idNumber, licenseNumber, status = 'lost' } = body(ctx);
    const card = { idNumber: digits(idNumber, 13), licenseNumber: digits(licenseNumber, 12) };
    const valid =
      status === 'lost' ? card.idNumber || card.licenseNumber : status === 'superseded' && card.licenseNumber;
    if (!valid) {
      ctx.status = 400;
      ctx.body = { error: 'idNumber (13 digits) or licenseNumber (12 digits) lost, or a licenseNumber superseded' };
      return;
    }
    records.report(card, status as 'lost' | 'superseded');
    ctx.status = 201;
    ctx.body = { ...card, status };
  });

  router.post('/_licenses', (ctx) => {
    const licenseNumber = digits(body(ctx).licenseNumber, 12);
    const serial = body(ctx).serial;
    if (!licenseNumber || typeof serial !== 'string' || !/^[0-9A-Z]{5,6}$/.test(serial)) {
      ctx.status = 400;
      ctx.body = { error: 'licenseNumber (12 digits) and serial (5 or 6 capitals and digits) are required' };
      return;
    }
    records.registerSerial(licenseNumber, serial);
    ctx.status = 201;
    ctx.body = { licenseNumber, serial };
  });

  router.get('/_stats', (ctx) => {
    ctx.body = stats;
  });
  return router;
}

function basicCredentials(header: string): [string?, string?] {
  const match = /^Basic\s+(\S+)$/i.exec(header);
  if (!match) return [];
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? [] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/** 'YYYY-MM-DD HH:MM:SS' in Korean time (UTC+9, no daylight saving), as useB writes `expires_in`. */
const kst = (date: Date): string =>
  new Date(date.getTime() + 9 * 60 * 60 * 1000).toISOString().slice(0, 19).replace('T', ' ');

const digits = (value: unknown, length: number): string | undefined => {
  const d = typeof value === 'string' ? value.replace(/\D/g, '') : '';
  return d.length === length ? d : undefined;
};
