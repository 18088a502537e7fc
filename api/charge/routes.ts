import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import type { ChargeService } from './service';
import * as S from './schemas';

export interface ChargeRouteDeps {
  charges: ChargeService;
}

/** Charging from a connected bank account, its status, the bank's settlement webhook and the ledger balances. */
export function chargeRoutes({ charges }: ChargeRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/charge/execute',
      operationId: 'executeCharge',
      tags: ['Charge'],
      auth: 'bearer',
      summary:
        "Charge the user's balance from a connected bank account (asynchronous: poll GET /api/v1/charge/{chargeId})",
      body: S.ChargeBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Charge started', schema: S.ChargeAccepted },
        422: {
          description:
            'Source not connected, two accounts at the bank named (source-ambiguous: name one by bank_account_id), no consent at the bank yet (bank-consent-required names POST /api/v1/bank/consent), unsupported currency, invalid amount or over the limit',
        },
      },
      handler: async ({ body, user }, ctx?: Context) => {
        const chargeId = idForRequest('chg', user.userId, ctx?.get('idempotency-key') || undefined);
        const accepted = await charges.start(user.userId, chargeId, body);
        return { status: 202, body: accepted, headers: { location: `/api/v1/charge/${chargeId}` } };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/charge/:chargeId',
      operationId: 'getCharge',
      tags: ['Charge'],
      auth: 'bearer',
      summary: 'Status of a charge',
      params: S.ChargeParams,
      responses: {
        200: { description: 'Charge', schema: S.ChargeView },
        404: { description: 'No such charge for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await charges.view(user.userId, params.chargeId) }),
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/balance',
      operationId: 'getBalance',
      tags: ['Charge'],
      auth: 'bearer',
      summary: "The caller's balances in the ledger (what charges credited)",
      responses: { 200: { description: 'Balances', schema: S.BalanceView } },
      handler: async ({ user }) => ({ status: 200, body: await charges.balances(user.userId) }),
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/bank/webhooks/withdrawals',
      operationId: 'bankWithdrawalWebhook',
      tags: ['Bank'],
      auth: 'none',
      summary:
        'Deprecated: a settlement report of a bank that calls back (X-Bank-Signature: sha256=<HMAC of the body>), acknowledged and not acted on: open banking has no such call, a charge follows what the bank answers it (the withdrawal, transfer/result)',
      deprecated: { since: new Date('2026-11-27T00:00:00Z'), sunset: new Date('2027-05-31T00:00:00Z') },
      body: S.WithdrawalWebhookBody,
      responses: {
        200: { description: 'Received', schema: S.WebhookAck },
        401: { description: 'Missing or wrong signature' },
        404: { description: 'No charge with this reference' },
      },
      handler: async ({ body }, ctx?: Context) => {
        const rawBody = (ctx!.request as unknown as { rawBody?: string }).rawBody ?? '';
        return { status: 200, body: await charges.settle(rawBody, ctx!.get('x-bank-signature'), body) };
      },
    }),
  ];
}
