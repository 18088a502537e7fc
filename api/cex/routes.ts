import { defineRoute, type RouteSpec, LOCATION_HEADER } from '../http/route-table';
import { CEX_KEY_NOTICE, CEX_TOKEN_NOTICE, cexAccountView, type CexAccountService } from './service';
import {
  CexAccountList,
  CexAccountQuery,
  CexAccountParams,
  CexAccountConnected,
  CexAccountView,
  CexAuthorization,
  CexAuthorizeBody,
  CexConnectBody,
} from './schemas';
import { nextLink } from '../http/pagination';
import { PAGE_LINK_HEADER } from '../common/schemas';

/** Exchange (CEX) accounts: OAuth 2.0 + PKCE authorization, connection, and the connected accounts. */
export function cexRoutes({ accounts }: { accounts: CexAccountService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/asset/cex-accounts/authorize',
      operationId: 'authorizeCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary:
        'Deprecated: start connecting an exchange account by OAuth 2.0 (Upbit and Bithumb offer none); connect with a key pair instead',
      description:
        'Asks the exchange for the `read` scope only: a request for any other (`withdraw`) is refused (400); the tokens are used once, at connection, to read the balances, and not kept.',
      body: CexAuthorizeBody,
      deprecated: {
        since: new Date('2026-11-27T00:00:00Z'),
        sunset: new Date('2027-05-31T00:00:00Z'),
        successor: '/v1/asset/cex-accounts',
      },
      responses: {
        200: { description: 'Where to send the user', schema: CexAuthorization },
        422: { description: 'Redirect URI not registered' },
      },
      handler: async ({ body, user }) => ({ status: 200, body: await accounts.authorize(user.userId, body) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/asset/cex-accounts',
      operationId: 'connectCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary:
        "Connect an exchange account with the person's API key pair (Upbit, Bithumb): its balances read once, the key not kept",
      description:
        'The key pair is checked with a read of the balances (`GET /v1/accounts` at the exchange, signed as the exchange documents), which are kept with `lastSyncAt`; the key itself is not kept. ' +
        'The same key connected again reads the balances again into the same account (200). ' +
        "The service cannot verify that a key only reads: neither Upbit nor Bithumb tells a key its own permissions. Ask the person for a key with the View Account (자산조회) permission only (no orders, withdrawals or deposits), with the service's outbound IP address as its only allowed IP (the exchanges refuse keys used from elsewhere); they may delete it at the exchange once connected. The answer's `keyNotice` says so to the person. " +
        'A refused key answers 422 `cex-key-refused` saying what to fix. The `{state, code}` body of the OAuth flow is deprecated (Sunset 2027-05-31).',
      body: CexConnectBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        200: {
          description: 'The same key connected again: the balances read again',
          schema: CexAccountConnected,
          headers: LOCATION_HEADER,
        },
        201: { description: 'Connected', schema: CexAccountConnected, headers: LOCATION_HEADER },
        404: { description: 'Unknown state' },
        409: { description: 'State already used, or the account is already connected (OAuth)' },
        410: { description: 'Authorization expired' },
        422: { description: 'The exchange refused the key pair (cex-key-refused: what to fix), or the OAuth code' },
        503: { description: 'The exchange did not answer, or limits us: try again' },
      },
      handler: async ({ body, user }) => {
        const { account, refreshed } =
          'provider' in body
            ? await accounts.connectWithKey(user.userId, body)
            : { account: await accounts.connect(user.userId, body), refreshed: false };
        return {
          status: refreshed ? 200 : 201,
          body: { ...cexAccountView(account), keyNotice: 'provider' in body ? CEX_KEY_NOTICE : CEX_TOKEN_NOTICE },
          headers: { location: `/v1/asset/cex-accounts/${account.cexAccountId}` },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/asset/cex-accounts',
      operationId: 'listCexAccounts',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Connected exchange accounts',
      description:
        'The accounts connected with POST /v1/asset/cex-accounts, oldest first, as stored: nothing is asked of ' +
        'the exchange and no balances are answered. `lastSyncAt` is when the service last read the balances with ' +
        'the key, at connection; a key deleted or expired at the exchange still shows here until the account is ' +
        'disconnected.',
      query: CexAccountQuery,
      responses: {
        200: { description: 'Accounts', schema: CexAccountList, headers: PAGE_LINK_HEADER },
        422: { description: 'A cursor this list did not make (invalid-cursor)' },
      },
      handler: async ({ user, query }, ctx) => {
        const page = await accounts.page(user.userId, query);
        return {
          status: 200,
          body: { ...page, items: page.items.map(cexAccountView) },
          headers: nextLink(ctx, page.nextCursor),
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/asset/cex-accounts/:cexAccountId',
      operationId: 'getCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'One connected exchange account',
      description:
        'The account as stored, without calling the exchange; the key pair is never shown again. For a key pair ' +
        '(`authMethod: api_key`), `permissions.withdraw` is false because the service never withdraws, not ' +
        'because the key cannot: neither exchange lets a read-only key list its own permissions.',
      params: CexAccountParams,
      responses: {
        200: { description: 'CEX account', schema: CexAccountView },
        404: { description: 'No such account for this user' },
      },
      handler: async ({ params, user }) => ({
        status: 200,
        body: cexAccountView(await accounts.get(user.userId, params.cexAccountId)),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/asset/cex-accounts/:cexAccountId',
      operationId: 'removeCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Disconnect an exchange account: the key pair (or tokens) kept for it are deleted',
      description:
        'Deleting it here does not revoke the key at the exchange: the person should also delete the key there.',
      params: CexAccountParams,
      responses: {
        204: { description: 'Disconnected' },
        404: { description: 'No such account for this user' },
      },
      handler: async ({ params, user }) => {
        await accounts.remove(user.userId, params.cexAccountId);
        return { status: 204 };
      },
    }),
  ];
}
