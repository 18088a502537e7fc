import type { Context } from 'koa';
import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
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
      description:
        'Needs a connected account (POST /api/v1/bank/send-won) that the consent at the bank covers (POST ' +
        '/api/v1/bank/consent); KRW only, in whole won, at most CHARGE_MAX_AMOUNT_KRW (2,000,000) a charge. The ' +
        'answer is `processing` with a `Location`: the workflow charge-<chargeId> asks the bank for the ' +
        'withdrawal and credits the balance only once the bank confirms it, so poll GET ' +
        '/api/v1/charge/{chargeId} or follow the `charge.*` events. Send an Idempotency-Key: the charge id is ' +
        'derived from it, so a retry after a lost answer finds the same charge and the money is withdrawn once.',
      body: S.ChargeBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Charge started', schema: S.ChargeAccepted, headers: LOCATION_HEADER },
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
      description:
        'Poll it until `status` leaves `processing` (an answer of the bank in doubt is never guessed: the bank ' +
        'is asked again, 5 s to 5 min apart): `completed` means the balance was credited; `failed` says why in ' +
        '`failure_reason`, e.g. `insufficient_funds`, or `credit_failed_refunded` when the money went back to ' +
        'the account. `needs_review` credits nothing and is not final: the bank answered something undocumented ' +
        'and is asked until it says completed or refused, or a refund it refused waits for an operator.',
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
      description:
        'KRW is always listed, at 0 before the first charge; only completed charges count, so a charge ' +
        '`processing` or in `needs_review` adds nothing yet. `amount` is a plain decimal string for arithmetic, ' +
        '`display` the formatted one. Coins and tokens are not here: they are on chain (GET ' +
        '/v1/wallet/networks/{networkId}/wallet).',
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
