import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { GATEWAY, RSP, type GatewayRefusal, type RspCode } from './codes';
import { koreanDate, koreanTimestamp } from './korean-time';
import type { Grant, Tokens } from './tokens';

/** Which answer this is and when it was made: api_tran_id (a UUID, as the test bed sends) and api_tran_dtm. */
export const stamp = (now: Date) => ({ api_tran_id: randomUUID(), api_tran_dtm: koreanTimestamp(now) });

/** The leading fields of every v2.0 answer (research §1.4). */
export function envelope(now: Date, rspCode: string, rspMessage?: string) {
  return {
    ...stamp(now),
    rsp_code: rspCode,
    rsp_message: rspMessage ?? RSP[rspCode as RspCode] ?? '',
  };
}

/** A v2.0 answer: business outcomes, failures included, come back as HTTP 200 with their rsp_code. */
export function answer(ctx: Context, body: object): void {
  ctx.status = 200;
  ctx.body = body;
  ctx.type = 'application/json; charset=UTF-8';
}

/** A refusal by the gateway before any business: an HTTP error status with an (assumed) O-code. */
export function refuse(ctx: Context, refusal: GatewayRefusal, detail?: string, extra: object = {}): void {
  ctx.status = refusal.status;
  ctx.body = {
    ...extra,
    rsp_code: refusal.rsp_code,
    rsp_message: detail ? `${refusal.rsp_message}: ${detail}` : refusal.rsp_message,
  };
  ctx.type = 'application/json; charset=UTF-8';
}

/**
 * Lets a v2.0 call through only with a live Bearer token that `fits` (its kind and scope); otherwise HTTP 401 O0002
 * (the code is assumed, see codes.ts) with the common envelope.
 */
export function bearerToken(tokens: Tokens, now: () => Date, fits: (grant: Grant) => boolean) {
  return async (ctx: Context, next: Next): Promise<void> => {
    const presented = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
    const grant = presented ? tokens.bearer(presented) : undefined;
    if (!grant || !fits(grant)) {
      const detail = presented ? 'token unknown, expired or not for this API' : 'no Bearer token';
      return refuse(ctx, GATEWAY.invalidToken, detail, stamp(now()));
    }
    ctx.state.grant = grant;
    await next();
  };
}
export const grantOf = (ctx: Context): Grant => ctx.state.grant as Grant;
export const hasScope = (scope: string) => (grant: Grant) => (grant.scopes as string[]).includes(scope);

/** The JSON body of a POST, or undefined when the call was not `application/json` (the spec's Content-Type). */
export function jsonBody(ctx: Context): unknown {
  if (!ctx.is('application/json')) return undefined;
  return (ctx.request as unknown as { body?: unknown }).body;
}

/**
 * bank_tran_id (거래고유번호(참가기관), research §9.1): our institution code (10), `U` (made by the institution), then
 * 9 upper-case letters or digits; unique within one Korean calendar day across every API that takes one.
 */
export function createBankTranIds(institutionCode: string, now: () => Date) {
  const usedOn = new Map<string, Set<string>>();
  return {
    wellFormed: (id: string) =>
      id.length === 20 && id.startsWith(`${institutionCode}U`) && /^[A-Z0-9]{9}$/.test(id.slice(11)),
    /**
     * Marks the id used today; false when it already was. Callers claim it once the request is well-formed, before
     * any business check: a call refused later (A0322, A0304, A0307…) has still spent its id. When KFTC records an
     * id is not documented; this is the emulator's choice, the strict one.
     */
    claim: (id: string): boolean => {
      const today = koreanDate(now());
      for (const day of usedOn.keys()) if (day !== today) usedOn.delete(day);
      const used = usedOn.get(today) ?? new Set<string>();
      usedOn.set(today, used);
      if (used.has(id)) return false;
      used.add(id);
      return true;
    },
  };
}
export type BankTranIds = ReturnType<typeof createBankTranIds>;
