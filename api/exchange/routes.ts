import type { Holdings } from '../common/holdings';
import type { QuoteEngine } from './quote';
import type { Context } from 'koa';
import { swapApproval, type SwapService } from './swap-service';
import { problems } from '../http/problems';
import { idForRequest } from '../http/idempotency';
import { defineRoute, LOCATION_HEADER, type RouteSpec } from '../http/route-table';
import {
  Quote,
  QuoteBody,
  SwapAccepted,
  SwapExecuteBody,
  SwapParams,
  SwapPrepareBody,
  SwapPrepared,
  SwapView,
} from './schemas';

export interface ExchangeRouteDeps {
  engine: QuoteEngine;
  holdings: Holdings;
  swaps: SwapService;
}

export function exchangeRoutes({ engine, holdings, swaps }: ExchangeRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/exchange/quote',
      operationId: 'exchangeQuote',
      tags: ['Exchange'],
      auth: 'bearer',
      summary: "Exchange quote: the best route on the network's DEX, price impact, slippage, executability",
      description:
        "Read from the network's exchange at one block (EVM: Uniswap v3's QuoterV2 over direct routes at each fee " +
        "tier and two hops through the configured intermediaries; SOLANA: Jupiter's Swap API). Nothing is reserved. " +
        "`quoteId` carries the quote's terms (sealed, bound to the caller) until `expiresAt`: a swap names it. " +
        '`minimumReceived` is the output less the slippage (exactInput), `maximumSent` the input plus it (exactOutput). ' +
        "`executable` is false with `limit_exceeded` when what it may spend, in won at the hour's price, would take " +
        "the person's swaps of the Korean day past SWAP_DAILY_LIMIT_KRW, else with `insufficient_balance` when it is " +
        'over the balance of the user on chain (zero without an account there). No price in won: 503.',
      body: QuoteBody,
      rateLimits: [{ rule: 'exchange-quote', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Quote', schema: Quote },
        404: { description: 'No exchange on this network' },
        422: { description: 'Unknown token, bad amount, no route or not enough liquidity' },
        503: { description: "The network's chain node did not answer (Retry-After)" },
      },
      handler: async ({ body, user }) => {
        return {
          status: 200,
          body: await engine.quote(body, user.userId, () =>
            holdings.balanceOf(user.userId, body.networkId, body.source),
          ),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/exchange/swaps/prepare',
      operationId: 'prepareSwap',
      stepUp: { action: 'swap', does: 'swap tokens', anyOf: [], hold: true, notice: null },
      tags: ['Exchange'],
      auth: 'bearer',
      summary: "Prepare a swap of a quote on an EVM network: one user operation of the person's account to sign",
      description:
        'Takes the quoteId of POST /v1/exchange/quote before its expiresAt (else 422 stale-quote) and answers one ' +
        'slot for the owner key of the account to sign (and a passkey slot when the person has passkeys): one user ' +
        "operation that approves the router for exactly the input (or the quote's maximumSent), swaps through the " +
        "network's Uniswap v3 SwapRouter on the quote's route with its minimumReceived (or maximumSent) and sets " +
        'the approval back to zero (the coin goes as value, no approval). Gas is sponsored within the daily budget; ' +
        'the bundler simulates it here, so a swap that would already fail is 422 user-operation-refused. EVM ' +
        'networks with a deployed account only (409 otherwise).',
      body: SwapPrepareBody,
      rateLimits: [{ rule: 'sponsored-prepare', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Signing container and the swap it prepares', schema: SwapPrepared },
        404: { description: 'No such quote for this user' },
        409: { description: 'No deployed account on the network, or a network whose swaps are not made here' },
        422: {
          description: 'The quote expired (stale-quote), the swap would fail, or the gas budget would be exceeded',
        },
        429: { description: 'Too many prepares (Retry-After)' },
        503: { description: 'No price of the coin in won, so gas cannot be sponsored; or the chain did not answer' },
      },
      handler: async ({ body, user }) => ({ status: 200, body: await swaps.prepare(user.userId, body.quoteId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/exchange/swaps',
      operationId: 'executeSwap',
      stepUp: {
        action: 'swap',
        does: 'swap tokens',
        binds: ({ body }, ctx) => swapApproval(body.quoteId, ctx.get('idempotency-key') || null),
        anyOf: [['owner_key'], ['pin']],
        checkedBy:
          'the swap service: EVM, the owner key over the prepared operation (then the chain); SOLANA, the PIN bound to the quote (quote_sha256) and the Idempotency-Key, after the quote, the wallet, the balance and the daily limit are checked',
        hold: true,
        notice: { event: 'swap.completed', mailed: false },
      },
      tags: ['Exchange'],
      auth: 'bearer',
      summary:
        'Execute a swap: EVM with the signed slots of its prepare, SOLANA with its quote and the PIN (202 and a swap to poll)',
      description:
        'EVM: send the slots of the prepare answer (`signing`), the on-chain one signed by the owner key. The ' +
        'workflow swap-<swapId> simulates the swap at the newest block first and refuses it without sending it when ' +
        'it would revert there (the pool moved past the signed minimum: failed with stale-quote, no gas spent); ' +
        'otherwise the bundler sends it. The same signed slot sent again is accepted and starts nothing new. ' +
        'SOLANA (no prepare): send `quoteId` and `pin`, the PIN as a JWE whose request is {"action":"swap",' +
        '"quote_sha256","idempotency_key"}; the quote, the wallet, the balance (SOL: with SOLANA_SWAP_MAX_FEE_LAMPORTS ' +
        'for fees) and the daily limit are checked before the PIN, so a swap that cannot pass costs no attempt. The ' +
        'swap id follows the Idempotency-Key. The worker asks Jupiter for the transaction, simulates it signed by the ' +
        "person's custodial wallet and refuses it unsigned unless the wallet pays its fee, every program is on the " +
        "network's allow-list and the only changes to the person's accounts are the input going out and at least " +
        "the quote's minimum coming in (failed, `unexpected-effect: …` or `stale-quote: …`). Poll GET " +
        '/v1/exchange/swaps/{swapId} (the Location): completed with `received`, read from the chain ' +
        '(`swap.completed`), or failed (`swap.failed`).',
      body: SwapExecuteBody,
      idempotency: { required: true, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        202: { description: 'Accepted', schema: SwapAccepted, headers: LOCATION_HEADER },
        404: { description: 'Unknown slot or quote' },
        409: {
          description:
            'Slot already used; SOLANA: wallet not opened (wallet-not-opened) or no PIN set; an EVM quote sent without slots',
        },
        410: { description: 'Prepared swap expired; ask for a new quote' },
        422: {
          description:
            'Neither slots nor a quote, or both (swap-execution-ambiguous); signature invalid or slots that do not match what was prepared; SOLANA: the quote expired (stale-quote), insufficient-balance, swap-daily-limit-exceeded, the PIN missing (step-up-required) or wrong',
        },
        423: { description: 'PIN locked (pin-locked, pin-reset-required)' },
        503: { description: 'No price in won for the input (price-unavailable) or the chain did not answer' },
      },
      handler: async ({ body, user, stepUp }, ctx?: Context) => {
        if ((body.signing === undefined) === (body.quoteId === undefined))
          throw problems.unprocessable(
            'swap-execution-ambiguous',
            'Send `signing` (EVM: the signed slots of POST /v1/exchange/swaps/prepare) or `quoteId` with `pin` (SOLANA), one of them',
          );
        const idempotencyKey = ctx?.get('idempotency-key') ?? '';
        const swapId = body.signing
          ? await swaps.execute(user.userId, body.signing.items)
          : await swaps.executeSolana(user.userId, {
              quoteId: body.quoteId!,
              idempotencyKey,
              swapId: idForRequest('swap', user.userId, idempotencyKey),
              approve: stepUp!,
            });
        return {
          status: 202,
          body: { swapId, status: 'submitted' },
          headers: { location: `/v1/exchange/swaps/${swapId}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/exchange/swaps/:swapId',
      operationId: 'getSwap',
      tags: ['Exchange'],
      auth: 'bearer',
      summary: 'A swap: what its quote promised, its status, and what it really took and gave',
      description:
        '`quoted` is what the quote committed to (the signed minimum or maximum among it); `received` is what the ' +
        "swap took and gave, read from the pools' Swap events in its transaction, once completed. `status`: submitted " +
        'until it lands (completed) or is refused (failed, `error` says why: `stale-quote: …` when the simulation ' +
        'before sending found the pool moved past the minimum, nothing sent); stalled and replaced as every signed ' +
        'operation.',
      params: SwapParams,
      responses: {
        200: { description: 'The swap', schema: SwapView },
        404: { description: 'No such swap for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await swaps.view(user.userId, params.swapId) }),
    }),
  ];
}
