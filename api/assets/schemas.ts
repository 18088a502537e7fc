import { Type } from '@sinclair/typebox';
import { WINDOWS, type PriceWindow } from '../../integrations/prices/feed';

export const CATEGORIES = ['gold', 'cash', 'deposit', 'real_estate', 'vehicle', 'other'] as const;
export const MarketQuery = Type.Object(
  {
    asset: Type.String({
      pattern: '^[A-Z]{2,10}$',
      description:
        'an asset the market data quotes in won: BTC, ETH, SOL, POL, USDT, USDC by default (PRICE_FEED_MARKETS)',
    }),
    window: Type.Optional(
      Type.Union(
        (Object.keys(WINDOWS) as PriceWindow[]).map((w) => Type.Literal(w)),
        { default: '24h', description: '24h (default), 7d or 30d of hourly prices' },
      ),
    ),
  },
  { additionalProperties: false },
);
export const MarketPrice = Type.Object({
  asset: Type.String(),
  currency: Type.String(),
  window: Type.String(),
  current: Type.Number(),
  average: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  change: Type.String({ description: 'current − first price of the window, with its percentage: "+52,000 (1.25%)"' }),
  quiet_hours: Type.Integer({
    minimum: 0,
    description:
      "how many of the window's hourly prices come from an hour without trades at the source (no candle): each is the last earlier trade's price",
  }),
});
export const OtherAssetBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    category: Type.Union(CATEGORIES.map((c) => Type.Literal(c))),
    value: Type.Integer({ minimum: 0, maximum: 1e15, description: 'KRW, whole won' }),
  },
  { additionalProperties: false },
);
export const OtherAssetView = Type.Object({
  assetId: Type.String(),
  name: Type.String(),
  category: Type.String(),
  value: Type.Number(),
});
export const OtherAssetList = Type.Object({
  totalValue: Type.Number({ description: 'KRW' }),
  assets: Type.Array(OtherAssetView),
});
export const SecuritiesBody = Type.Union([
  Type.Object(
    {
      firm_code: Type.String({
        pattern: '^\\d{3}$',
        description: "securities firm code: 243 (한국투자증권, Korea Investment & Securities' open API)",
      }),
      method: Type.Literal('app_key', {
        description: 'the app key and secret KIS Developers issued the person for this account',
      }),
      account_no: Type.String({
        pattern: '^\\d{8}-?\\d{2}$',
        description: 'the account the key was issued for: 8 digits and the 2-digit product code (12345678-01)',
      }),
      app_key: Type.String({
        pattern: '^[A-Za-z0-9]{16,64}$',
        description: 'the app key (36 characters at KIS); used for this inquiry only, never stored or logged',
      }),
      app_secret: Type.String({
        pattern: '^[A-Za-z0-9+/=]{32,400}$',
        description: 'the app secret (180 characters at KIS); used for this inquiry only, never stored or logged',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      firm_code: Type.String({ pattern: '^\\d{3}$', description: 'securities firm code, e.g. 240 (삼성증권)' }),
      method: Type.Literal('pin', {
        description:
          'deprecated: no broker publishes an API that checks a trading PIN for a third party; answered 422 securities-method-unsupported (use app_key)',
      }),
      account_no: Type.String({ pattern: '^[0-9-]{6,20}$' }),
      pin: Type.String({ pattern: '^\\d{4,6}$', description: "the account's trading PIN (never stored or logged)" }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      firm_code: Type.String({ pattern: '^\\d{3}$' }),
      method: Type.Literal('auth_code', {
        description:
          'deprecated: no broker publishes an API that takes a one-time code of its app for a third party; answered 422 securities-method-unsupported (use app_key)',
      }),
      auth_code: Type.String({ pattern: '^[A-Za-z0-9]{6,32}$', description: "one-time code issued by the firm's app" }),
    },
    { additionalProperties: false },
  ),
]);
export const SecuritiesResult = Type.Object({
  verified: Type.Boolean(),
  firm_name: Type.Union([Type.String(), Type.Null()]),
  accounts: Type.Array(
    Type.Object({
      no: Type.String({ description: 'masked account number' }),
      balance: Type.String({ description: 'e.g. "12,345,678 KRW"' }),
    }),
  ),
});
export const OtherAssetParams = Type.Object({ assetId: Type.String({ pattern: '^oa_[0-9a-f-]{36}$' }) });
