import type { Orm } from '../../db/orm';
import { UserEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { SecuritiesClient } from '../../integrations/securities';
import { formatMoney } from '../../platform/money';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { SecuritiesBody, SecuritiesResult } from './schemas';
import { isProviderRejection } from '../common/provider-rejection';

const mask = (no: string) => (no.length <= 4 ? '****' : `${'*'.repeat(no.length - 4)}${no.slice(-4)}`);

/** Securities accounts: the holder proves one (trading PIN or the firm's auth code); nothing is stored. */
export function securitiesRoutes(deps: {
  orm: Orm;
  encryption: DataEncryption;
  securities: SecuritiesClient;
}): RouteSpec[] {
  const { orm, encryption } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/securities/verify',
      operationId: 'verifySecurities',
      tags: ['Assets'],
      auth: 'bearer',
      summary:
        "Verify a securities account (its trading PIN, or an auth code from the firm's app) and list the user's accounts there",
      body: SecuritiesBody,
      // Guessing a trading PIN here is as worth stopping as guessing ours.
      rateLimits: [{ rule: 'pin-attempt', key: ({ user }) => user.userId }],
      responses: {
        429: { description: 'Too many requests (Retry-After)' },
        200: { description: 'Verification result', schema: SecuritiesResult },
      },
      handler: async ({ body, user }) => {
        const found = await orm.em.fork().findOneOrFail(UserEntity, { id: user.userId });
        const holder = encryption.openText(found.nameSealed, found.id);
        const proof =
          body.method === 'pin'
            ? { method: 'pin' as const, accountNo: body.account_no.replace(/-/g, ''), pin: body.pin }
            : { method: 'auth_code' as const, authCode: body.auth_code };
        try {
          const holdings = await deps.securities.verify({ firmCode: body.firm_code, holder, ...proof });
          return {
            status: 200,
            body: {
              verified: true,
              firm_name: holdings.firmName,
              accounts: holdings.accounts.map((a) => ({
                no: mask(a.accountNo),
                balance: formatMoney(BigInt(a.balance), 0, 'KRW'),
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
