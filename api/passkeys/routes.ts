import type { Orm } from '../../db/orm';
import { UserEntity, type Passkey } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { Passkeys } from './service';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from './schemas';

export interface PasskeyRouteDeps { orm: Orm; encryption: DataEncryption; passkeys: Passkeys }

const TAGS = ['Passkeys'];

const view = (p: Passkey) => ({
  passkeyId: p.passkeyId, name: p.name, deviceType: p.deviceType, backedUp: p.backedUp,
  createdAt: p.createdAt.toISOString(), lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
});

export function passkeyRoutes({ orm, encryption, passkeys }: PasskeyRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'post', path: '/v1/auth/passkeys/registration/options', operationId: 'passkeyRegistrationOptions', tags: TAGS, auth: 'bearer',
      summary: 'Start registering a passkey: WebAuthn creation options with a one-time challenge',
      responses: { 200: { description: 'Creation options', schema: S.RegistrationOptionsResponse }, 409: { description: 'Too many passkeys' } },
      handler: async ({ user }) => {
        const found = await orm.em.fork().findOne(UserEntity, { id: user!.userId });
        if (!found) throw problems.notFound('User');
        const name = encryption.openText(found.nameSealed, found.id);
        return { status: 200, body: await passkeys.registrationOptions({ userId: found.id, userName: found.maskedPhone, displayName: name }) };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/auth/passkeys', operationId: 'registerPasskey', tags: TAGS, auth: 'bearer',
      summary: 'Finish registering a passkey with the authenticator response; it then approves chain operations (2FA slots)',
      body: S.RegisterPasskeyBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: {
        201: { description: 'Passkey registered', schema: S.PasskeyView },
        404: { description: 'Unknown challenge' }, 409: { description: 'Challenge already used, or passkey already registered' },
        410: { description: 'Challenge expired' }, 422: { description: 'The registration response does not verify' },
      },
      handler: async ({ user, body }) => {
        const passkey = await passkeys.register(user!.userId, body);
        return { status: 201, body: view(passkey), headers: { location: `/v1/auth/passkeys/${passkey.passkeyId}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/auth/passkeys', operationId: 'listPasskeys', tags: TAGS, auth: 'bearer',
      summary: "The caller's passkeys",
      responses: { 200: { description: 'Passkeys', schema: S.PasskeyList } },
      handler: async ({ user }) => ({ status: 200, body: { items: (await passkeys.list(user!.userId)).map(view) } }),
    }),
  ];
}
