import type { Context } from 'koa';
import type { Orm } from '../../db/orm';
import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import { nextLink } from '../http/pagination';
import { activeUser } from '../common/active-user';
import { PAGE_LINK_HEADER } from '../common/schemas';
import type { PayoutService } from './service';
import * as S from './schemas';

export interface PayoutRouteDeps {
  orm: Orm;
  payouts: PayoutService;
}

/** Paying won out of the balance to the person's own verified bank account, and what became of each payout. */
export function payoutRoutes({ orm, payouts }: PayoutRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/payouts',
      operationId: 'createPayout',
      stepUp: {
        action: 'payout',
        does: 'pay won out to a bank account',
        // The amount and the account: an approval seen in transit pays no other amount, to no other account.
        binds: ({ body }) => ({ amount: body.amount, bank_account_id: body.bank_account_id }),
        anyOf: [['pin'], ['passkey']],
        hold: true,
        notice: { event: 'payout.processing', mailed: true },
      },
      tags: ['Charge'],
      auth: 'bearer',
      summary:
        'Pay won from the balance to one of your own verified bank accounts (asynchronous: poll GET /api/v1/payouts/{payoutId})',
      description:
        'The access token alone is not enough: send `pin` bound to ' +
        '`{"action":"payout","amount":"<amount>","bank_account_id":"<bank_account_id>"}` or a `passkeyAssertion` for ' +
        'that request; a device in its new-device hold cannot pay out. The account must be one of yours verified ' +
        'with 1 KRW, and the bank is asked again (real-name inquiry) whether it is held in your verified name and ' +
        'birth date. At most PAYOUT_MAX_AMOUNT_KRW (2,000,000) a payout, PAYOUT_DAILY_LIMIT_KRW (5,000,000) a ' +
        'Korean day and 20 payouts a day (`payout`, 429). The amount leaves the balance at once (a second payout over what is left is refused 422 ' +
        '`insufficient-balance` with the `balance`); the workflow payout-<payout_id> asks the bank to deposit it ' +
        '(open banking transfer/deposit/acnt_num). A refusal gives the amount back to the balance; an answer in ' +
        'doubt is asked about (transfer/result) and never sent twice. Send an Idempotency-Key: the payout id is ' +
        'derived from it, so a retry finds the same payout. You are mailed, and `payout.*` events follow it.',
      body: S.PayoutBody,
      rateLimits: [
        { rule: 'pin-attempt', key: ({ user }) => user.userId },
        { rule: 'payout', key: ({ user }) => user.userId },
      ],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Payout accepted', schema: S.PayoutAccepted, headers: LOCATION_HEADER },
        409: { description: 'No PIN set, or the approval already used' },
        422: {
          description:
            'No approval (step-up-required), a wrong PIN; an account that is not one of your verified ones (payout-account-not-verified), not held in your name (account-holder-mismatch) or unknown to the bank; more than the balance (insufficient-balance, with `balance`); over a limit (payout-limit-exceeded, payout-daily-limit-exceeded)',
        },
        423: { description: 'PIN locked (pin-locked, pin-reset-required)' },
        429: { description: 'Too many requests (Retry-After)' },
        503: { description: 'The bank is not answering the real-name inquiry' },
      },
      handler: async ({ body, user }, ctx?: Context) => {
        const found = await activeUser(orm, user.userId);
        const payoutId = idForRequest('po', user.userId, ctx?.get('idempotency-key') || undefined);
        const { payout, balance } = await payouts.start(found, payoutId, {
          bankAccountId: body.bank_account_id,
          amount: BigInt(body.amount),
          purpose: 'request',
        });
        return {
          status: 202,
          body: { payout_id: payout.payoutId, status: payout.status, balance: balance.toString() },
          headers: { location: `/api/v1/payouts/${payout.payoutId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/payouts/:payoutId',
      operationId: 'getPayout',
      tags: ['Charge'],
      auth: 'bearer',
      summary: 'A payout and what the bank made of it',
      description:
        'Poll it until `status` leaves `processing` (the bank is asked again 5 s to 5 min apart). `failed` says ' +
        "why in `failure_reason` and the bank's code in `failure_code`; the amount is back in the balance. " +
        '`needs_review` is not final: the bank has not said what became of the deposit; it is never sent ' +
        'again on its own, and the balance is given back only when the bank refuses it or, for a send the ' +
        'centre has no record of, when an operator decides so.',
      params: S.PayoutParams,
      responses: {
        200: { description: 'Payout', schema: S.PayoutView },
        404: { description: 'No such payout of yours' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await payouts.view(user.userId, params.payoutId) }),
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/payouts',
      operationId: 'listPayouts',
      tags: ['Charge'],
      auth: 'bearer',
      summary: 'Your payouts, newest first; paginated by cursor',
      description:
        'Every payout, whatever its status (the transaction history lists only what moved the balance). For the ' +
        'next page pass `next_cursor` back as `cursor`.',
      query: S.PayoutQuery,
      responses: {
        200: { description: 'Payouts', schema: S.PayoutList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this API did not return' },
      },
      handler: async ({ query, user }, ctx) => {
        const page = await payouts.list(user.userId, query);
        return { status: 200, headers: nextLink(ctx, page.next_cursor), body: page };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/v1/payouts/:payoutId/decision',
      operationId: 'decidePayout',
      tags: ['Compliance'],
      auth: 'operator',
      summary:
        'An operator decides a payout the open banking centre has no record of: send it again, or give the amount back',
      description:
        'Only for a payout in `needs_review` whose bank status is `not_received` (409 otherwise). The decision is ' +
        'signalled to workflow payout-<id>, which asks the centre once more before it acts: a send that landed ' +
        'since completes the payout whatever was decided, and one refused since fails it. `resend` sends the ' +
        'deposit under a new bank_tran_id (the first is still asked about: if both pay, the payout is in review ' +
        'again); `reverse` gives the amount back to the balance. The operator and reason stay in the workflow ' +
        'history.',
      params: S.PayoutParams,
      body: S.PayoutDecisionBody,
      responses: {
        200: { description: 'Signalled', schema: S.PayoutDecisionAccepted },
        404: { description: 'No such payout' },
        409: { description: 'The payout does not wait for a decision (payout-not-decidable)' },
      },
      handler: async ({ params, body, operator }) => ({
        status: 200,
        body: await payouts.decide(params.payoutId, operator, body),
      }),
    }),
  ];
}
