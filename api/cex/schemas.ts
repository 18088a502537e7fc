import { Type } from '@sinclair/typebox';
import { DateTime, pageMembers, pageQuery } from '../common/schemas';

/** What the deprecated OAuth flow may ask the exchange for: reading balances, nothing more (the service never withdraws). */
export const Scope = Type.Literal('read', { description: 'read only: a request for any other scope is refused' });
export const CexAuthorizeBody = Type.Object(
  {
    redirectUri: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'one of the redirect URIs registered at the exchange (CEX_REDIRECT_URIS)',
    }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 1, default: ['read'] })),
    loginHint: Type.Optional(Type.String({ maxLength: 128, description: "the user's id at the exchange, if known" })),
  },
  { additionalProperties: false },
);
export const CexAuthorization = Type.Object({
  authorizationUrl: Type.String(),
  state: Type.String(),
  expiresAt: DateTime,
});
export const CexKeyBody = Type.Object(
  {
    provider: Type.Union([Type.Literal('upbit'), Type.Literal('bithumb')], {
      description: 'the exchange that issued the key pair',
    }),
    accessKey: Type.String({ pattern: '^[A-Za-z0-9]{16,128}$', description: "the key pair's access key" }),
    secretKey: Type.String({
      pattern: '^[A-Za-z0-9+/=_-]{16,256}$',
      description: "the key pair's secret key: used once to read the balances, never kept, never logged",
    }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  {
    additionalProperties: false,
    description:
      "An API key pair the person issued at the exchange with the View Account (자산조회) permission only, and the service's address in its allowed IPs",
  },
);
export const CexOAuthConnectBody = Type.Object(
  {
    state: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$' }),
    code: Type.String({ minLength: 1, maxLength: 512 }),
  },
  {
    additionalProperties: false,
    description:
      'Deprecated (Sunset 2027-05-31): the code and state of the OAuth flow of POST /v1/asset/cex-accounts/authorize, which Upbit and Bithumb do not offer',
  },
);
export const CexConnectBody = Type.Union([CexKeyBody, CexOAuthConnectBody]);
export const CexAccountView = Type.Object({
  cexAccountId: Type.String(),
  provider: Type.String(),
  label: Type.String(),
  authMethod: Type.String({ description: "api_key (the person's key pair) or oauth2 (deprecated)" }),
  permissions: Type.Object({ read: Type.Boolean(), withdraw: Type.Boolean() }),
  lastSyncAt: Type.Union([DateTime, Type.Null()], {
    description:
      'When the balances were last read at the exchange: at connection, and each time the same key is connected again',
  }),
  registeredAt: DateTime,
});
export const CexAccountConnected = Type.Object({
  ...CexAccountView.properties,
  keyNotice: Type.String({
    description:
      'What the person should know of the key they gave: the service cannot see its permissions, used it once and kept nothing',
  }),
});
export const CexAccountList = Type.Object({ items: Type.Array(CexAccountView), ...pageMembers });
export const CexAccountQuery = Type.Object(
  pageQuery({ default: 50, maximum: 100, whole: true }),
  // These lists took no query in 1.0.0, so a parameter they do not know (a cache-buster) is still let through.
);
export const CexAccountParams = Type.Object({ cexAccountId: Type.String({ pattern: '^cex_[0-9a-f-]{36}$' }) });
