import type { Context } from 'koa';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { idForRequest } from '../http/idempotency';
import type { TransferService } from './service';
import * as S from './schemas';
import type { SpendingPolicy } from './spending-policy';
import type { AddressBook } from './address-book';
import type { Screening } from '../compliance/screening';

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
      responses: { 200: { description: 'Address book, newest first', schema: S.AddressBookList } },
      handler: async ({ user }) => ({
        status: 200,
        body: { items: (await addressBook.list(user.userId)).map((e) => addressBook.view(e)) },
      }),
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
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        'Add a recipient: it can receive without a passkey approval once its cooling-off (ADDRESS_COOLING_OFF_SECONDS) has passed',
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
        anyOf: [['pin']],
        checkedBy:
          'the transfer service, after its checks (a transfer that cannot pass costs no PIN attempt): the PIN bound to the transfer and its Idempotency-Key; to a recipient in its cooling-off or above TRANSFER_PASSKEY_ABOVE_KRW, a passkey past its hold too',
        hold: true,
        notice: { event: 'transfer.submitted', mailed: false },
      },
      tags: ['Transfer'],
      auth: 'bearer',
      summary:
        'Transfer coins or tokens to an external address, confirmed by PIN; answers once the transaction is final (or 202 while it runs)',
      body: TransferBody,
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Transfer final (status confirmed or failed)', schema: TransferView },
        202: { description: 'Still running: poll the Location', schema: TransferView },
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
      handler: async ({ body, user }, ctx?: Context) => {
        const key = ctx?.get('idempotency-key') || null;
        const transferId = idForRequest('tr', user.userId, key ?? undefined);
        const { final, transfer } = await transfers.execute(user.userId, transferId, body, key, user.session);
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
      params: TransferParams,
      responses: {
        200: { description: 'Transfer', schema: TransferView },
        404: { description: 'No such transfer for this user' },
      },
      handler: async ({ params, user }) => ({ status: 200, body: await transfers.get(user.userId, params.transferId) }),
    }),
  ];
}
