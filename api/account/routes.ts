import { createHash } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import type { DataEncryption } from '../../platform/data-encryption';
import { basicInfoWorkflow } from '../../workflows/kyc';
import { basicInfoWorkflowId } from '../../workflows/messages';
import type { Passkeys } from '../passkeys/service';
import { defineRoute, type RouteSpec } from '../http/route-table';
import { activeUser } from '../common/active-user';
import * as S from './schemas';

export interface AccountRouteDeps { orm: Orm; temporal: Client; taskQueue: string; encryption: DataEncryption; passkeys: Passkeys }

/** The caller's profile, and basic KYC information (recorded with its credential by the worker, which holds the issuer's key). */
export function accountRoutes({ orm, temporal, taskQueue, encryption, passkeys }: AccountRouteDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'get', path: '/v1/account/profile', operationId: 'getProfile', tags: ['Account'], auth: 'bearer',
      summary: "The caller's profile",
      responses: { 200: { description: 'Profile', schema: S.ProfileResponse } },
      handler: async ({ user }) => {
        const found = await activeUser(orm, user!.userId);
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
      description: 'Recorded with a BasicInfoCredential by the workflow basic-info-<userId>-<submission>; the same details again keep their credential.',
      body: S.BasicInfoBody,
      idempotency: { required: false, scope: ({ user }) => `user:${user!.userId}` },
      responses: { 200: { description: 'Stored', schema: S.BasicInfoResponse } },
      handler: async ({ user, body }) => {
        const { id: userId } = await activeUser(orm, user!.userId);
        const submission = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32);
        const { vcId } = await temporal.workflow.execute(basicInfoWorkflow, {
          workflowId: basicInfoWorkflowId(userId, submission), taskQueue, workflowIdConflictPolicy: 'USE_EXISTING', workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          args: [{ userId, kycSessionId: body.kyc_session_id, fullName: body.full_name, engSurname: body.eng_surname, engName: body.eng_name, nationality: body.nationality }],
        });
        return { status: 200, body: { step: 'basic_info', completed: true, vcId } };
      },
    }),
  ];
}
