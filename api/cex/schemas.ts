import { Type } from '@sinclair/typebox';
import { DateTime } from '../common/schemas';

export const Scope = Type.Union([Type.Literal('read'), Type.Literal('withdraw')]);
export const CexAuthorizeBody = Type.Object(
  {
    redirectUri: Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'one of the redirect URIs registered at the exchange (CEX_REDIRECT_URIS)',
    }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 2, uniqueItems: true, default: ['read'] })),
    loginHint: Type.Optional(Type.String({ maxLength: 128, description: "the user's id at the exchange, if known" })),
  },
  { additionalProperties: false },
);
export const CexAuthorization = Type.Object({
  authorizationUrl: Type.String(),
  state: Type.String(),
  expiresAt: DateTime,
});
export const CexConnectBody = Type.Object(
  {
    state: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$' }),
    code: Type.String({ minLength: 1, maxLength: 512 }),
  },
  { additionalProperties: false },
);
export const CexAccountView = Type.Object({
  cexAccountId: Type.String(),
  provider: Type.String(),
  label: Type.String(),
  authMethod: Type.String({ description: 'oauth2' }),
  permissions: Type.Object({ read: Type.Boolean(), withdraw: Type.Boolean() }),
  lastSyncAt: Type.Union([DateTime, Type.Null()]),
  registeredAt: DateTime,
});
export const CexAccountList = Type.Object({ items: Type.Array(CexAccountView) });
export const CexAccountParams = Type.Object({ cexAccountId: Type.String({ pattern: '^cex_[0-9a-f-]{36}$' }) });
