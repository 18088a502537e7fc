import type { Context } from 'koa';
import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import { transferApproval, type TransferService } from './service';
import * as S from './schemas';
import type { SpendingPolicy } from './spending-policy';
import type { AddressBook } from './address-book';
import type { Screening } from '../compliance/screening';
import { nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

const { TransferBody, TransferLimits, TransferParams, TransferView } = S;

export function transferRoutes({
  transfers,
  policy,
  addressBook,
  screening,
  vasps,
}: {
  transfers: TransferService;
  policy: SpendingPolicy;
  addressBook: AddressBook;
  screening: Screening;
  /** The VASPs we exchange Travel Rule data with, on each network. */
  vasps: { trp: Array<{ id: string; name: string }>; code: Array<{ entityId: string; name: string }> };
}): RouteSpec[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/transfer/vasps',
      operationId: 'listTravelRuleVasps',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        "The VASPs a transfer under the Travel Rule can go to: on CODE's network (name one as beneficiary_vasp) or on TRP (give the recipient's Travel Address)",
      description:
        'Needed for a transfer worth TRAVEL_RULE_THRESHOLD_KRW (1,000,000 won) or more to an account at an ' +
        'exchange: name a `code` entry by its `id` as `beneficiary_vasp`; a `trp` one is reached through the ' +
        'Travel Address the recipient gets from that VASP (`travel_address`). The list is the same for every ' +
        'user; an exchange not on it cannot receive such a transfer (422 `beneficiary-vasp-unknown` or ' +
        '`travel-address-unknown-vasp`), and a wallet the user holds the key of needs a proof of ownership ' +
        'instead (POST …/ownership/challenge).',
      responses: { 200: { description: 'The VASPs we exchange Travel Rule data with', schema: S.TravelRuleVaspList } },
      handler: async () => ({
        status: 200,
        body: {
          items: [
            ...vasps.code.map((v) => ({ id: v.entityId, name: v.name, network: 'code' as const })),
            ...vasps.trp.map((v) => ({ id: v.id, name: v.name, network: 'trp' as const })),
          ],
        },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/transfer/travel-address',
      operationId: 'getTravelAddress',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        "Our Travel Address (TRP): what a user gives a sender at another VASP with their deposit address, so that VASP's Travel Rule inquiry reaches us",
      description:
        'The same for every user: the sending VASP names the deposit address and the beneficiary in its inquiry, ' +
        'which is approved when the address is an active user account (a deployed smart account or a Solana ' +
        'wallet) that receives the asset and the name is the verified one, spaces aside. Only the VASPs we ' +
        'exchange with (`network: "trp"` in GET /api/v1/transfer/vasps) are heard at `inquiry_url`, over mutual ' +
        'TLS.',
      responses: { 200: { description: 'The Travel Address and the URL it names', schema: S.TravelAddressView } },
      handler: async () => ({ status: 200, body: transfers.travelAddress() }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/transfer/address-book',
      operationId: 'listAddressBook',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        "The caller's recipients: trusted ones receive with the PIN alone, new ones wait out their cooling-off or need a passkey approval",
      description:
        'All entries in one answer, with no paging: `status` is `trusted` once `usable_from` has passed, else ' +
        '`cooling_off`; a passkey-approved transfer to a new address adds it as trusted (`approved_by: ' +
        'passkey`). A transfer worth more than `passkey_above_krw` (GET /api/v1/transfer/limits) needs a passkey ' +
        'approval whatever the status of its recipient.',
      query: S.AddressBookQuery,
      responses: {
        200: { description: 'Address book, newest first', schema: S.AddressBookList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ user, query }, ctx) => {
        const page = await addressBook.page(user.userId, query);
        return {
          status: 200,
          body: {
            items: page.items.map((e) => addressBook.view(e)),
            next_cursor: page.nextCursor,
            has_more: page.hasMore,
          },
          headers: nextLink(ctx, page.nextCursor),
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/transfer/address-book',
      operationId: 'addRecipient',
      // A new recipient waits out its cooling-off before it can receive without a passkey: no proof to add one.
      stepUp: {
        action: 'address_book_add',
        does: 'add recipients to the address book',
        anyOf: [],
        hold: true,
        notice: null,
      },
      screens: 'address-book',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        'Add a recipient: it can receive without a passkey approval once its cooling-off (ADDRESS_COOLING_OFF_SECONDS) has passed',
      description:
        'No PIN needed: the address is screened first, and a sanctioned one is refused (422 ' +
        '`recipient-sanctioned`) and opens a compliance case. A new entry is `cooling_off` until `usable_from` ' +
        '(ADDRESS_COOLING_OFF_SECONDS, 24 h by default); until then a transfer to it needs a passkey approval ' +
        '(POST /api/v1/transfer/crypto/prepare), and a transfer so approved makes it trusted at once. An address ' +
        'already in the book answers 200 as it is: its cooling-off does not start again.',
      body: S.AddressBookBody,
      rateLimits: [{ rule: 'address-book', key: ({ user }) => user.userId }],
      responses: {
        201: { description: 'Added, cooling off until usable_from', schema: S.AddressBookEntryView },
        200: { description: 'Already in the address book (unchanged)', schema: S.AddressBookEntryView },
        409: { description: 'Address book full (200 recipients)' },
        422: {
          description:
            'Invalid address for the network, or a sanctioned address (recipient-sanctioned: screened against the OFAC SDN list and the screening provider)',
        },
        429: { description: 'Too many requests (Retry-After)' },
        503: {
          description:
            'Network not configured, or the address cannot be screened now (screening-unavailable, Retry-After)',
        },
      },
      handler: async ({ user, body }) => {
        const address = addressBook.normalize(body.network, body.address);
        await screening.assertNotSanctioned(user.userId, body.network, address, { context: 'address-book' });
        const { entry, created } = await addressBook.add(user.userId, body.network, address);
        return { status: created ? 201 : 200, body: addressBook.view(entry) };
      },
    }),

    defineRoute({
      method: 'delete',
      path: '/api/v1/transfer/address-book/:networkId/:address',
      operationId: 'removeRecipient',
      stepUp: {
        action: 'address_book_remove',
        does: 'remove recipients from the address book',
        anyOf: [],
        hold: true,
        notice: null,
      },
      tags: ['Transfer'],
      auth: 'bearer',
      summary: 'Remove a recipient; adding it again starts a new cooling-off',
      description:
        'No PIN needed. The entry goes with its ownership proof: the address is then a new recipient, as if ' +
        'never added, and a self-custody transfer to it under the Travel Rule needs a new proof. Transfers ' +
        'already recorded are not affected.',
      params: S.AddressBookParams,
      responses: {
        204: { description: 'Removed' },
        404: { description: 'Not in the address book' },
        422: { description: 'Invalid address for the network' },
        503: { description: 'Network not configured' },
      },
      handler: async ({ user, params }) => {
        await addressBook.remove(
          user.userId,
          params.networkId,
          addressBook.normalize(params.networkId, params.address),
        );
        return { status: 204 };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/transfer/address-book/:networkId/:address/ownership/challenge',
      operationId: 'ownershipChallenge',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        "A message to sign with a self-custody address's key, proving control of it (needed under the Travel Rule for addresses no provider hosts)",
      description:
        'For an address in the address book whose key the user holds (a self-custody wallet), before a transfer ' +
        'to it worth TRAVEL_RULE_THRESHOLD_KRW or more without `travel_address` or `beneficiary_vasp` (else 422 ' +
        '`address-ownership-required`). Sign `message` exactly as answered (EVM: EIP-191 `personal_sign`; ' +
        'SOLANA: ed25519 over its UTF-8 bytes) and send the signature to POST …/ownership before `expires_at`; a ' +
        'new challenge replaces the previous one.',
      params: S.AddressBookParams,
      rateLimits: [{ rule: 'address-book', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'The challenge (valid 15 minutes)', schema: S.OwnershipChallenge },
        404: { description: 'Not in the address book' },
        422: { description: 'Invalid address for the network' },
        429: { description: 'Too many requests (Retry-After)' },
        503: { description: 'Network not configured' },
      },
      handler: async ({ user, params }) => {
        const address = addressBook.normalize(params.networkId, params.address);
        const { message, expiresAt } = await addressBook.ownershipChallenge(user.userId, params.networkId, address);
        return {
          status: 200,
          body: { network: params.networkId, address, message, expires_at: expiresAt.toISOString() },
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/transfer/address-book/:networkId/:address/ownership',
      operationId: 'proveOwnership',
      tags: ['Transfer'],
      auth: 'bearer',
      summary: 'Prove control of a self-custody address: the challenge signed by its key; kept with the entry',
      description:
        'The signature must be by the address itself over the current challenge (POST …/ownership/challenge); ' +
        'the message and signature are kept with the entry, and from then on the address passes the Travel Rule ' +
        'check for self-custody transfers, while the entry stays. A challenge is used once: after a proof, or ' +
        'past its `expires_at`, ask for a new one (409 `ownership-challenge-expired`). The proof does not ' +
        'shorten the cooling-off.',
      params: S.AddressBookParams,
      body: S.OwnershipProofBody,
      rateLimits: [{ rule: 'address-book', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Proved (ownership_proved_at set)', schema: S.AddressBookEntryView },
        404: { description: 'Not in the address book' },
        409: { description: 'No current challenge (ownership-challenge-expired)' },
        422: {
          description:
            "Invalid address, or a signature that is not the address's over the challenge (ownership-proof-invalid)",
        },
        429: { description: 'Too many requests (Retry-After)' },
        503: { description: 'Network not configured' },
      },
      handler: async ({ user, params, body }) => {
        const address = addressBook.normalize(params.networkId, params.address);
        return {
          status: 200,
          body: addressBook.view(
            await addressBook.proveOwnership(user.userId, params.networkId, address, body.signature),
          ),
        };
      },
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/transfer/crypto/prepare',
      operationId: 'prepareCryptoTransfer',
      stepUp: { action: 'transfer_prepare', does: 'send funds', anyOf: [], hold: true, notice: null },
      screens: 'prepare',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        'Before a transfer: its value in won, whether a passkey approval is required (new recipient, above the threshold) and the passkey slot bound to it',
      description:
        'Send the same fields to execute with the same Idempotency-Key, the PIN and, when required, `signing.items` holding this slot signed by a passkey. Nothing is recorded.',
      headers: S.TransferPrepareHeaders,
      body: S.TransferPrepareBody,
      rateLimits: [{ rule: 'transfer-prepare', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'What the transfer needs', schema: S.TransferPrepared },
        422: {
          description:
            'Invalid address, unknown token, bad amount, over the per-transfer limit, or a sanctioned recipient (recipient-sanctioned)',
        },
        429: { description: 'Too many requests (Retry-After)' },
        503: {
          description:
            'Network not configured, no price in won (price-unavailable), or the recipient cannot be screened now (screening-unavailable)',
        },
      },
      handler: async ({ user, body, headers }) => ({
        status: 200,
        body: await transfers.prepare(user.userId, body, headers['idempotency-key']),
      }),
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/transfer/limits',
      operationId: 'getTransferLimits',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        "The caller's crypto transfer limits in won, what today's transfers used and when the day resets (00:00 KST)",
      description:
        'Read it to show what can be sent: `remaining_today_krw` is `daily_krw` less `used_today_krw`, which ' +
        'counts every transfer of the Korean day that did not fail (in flight and held ones included) at its won ' +
        'value when requested. The limits are those an operator set for this user (`npm run limits`), else the ' +
        'defaults; POST /api/v1/transfer/crypto/prepare tells what a transfer is worth now (`value_krw`).',
      responses: { 200: { description: 'Limits and usage', schema: TransferLimits } },
      handler: async ({ user }) => ({ status: 200, body: await policy.view(user.userId) }),
    }),

    defineRoute({
      method: 'post',
      path: '/api/v1/transfer/crypto/execute',
      operationId: 'executeCryptoTransfer',
      stepUp: {
        action: 'transfer',
        does: 'send funds',
        binds: ({ body }, ctx) => {
          const { action: _action, ...bound } = transferApproval(body, ctx.get('idempotency-key') || null);
          return bound;
        },
        anyOf: [['pin']],
        checkedBy:
          'the transfer service, after its checks (a transfer that cannot pass costs no PIN attempt; the approval names beneficiary_name, travel_address and beneficiary_vasp only when given, and the Idempotency-Key or null); to a recipient in its cooling-off or above TRANSFER_PASSKEY_ABOVE_KRW, a passkey past its hold too',
        hold: true,
        notice: { event: 'transfer.submitted', mailed: false },
      },
      screens: 'execute',
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        'Transfer coins or tokens to an external address, confirmed by PIN; answers once the transaction is included in a block (or 202 while it runs)',
      description:
        'Send the PIN as a JWE bound to this transfer (its fields and Idempotency-Key) and, when POST ' +
        '/api/v1/transfer/crypto/prepare answered `passkey_approval: "required"`, its passkey slot signed in ' +
        '`signing.items`; the per-transfer limit, screening, the passkey approval and the Travel Rule fields are ' +
        'checked before the PIN, so a refusal there costs no attempt. The answer waits up to ' +
        'TRANSFER_WAIT_SECONDS (30) for the transaction to be included (200 `confirmed`) or the transfer to fail ' +
        '(200 `failed` with `error`, or a problem answer when it was refused before signing), else answers 202 ' +
        'with the Location to poll, as for a slow chain, a Travel Rule exchange still waiting for the other VASP ' +
        'or a transfer `held_for_review` until an operator decides. With an Idempotency-Key the transfer id ' +
        'follows the key and a retry answers the stored result, a 202 included, so poll the Location rather than ' +
        'resend; `tx_hash` and `fee` are empty strings until known.',
      body: TransferBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: {
          description: 'Transfer settled for now: included in a block (status confirmed) or failed',
          schema: TransferView,
        },
        202: { description: 'Still running: poll the Location', schema: TransferView, headers: LOCATION_HEADER },
        409: {
          description:
            'EVM: no deployed account with transfers enabled on the network; SOLANA: wallet not opened; or no PIN set',
        },
        422: {
          description:
            'Invalid address, unknown token, bad amount, insufficient balance (fees and rent included), over a limit (limit-per-transfer, limit-daily), a passkey approval missing (recipient-cooling-off, passkey-required) or refused, no sponsored gas left today (gas-budget-exceeded), a sanctioned recipient (recipient-sanctioned: checked before the PIN, and again before signing), a transfer that would fail, or wrong PIN',
        },
        423: {
          description:
            'PIN locked after too many wrong PINs: for PIN_LOCK_SECONDS (pin-locked, Retry-After), or until a reset (pin-reset-required)',
        },
        503: {
          description:
            'Network not configured, its RPC unavailable, no price in won for the token (price-unavailable), or the recipient cannot be screened now (screening-unavailable, Retry-After)',
        },
      },
      handler: async ({ body, user, stepUp }, ctx?: Context) => {
        const key = ctx?.get('idempotency-key') || null;
        const transferId = idForRequest('tr', user.userId, key ?? undefined);
        const { final, transfer } = await transfers.execute(user.userId, transferId, body, key, stepUp!, user.session);
        return {
          status: final ? 200 : 202,
          body: transfer,
          headers: { location: `/api/v1/transfer/crypto/${transferId}` },
        };
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/transfer/crypto/:transferId',
      operationId: 'getCryptoTransfer',
      tags: ['Transfer'],
      auth: 'bearer',
      summary: 'A crypto transfer and its status',
      description:
        'Poll it after a 202 from POST /api/v1/transfer/crypto/execute (its Location), or follow the ' +
        '`transfer.*` events, until `status` is `confirmed` or `failed` (`error` says why); `held_for_review` ' +
        'waits for an operator with no time limit. A confirmed transfer becomes `finalized` once deep enough ' +
        '(EVM: NETWORKS.<id>.confirmations blocks; SOLANA: finalized commitment), and until then a reorg can put ' +
        'it back to `submitted`. `tx_hash` and `fee` are empty strings until known.',
      params: TransferParams,
      responses: {
        200: { description: 'Transfer', schema: TransferView },
        404: { description: 'No such transfer for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await transfers.get(user.userId, params.transferId) }),
    }),
  ];
}
