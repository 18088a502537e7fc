import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * Stand-in for a securities firms' account-inquiry API. A holder proves an account with its trading PIN, or with an
 * auth code the firm's own app issued to them; the answer lists that holder's accounts at the firm with balances.
 */
interface SecuritiesAccount {
  firmCode: string;
  accountNo: string;
  holder: string;
  pin: string;
  balance: number;
}

export const FIRMS: Record<string, string> = {
  '240': '삼성증권',
  '230': '미래에셋증권',
  '243': '한국투자증권',
  '266': 'SK증권',
  '288': '카카오페이증권',
};

export function securitiesRouter(options: { clientSecret: string }): Router {
  const accounts: SecuritiesAccount[] = [];
  const authCodes = new Map<string, { firmCode: string; holder: string; used: boolean }>();
  const router = new Router({ prefix: '/securities/v1' });
  const body = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const fail = (ctx: Context, status: number, code: string, message: string) => {
    ctx.status = status;
    ctx.body = { code, message };
  };
  const holdings = (firmCode: string, holder: string) =>
    accounts
      .filter((a) => a.firmCode === firmCode && a.holder === holder)
      .map((a) => ({ accountNo: a.accountNo, balance: a.balance }));

  router.post('/_accounts', (ctx) => {
    const { firmCode, accountNo, holder, pin, balance = 0 } = body(ctx) as Partial<SecuritiesAccount>;
    if (
      !firmCode ||
      !FIRMS[firmCode] ||
      !accountNo ||
      !holder ||
      !pin ||
      !/^\d{4,6}$/.test(pin) ||
      !Number.isSafeInteger(balance)
    ) {
      return fail(
        ctx,
        400,
        'invalid_account',
        'firmCode (known), accountNo, holder, pin (4-6 digits) and balance are required',
      );
    }
    accounts.push({ firmCode, accountNo, holder, pin, balance });
    ctx.status = 201;
    ctx.body = { firmCode, accountNo, holder, balance };
  });
  router.post('/_auth-codes', (ctx) => {
    const { firmCode, holder } = body(ctx) as { firmCode?: string; holder?: string };
    if (!firmCode || !FIRMS[firmCode] || !holder)
      return fail(ctx, 400, 'invalid_request', 'firmCode and holder are required');
    const authCode = randomBytes(6).toString('hex').toUpperCase();
    authCodes.set(authCode, { firmCode, holder, used: false });
    ctx.status = 201;
    ctx.body = { authCode };
  });

  router.post('/verify', (ctx) => {
    if (ctx.get('authorization') !== `Bearer ${options.clientSecret}`)
      return fail(ctx, 401, 'unauthorized', 'client secret required');
    const input = body(ctx) as {
      method?: string;
      firmCode?: string;
      holder?: string;
      accountNo?: string;
      pin?: string;
      authCode?: string;
    };
    if (!input.firmCode || !FIRMS[input.firmCode] || !input.holder)
      return fail(ctx, 400, 'invalid_request', 'firmCode (known) and holder are required');
    if (input.method === 'pin') {
      const account = accounts.find(
        (a) => a.firmCode === input.firmCode && a.accountNo === input.accountNo && a.holder === input.holder,
      );
      if (!account || account.pin !== input.pin)
        return fail(ctx, 403, 'verification_failed', 'account and PIN do not match');
    } else if (input.method === 'auth_code') {
      const code = authCodes.get(String(input.authCode));
      if (!code || code.used || code.firmCode !== input.firmCode || code.holder !== input.holder)
        return fail(ctx, 403, 'verification_failed', 'unknown or used auth code');
      code.used = true;
    } else {
      return fail(ctx, 400, 'invalid_request', 'method is pin or auth_code');
    }
    ctx.body = {
      firmCode: input.firmCode,
      firmName: FIRMS[input.firmCode],
      accounts: holdings(input.firmCode, input.holder),
    };
  });
  return router;
}
