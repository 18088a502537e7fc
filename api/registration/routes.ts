import { randomUUID, createHash } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { UploadEntity, RegistrationEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { IdentityProviderClient } from '../../integrations/identity';
import { registrationWorkflow } from '../../workflows/registration';
import {
  ALL_REGISTRATION_STEPS, RegistrationStepSA, passResultSignal, registrationWorkflowId, startRegistrationUpdate,
  submitBackupUpdate, submitEkycUpdate, type RegistrationInput,
} from '../../workflows/messages';
import { defineRoute, type RouteSpec, type UploadedFile } from '../http/route-table';
import { problems } from '../http/problems';
import { authorizeRegistration, passTokenHash, regIdFor } from './guard';
import * as S from './schemas';

export interface RegistrationRouteDeps {
  orm: Orm;
  temporal: Client;
  identity: IdentityProviderClient;
  encryption: DataEncryption;
  taskQueue: string;
  registrationTtlSeconds: number;
  passResultWaitSeconds: number;
  uploadMaxBytes: number;
}

const ID_CARD_IMAGE_TYPES = ['image/jpeg', 'image/png'] as const;
const TAG = ['Registration'];
const ERRORS = {
  401: { description: 'Pass token expired' },
  403: { description: 'X-Pass-Token does not belong to this registration' },
  404: { description: 'Unknown regId' },
  409: { description: 'Step out of order, or a concurrent request with the same Idempotency-Key' },
  422: { description: 'Idempotency-Key reused with another payload' },
};

export function registrationRoutes(deps: RegistrationRouteDeps): RouteSpec[] {
  const { orm, temporal, encryption } = deps;
  const workflowInput = (regId: string, passRequestId: string): RegistrationInput => ({
    regId, passRequestId, ttlSeconds: deps.registrationTtlSeconds, passResultWaitSeconds: deps.passResultWaitSeconds,
  });
  const startOperation = (regId: string, passRequestId: string) => new WithStartWorkflowOperation(registrationWorkflow, {
    workflowId: registrationWorkflowId(regId),
    taskQueue: deps.taskQueue,
    args: [workflowInput(regId, passRequestId)],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: [{ key: RegistrationStepSA, value: 'pass' }],
  });
  const storeUpload = async (regId: string, file: UploadedFile): Promise<string> => {
    const em = orm.em.fork();
    const id = `upl_${randomUUID()}`;
    em.create(UploadEntity, {
      id, regId, contentType: file.mimeType, sizeBytes: file.size,
      sha256: createHash('sha256').update(file.buffer).digest('hex'), dataSealed: encryption.seal(file.buffer, id),
    });
    await em.flush();
    return id;
  };
  const multipartImage = {
    fields: S.EkycMultipartFields,
    file: { field: 'idCardImage', maxBytes: deps.uploadMaxBytes, contentTypes: ID_CARD_IMAGE_TYPES },
    documentAs: S.EkycMultipartBody,
  };

  return [
    defineRoute({
      method: 'post', path: '/v1/account/register', operationId: 'startRegistration', tags: TAG, auth: 'none',
      summary: 'Start registration with the pass token from identity verification; issues regId',
      headers: S.StartRegistrationHeaders, body: S.StartRegistrationBody,
      rateLimits: [
        { rule: 'registration-start-device', key: ({ headers }) => headers['x-device-id'].toLowerCase() },
        { rule: 'registration-start-address', key: (_input, ctx) => ctx.ip },
      ],
      idempotency: { required: true, scope: ({ headers }) => `device:${headers['x-device-id']}` },
      responses: {
        429: { description: 'Too many requests (Retry-After)' }, 
        201: { description: 'Registration started', schema: S.StartRegistrationResponse },
        401: { description: 'Invalid or expired pass token' },
        409: { description: 'Identity result pending (retry after Retry-After), already started elsewhere, or completed' },
        422: { description: 'Identity verification failed, or Idempotency-Key reused with another payload' },
      },
      handler: async ({ headers, body }) => {
        const introspection = await deps.identity.introspectPassToken(body.passToken).catch(() => {
          throw problems.badGateway('The identity verification service could not be reached');
        });
        const expiresAt = introspection.expiresAt ? new Date(introspection.expiresAt) : undefined;
        if (!introspection.active || !introspection.passRequestId || !expiresAt || expiresAt.getTime() < Date.now()) {
          throw problems.invalidCredential('invalid-pass-token', 'The pass token is invalid or expired');
        }
        const regId = regIdFor(encryption, introspection.passRequestId);
        const existing = await orm.em.fork().findOne(RegistrationEntity, { regId });
        if (existing && existing.status !== 'in_progress') {
          throw problems.conflict(`registration-${existing.status}`, `This registration is ${existing.status}; verify your identity again to start a new one`);
        }
        const response = await temporal.workflow.executeUpdateWithStart(startRegistrationUpdate, {
          args: [{ deviceId: headers['x-device-id'], passTokenHash: passTokenHash(encryption, body.passToken), passTokenExpiresAt: expiresAt.toISOString() }],
          startWorkflowOperation: startOperation(regId, introspection.passRequestId),
        });
        return { status: 201, body: response, headers: { location: `/v1/account/register/${regId}` } };
      },
    }),

    defineRoute({
      method: 'get', path: '/v1/account/register/:regId', operationId: 'getRegistration', tags: TAG, auth: 'passToken',
      summary: 'Registration status: current step and whether it is still in progress',
      params: S.RegistrationParams, headers: S.PassTokenOnlyHeaders,
      responses: { 200: { description: 'Registration status', schema: S.RegistrationStatusResponse }, ...ERRORS },
      handler: async ({ params, headers }) => {
        const registration = await authorizeRegistration(orm, encryption, params.regId, headers['x-pass-token'], { allowCompleted: true });
        return {
          status: 200,
          body: {
            regId: registration.regId, step: registration.step, status: registration.status, allSteps: ALL_REGISTRATION_STEPS,
            passTokenExpiresAt: registration.passTokenExpiresAt?.toISOString() ?? null,
          },
        };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/account/register/:regId/uploads', operationId: 'uploadIdCardImage', tags: TAG, auth: 'passToken',
      summary: 'Upload an ID-card image (JPEG or PNG, stored encrypted); answers the uploadRef for the JSON eKYC form',
      params: S.RegistrationParams, headers: S.PassTokenOnlyHeaders,
      multipart: { ...multipartImage, fields: S.UploadMultipartFields, documentAs: S.UploadMultipartBody },
      idempotency: { required: false, scope: ({ params }) => `reg:${params.regId}` },
      responses: {
        201: { description: 'Stored', schema: S.UploadResponse }, ...ERRORS,
        413: { description: 'Image too large' }, 415: { description: 'Not a JPEG or PNG image' },
      },
      handler: async ({ params, headers, file }) => {
        await authorizeRegistration(orm, encryption, params.regId, headers['x-pass-token']);
        const uploadRef = await storeUpload(params.regId, file!);
        return { status: 201, body: { uploadRef, sizeBytes: file!.size, contentType: file!.mimeType } };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/account/register/:regId/ekyc', operationId: 'submitEkyc', tags: TAG, auth: 'passToken',
      summary: 'Submit eKYC: the ID-card image (multipart) or an uploadRef (JSON); answers the OCR result',
      params: S.RegistrationParams, headers: S.PassTokenHeaders, body: S.EkycJsonBody, multipart: multipartImage,
      idempotency: { required: true, scope: ({ params }) => `reg:${params.regId}` },
      responses: {
        200: { description: 'OCR result; step stays ekyc when not verified', schema: S.EkycResponse }, ...ERRORS,
        413: { description: 'Image too large' }, 415: { description: 'Not a JPEG or PNG image' },
      },
      handler: async ({ params, headers, body, file }, ctx) => {
        const registration = await authorizeRegistration(orm, encryption, params.regId, headers['x-pass-token']);
        // The workflow decides; this early check only avoids storing an image for a step that will be refused.
        if (registration.step !== 'ekyc') throw problems.conflict('step-out-of-order', `registration is at step ${registration.step}, not ekyc`);
        const uploadRef = file ? await storeUpload(params.regId, file) : body.uploadRef;
        const result = await temporal.workflow.getHandle(registrationWorkflowId(params.regId)).executeUpdate(submitEkycUpdate, {
          args: [{ uploadRef, idCardType: body.idCardType }], updateId: `ekyc-${ctx.get('idempotency-key').toLowerCase()}`,
        });
        return { status: 200, body: result };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/account/register/:regId/backup', operationId: 'submitWalletBackup', tags: TAG, auth: 'passToken',
      summary: 'Submit the initial wallet backup (client-encrypted); completes registration',
      params: S.RegistrationParams, headers: S.PassTokenHeaders, body: S.BackupBody,
      idempotency: { required: true, scope: ({ params }) => `reg:${params.regId}` },
      responses: { 200: { description: 'Backup stored; registration completed', schema: S.BackupResponse }, ...ERRORS },
      handler: async ({ params, headers, body }, ctx) => {
        await authorizeRegistration(orm, encryption, params.regId, headers['x-pass-token']);
        const result = await temporal.workflow.getHandle(registrationWorkflowId(params.regId)).executeUpdate(submitBackupUpdate, {
          args: [body], updateId: `backup-${ctx.get('idempotency-key').toLowerCase()}`,
        });
        return { status: 200, body: result };
      },
    }),

    defineRoute({
      method: 'post', path: '/v1/auth/pass/callback', operationId: 'passCallback', tags: ['Identity provider'], auth: 'apiKey',
      summary: 'Result callback from the identity verification service (server to server)',
      headers: S.PassCallbackHeaders, body: S.PassCallbackBody,
      rateLimits: [{ rule: 'pass-callback', key: (_input, ctx) => ctx.ip }],
      responses: { 429: { description: 'Too many requests (Retry-After)' }, 200: { description: 'Received (repeated callbacks are acknowledged and ignored)', schema: S.PassCallbackResponse }, 401: { description: 'Bad X-Api-Key' } },
      handler: async ({ body }) => {
        const regId = regIdFor(encryption, body.passRequestId);
        try {
          await temporal.workflow.signalWithStart(registrationWorkflow, {
            workflowId: registrationWorkflowId(regId), taskQueue: deps.taskQueue, args: [workflowInput(regId, body.passRequestId)],
            signal: passResultSignal, signalArgs: [body], workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [{ key: RegistrationStepSA, value: 'pass' }],
          });
        } catch (error) {
          // The registration already finished: this is a late repeat of a callback we acted on.
          if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
        }
        return { status: 200, body: { received: true } };
      },
    }),
  ];
}
