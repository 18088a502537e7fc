import { randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { OtherAssetEntity } from '../../db/entities';
import { priceStatistics, WINDOWS, type PriceFeedClient } from '../../integrations/prices/feed';
import { MarketQuery, MarketPrice, OtherAssetBody, OtherAssetView, OtherAssetList, OtherAssetParams } from './schemas';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import { isProviderRejection } from '../common/provider-rejection';

export interface AssetRouteDeps {
  orm: Orm;
  prices: PriceFeedClient;
}

/** Market prices from the price feed, and assets the user holds outside the service. */
export function assetRoutes(deps: AssetRouteDeps): RouteSpec[] {
  const { orm } = deps;
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/market-price',
      operationId: 'marketPrice',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Market price statistics in KRW over a window of hourly prices ending at the last full hour',
      description:
        'For a price chart or card: the window ends at the last full hour, so trades of the current hour are not ' +
        'in it. Coins and stablecoins come from the hourly candles of Upbit, `GOLD` (won per gram, where ' +
        'configured) from the daily closes of the KRX gold market; an hour without trades carries the last ' +
        'earlier price and is counted in `quiet_hours`. An asset no source quotes, or one without a trade in the ' +
        'window, answers 422 `unknown-asset`; the source down, 503 with Retry-After.',
      query: MarketQuery,
      rateLimits: [{ rule: 'market-price', key: ({ user }) => user.userId }],
      responses: {
        200: { description: 'Price data', schema: MarketPrice },
        422: { description: 'Unknown asset' },
        429: { description: 'Too many requests (Retry-After)' },
      },
      handler: async ({ query }) => {
        const window = query.window ?? '24h';
        const toHour = Math.floor(Date.now() / 3_600_000);
        if (!deps.prices.quotes(query.asset))
          throw problems.unprocessable('unknown-asset', `No market prices for ${query.asset}`);
        try {
          const points = await deps.prices.hourly(query.asset, toHour - WINDOWS[window], toHour);
          if (points.length === 0)
            throw problems.unprocessable('unknown-asset', `No trades of ${query.asset} in the window`);
          return {
            status: 200,
            body: {
              asset: query.asset,
              currency: 'KRW',
              window,
              ...priceStatistics(points),
              quiet_hours: points.filter((p) => p.carried).length,
            },
          };
        } catch (error) {
          if (isProviderRejection(error))
            throw problems.unprocessable('unknown-asset', `No market prices for ${query.asset}`);
          throw error;
        }
      },
    }),

    defineRoute({
      method: 'get',
      path: '/api/v1/other-assets',
      operationId: 'listOtherAssets',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Registered other assets with their total value (KRW)',
      description:
        'Assets the person entered by hand (POST /api/v1/other-assets), oldest first, at the values they ' +
        'entered: the service never revalues them, gold included. `totalValue` is their sum in won; to change a ' +
        'value, remove the asset and register it again.',
      responses: { 200: { description: 'Other assets', schema: OtherAssetList } },
      handler: async ({ user }) => {
        const assets = await orm.em
          .fork()
          .find(OtherAssetEntity, { userId: user.userId }, { orderBy: { createdAt: 'asc' } });
        return {
          status: 200,
          body: {
            totalValue: assets.reduce((sum, a) => sum + a.value, 0),
            assets: assets.map((a) => ({ assetId: a.assetId, name: a.name, category: a.category, value: a.value })),
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/other-assets',
      operationId: 'addOtherAsset',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Register an asset held outside the service (gold, cash, ...)',
      description:
        'Nothing is checked: `value` is what the person states, in whole won, and is never revalued (remove the ' +
        'asset and register it again to change it). With an Idempotency-Key, a retry answers the first ' +
        'registration instead of adding a second asset.',
      body: OtherAssetBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user.userId}` },
      responses: { 201: { description: 'Registered', schema: OtherAssetView } },
      handler: async ({ body, user }) => {
        const em = orm.em.fork();
        const asset = em.create(OtherAssetEntity, { assetId: `oa_${randomUUID()}`, userId: user.userId, ...body });
        await em.flush();
        return {
          status: 201,
          body: { assetId: asset.assetId, name: asset.name, category: asset.category, value: asset.value },
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/other-assets/:assetId',
      operationId: 'removeOtherAsset',
      tags: ['Assets'],
      auth: 'bearer',
      summary: 'Remove a registered asset',
      description:
        'Deletes the entry for good (there is no undo), and `totalValue` of the list drops by its value; ' +
        'removing it again, or naming an asset of another user, answers 404.',
      params: OtherAssetParams,
      responses: { 204: { description: 'Removed' }, 404: { description: 'No such asset for this user' } },
      handler: async ({ params, user }) => {
        const removed = await orm.em
          .fork()
          .nativeDelete(OtherAssetEntity, { assetId: params.assetId, userId: user.userId });
        if (!removed) throw problems.notFound(`Asset ${params.assetId}`);
        return { status: 204 };
      },
    }),
  ];
}
