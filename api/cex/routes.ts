import { defineRoute, type RouteSpec } from '../http/route-table';
import { cexAccountView, type CexAccountService } from './service';
import {
  CexAccountList,
  CexAccountParams,
  CexAccountView,
  CexAuthorization,
  CexAuthorizeBody,
  CexConnectBody,
} from './schemas';

/** Exchange (CEX) accounts: OAuth 2.0 + PKCE authorization, connection, and the connected accounts. */
export function cexRoutes({ accounts }: { accounts: CexAccountService }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/asset/cex-accounts/authorize',
      operationId: 'authorizeCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Start connecting an exchange account (OAuth 2.0 authorization code with PKCE): open authorizationUrl',
      body: CexAuthorizeBody,
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
      summary: 'Finish connecting: the code and state the exchange redirected with; balances are synced once',
      body: CexConnectBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: {
        201: { description: 'Connected', schema: CexAccountView },
        404: { description: 'Unknown state' },
        409: { description: 'State already used, or the account is already connected' },
        410: { description: 'Authorization expired' },
        422: { description: 'The exchange refused the code' },
      },
      handler: async ({ body, user }) => {
        const account = await accounts.connect(user.userId, body);
        return {
          status: 201,
          body: cexAccountView(account),
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
      responses: { 200: { description: 'Accounts', schema: CexAccountList } },
      handler: async ({ user }) => ({
        status: 200,
        body: { items: (await accounts.list(user.userId)).map(cexAccountView) },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/asset/cex-accounts/:cexAccountId',
      operationId: 'getCexAccount',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'One connected exchange account',
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
  ];
}
