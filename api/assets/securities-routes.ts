import type { SecuritiesBroker } from '../../integrations/securities/broker';
import { formatMoney } from '../../platform/money';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { SecuritiesBody, SecuritiesResult } from './schemas';
import { isProviderRejection } from '../common/provider-rejection';

/** Every digit but the last four hidden, separators kept: 50123456-01 -> ******56-01. */
function mask(no: string): string {
  let shown = 0;
  return [...no]
    .reverse()
    .map((c) => (/\d/.test(c) ? (shown++ < 4 ? c : '*') : c))
    .reverse()
    .join('');
}

/**
 * Securities accounts: the person opens their broker's account inquiry with the key pair the broker issued them
 * (KIS Developers' app key and secret); the answer lists that account and its value. Nothing is stored: the key
 * pair serves this one inquiry (the broker's token for it is kept in memory until it expires, by a hash of the pair).
 */
export function securitiesRoutes(deps: { securities: SecuritiesBroker }): RouteSpec[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/securities/verify',
      operationId: 'verifySecurities',
      tags: ['Assets'],
      auth: 'bearer',
      summary: "Verify a securities account with the broker's app key and secret, and list its value",
      description:
        'The broker\'s own API is asked with the person\'s key pair (`method: "app_key"`: with SECURITIES_PROVIDER=kis, the app key and secret KIS Developers issued for the account at firm 243, 한국투자증권); ' +
        '`verified: false` when the broker refuses the key pair or the account. The broker proves possession of the key, not whose account it is. ' +
        'The `pin` and `auth_code` methods are deprecated: no broker publishes an API that checks them for a third party (422 securities-method-unsupported).',
      body: SecuritiesBody,
      // Each costs a token and an inquiry at the broker; its own rule, so it never uses up the PIN routes' allowance.
      rateLimits: [{ rule: 'securities-verify', key: ({ user }) => user.userId }],
      responses: {
        422: {
          description:
            "A method other than app_key (securities-method-unsupported), or a firm other than the broker's (securities-firm-unsupported)",
        },
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Verification result', schema: SecuritiesResult },
        503: {
          description: 'The broker did not answer, or limits us (KIS issues one token a minute per key): try again',
        },
      },
      handler: async ({ body }) => {
        const { firm } = deps.securities;
        if (body.method !== 'app_key')
          throw problems.unprocessable(
            'securities-method-unsupported',
            `The ${body.method} method is no longer offered: no broker publishes an API that checks it for a third party. Send method "app_key" with the app key and secret the broker issued for the account.`,
          );
        if (body.firm_code !== firm.code)
          throw problems.unprocessable(
            'securities-firm-unsupported',
            `Securities firm ${body.firm_code} is not reached by this service; ${firm.code} (${firm.name}) is.`,
          );
        try {
          const holdings = await deps.securities.holdingsByAppKey({
            accountNo: body.account_no,
            appKey: body.app_key,
            appSecret: body.app_secret,
          });
          return {
            status: 200,
            body: {
              verified: true,
              firm_name: holdings.firmName,
              accounts: holdings.accounts.map((a) => ({
                no: mask(a.accountNo),
                balance: formatMoney(a.totalKrw, 0, 'KRW'),
              })),
            },
          };
        } catch (error) {
          if (isProviderRejection(error))
            return { status: 200, body: { verified: false, firm_name: null, accounts: [] } };
          throw error;
        }
      },
    }),
  ];
}
