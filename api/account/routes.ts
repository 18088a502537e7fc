import type { Orm } from '../../db/orm';
import { KycBasicInfoEntity, UserEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { VerifiableCredentialEntity } from '../../db/entities';
import type { CredentialIssuer } from '../../integrations/credentials/issuer';
import { signedCredentialRow } from '../../integrations/credentials/records';
import type { Passkeys } from '../passkeys/service';
import { defineRoute, type AuthenticatedUser, type RouteSpec } from '../http/route-table';
import { problems } from '../http/problems';
import * as S from './schemas';

export interface AccountRouteDeps { orm: Orm; encryption: DataEncryption; passkeys: Passkeys; issuer: CredentialIssuer; credentialValiditySeconds: number }

export function accountRoutes({ orm, encryption, passkeys, issuer, credentialValiditySeconds }: AccountRouteDeps): RouteSpec[] {
  const activeUser = async (user: AuthenticatedUser | undefined) => {
    const found = user && (await orm.em.fork().findOne(UserEntity, { id: user.userId }));
    if (!found || found.status !== 'active') throw problems.invalidCredential('invalid-token', 'The access token does not belong to an active user');
    return found;
  };

  return [
    defineRoute({
      method: 'get', path: '/v1/account/profile', operationId: 'getProfile', tags: ['Account'], auth: 'bearer',
      summary: "The caller's profile",
      responses: { 200: { description: 'Profile', schema: S.ProfileResponse } },
      handler: async ({ user }) => {
        const found = await activeUser(user);
        return {
          status: 200,
          body: {
            userId: found.id, name: encryption.openText(found.nameSealed, found.id), maskedPhone: found.maskedPhone,
            email: found.email ?? null, status: found.status, walletType: found.walletType,
            registeredAt: found.registeredAt.toISOString(), twoFactorMethods: await passkeys.methodsOf(found.id),
          },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/api/v1/kyc/basic-info', operationId: 'submitKycBasicInfo', tags: ['KYC'], auth: 'bearer',
      summary: 'Submit basic personal information (legal name, English name, nationality)',
      body: S.BasicInfoBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: { 200: { description: 'Stored', schema: S.BasicInfoResponse } },
      handler: async ({ user, body }) => {
        const found = await activeUser(user);
        const em = orm.em.fork();
        const values = {
          kycSessionId: body.kyc_session_id ?? null, fullNameSealed: encryption.sealText(body.full_name, found.id),
          engSurname: body.eng_surname, engName: body.eng_name, nationality: body.nationality,
        };
        // A credential per distinct submission, stored with the details or not at all; the same details sent again
        // keep the credential they already have.
        const subject = { name: body.full_name, familyName: body.eng_surname, givenName: body.eng_name, nationality: body.nationality };
        const digest = createHash('sha256').update(JSON.stringify(subject)).digest('hex');
        const sourceKey = `basic-info:${found.id}:${digest}`;
        const basicInfo = { userId: found.id, ...values, submittedAt: new Date() };
        const known = await em.findOne(VerifiableCredentialEntity, { sourceKey });
        let vcId: string;
        if (!known) {
          const credential = await signedCredentialRow(issuer, encryption, {
            userId: found.id, type: 'BasicInfoCredential', sourceKey, subject, validitySeconds: credentialValiditySeconds,
          });
          try {
            await orm.em.fork().transactional(async (tx) => {
              await tx.upsert(KycBasicInfoEntity, basicInfo);
              await tx.insert(VerifiableCredentialEntity, credential);
            });
            vcId = credential.vcId as string;
          } catch (error) {
            if (!(error instanceof UniqueConstraintViolationException)) throw error;
            vcId = (await orm.em.fork().findOneOrFail(VerifiableCredentialEntity, { sourceKey })).vcId; // a concurrent twin won
          }
        } else {
          await em.upsert(KycBasicInfoEntity, basicInfo);
          vcId = known.vcId;
        }
        return { status: 200, body: { step: 'basic_info', completed: true, vcId } };
      },
    }),
  ];
}
