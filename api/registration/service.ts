import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type UpdateDefinition,
} from '@temporalio/client';
import type { Orm } from '../../db/orm';
import { DeviceEntity, RegistrationEntity } from '../../db/entities';
import { storeIdCardImage } from '../common/uploads';
import type { DataEncryption } from '../../platform/data-encryption';
import type { PassTokens } from '../../integrations/identity';
import { registrationWorkflow } from '../../workflows/registration';
import {
  ALL_REGISTRATION_STEPS,
  RegistrationStepSA,
  passResultSignal,
  registrationWorkflowId,
  startRegistrationUpdate,
  submitBackupUpdate,
  submitEkycUpdate,
  type PassResult,
  type RegistrationInput,
  type SubmitBackupRequest,
} from '../../workflows/messages';
import type { UploadedFile } from '../http/route-table';
import { HttpError, problems } from '../http/problems';
import { activePassToken, authorizeRegistration, passTokenHash, regIdFor } from './guard';
import { SIGN_IN_ROUTE, type SignInService } from '../auth/sign-in-service';

export interface RegistrationServiceDeps {
  orm: Orm;
  temporal: Client;
  identity: PassTokens;
  encryption: DataEncryption;
  taskQueue: string;
  registrationTtlSeconds: number;
  passResultWaitSeconds: number;
  /** Where the identity results of people who have an account go (a sign-in on a new device). */
  signIns: SignInService;
}

/**
 * Registration as the workflow registration-<regId> runs it: the API checks the pass token and the step, stores
 * uploads sealed, and passes each step to the workflow as an update (start with update-with-start, the identity
 * provider's callback with signal-with-start); the workflow decides and answers.
 */
export class RegistrationService {
  constructor(private readonly deps: RegistrationServiceDeps) {}

  async start(deviceId: string, passToken: string) {
    const { identity, encryption, orm } = this.deps;
    const introspection = await activePassToken(identity, passToken);
    const { expiresAt } = introspection;
    // The verified person has an account: their identity result went to a sign-in.
    if (await this.deps.signIns.isSignIn(introspection.passRequestId)) throw duplicateIdentity();
    const regId = regIdFor(encryption, introspection.passRequestId);
    const existing = await orm.em.fork().findOne(RegistrationEntity, { regId });
    if (existing && existing.status !== 'in_progress') {
      throw problems.conflict(
        `registration-${existing.status}`,
        `This registration is ${existing.status}; verify your identity again to start a new one`,
      );
    }
    const response = await this.deps.temporal.workflow.executeUpdateWithStart(startRegistrationUpdate, {
      args: [
        { deviceId, passTokenHash: passTokenHash(encryption, passToken), passTokenExpiresAt: expiresAt.toISOString() },
      ],
      startWorkflowOperation: new WithStartWorkflowOperation(registrationWorkflow, {
        ...this.startOptions(regId, introspection.passRequestId),
        workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
    return { regId, response };
  }

  async status(regId: string, passToken: string) {
    const registration = await authorizeRegistration(this.deps.orm, this.deps.encryption, regId, passToken, {
      allowCompleted: true,
    });
    return {
      regId: registration.regId,
      step: registration.step,
      status: registration.status,
      allSteps: ALL_REGISTRATION_STEPS,
      passTokenExpiresAt: registration.passTokenExpiresAt?.toISOString() ?? null,
    };
  }

  /**
   * The user a completed registration made, while no access token was issued for it yet (its device has no session):
   * what only the person who verified can do then (set the first PIN) needs no step-up.
   */
  async userBeforeTokens(regId: string, passToken: string): Promise<string> {
    const { orm, encryption } = this.deps;
    const registration = await authorizeRegistration(orm, encryption, regId, passToken, { allowCompleted: true });
    if (registration.status !== 'completed' || !registration.userId)
      throw problems.conflict(
        'registration-not-completed',
        `Registration is at step ${registration.step}: finish it first`,
      );
    if (await orm.em.fork().count(DeviceEntity, { userId: registration.userId }))
      throw problems.conflict(
        'registration-tokens-issued',
        'Tokens were issued for this registration: set the PIN with an identity check (POST /api/v1/pin with identityCheckId)',
      );
    return registration.userId;
  }

  async upload(regId: string, passToken: string, file: UploadedFile) {
    await authorizeRegistration(this.deps.orm, this.deps.encryption, regId, passToken);
    return { uploadRef: await this.storeUpload(regId, file), sizeBytes: file.size, contentType: file.mimeType };
  }

  async submitEkyc(
    regId: string,
    passToken: string,
    idempotencyKey: string,
    input: { idCardType: string; uploadRef?: string; file?: UploadedFile },
  ) {
    const registration = await authorizeRegistration(this.deps.orm, this.deps.encryption, regId, passToken, {
      allowCompleted: true,
    });
    const updateId = `ekyc-${idempotencyKey.toLowerCase()}`;
    // Past the step: only a repeat of the request that answered it (its answer replayed); no image is stored for it.
    if (registration.status === 'completed' || registration.step !== 'ekyc') {
      return this.repeatedUpdate(
        regId,
        submitEkycUpdate,
        updateId,
        [{ uploadRef: input.uploadRef ?? '', idCardType: input.idCardType }],
        registration,
      );
    }
    const uploadRef = input.file ? await this.storeUpload(regId, input.file) : input.uploadRef!;
    return this.deps.temporal.workflow.getHandle(registrationWorkflowId(regId)).executeUpdate(submitEkycUpdate, {
      args: [{ uploadRef, idCardType: input.idCardType }],
      updateId,
    });
  }

  async submitBackup(regId: string, passToken: string, idempotencyKey: string, backup: SubmitBackupRequest) {
    const registration = await authorizeRegistration(this.deps.orm, this.deps.encryption, regId, passToken, {
      allowCompleted: true,
    });
    const updateId = `backup-${idempotencyKey.toLowerCase()}`;
    if (registration.status === 'completed')
      return this.repeatedUpdate(regId, submitBackupUpdate, updateId, [backup], registration);
    return this.deps.temporal.workflow
      .getHandle(registrationWorkflowId(regId))
      .executeUpdate(submitBackupUpdate, { args: [backup], updateId });
  }

  /**
   * A step sent again after it moved the registration on (the app's retry after a cut connection, or after the API
   * process that answered it died before recording the answer): Temporal keeps each update's outcome by its id, also
   * once the workflow has closed, so the request that answered gets the same answer; any other is refused.
   */
  private async repeatedUpdate<Args extends [unknown, ...unknown[]], Ret>(
    regId: string,
    update: UpdateDefinition<Ret, Args>,
    updateId: string,
    args: Args,
    registration: { status: string; step: string },
  ): Promise<Ret> {
    try {
      return await this.deps.temporal.workflow
        .getHandle(registrationWorkflowId(regId))
        .executeUpdate(update, { args, updateId });
    } catch (error) {
      // Refused by the step's validator, or the workflow closed without this update: not a repeat.
      if (!(error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError)) throw error;
      if (registration.status === 'completed')
        throw problems.conflict('registration-completed', 'This registration is already completed');
      throw problems.conflict('step-out-of-order', `registration is at step ${registration.step}`);
    }
  }

  /** The identity provider's result; it may arrive before the app's start call, or again after the end. */
  async passResult(result: PassResult): Promise<void> {
    // A person who has an account is signing in on a new device: no registration is started for them.
    if (await this.deps.signIns.routePassResult(result)) return;
    const regId = regIdFor(this.deps.encryption, result.passRequestId);
    try {
      await this.deps.temporal.workflow.signalWithStart(registrationWorkflow, {
        ...this.startOptions(regId, result.passRequestId),
        signal: passResultSignal,
        signalArgs: [result],
      });
    } catch (error) {
      // The registration already finished: this is a late repeat of a callback we acted on.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  private startOptions(regId: string, passRequestId: string) {
    const args: [RegistrationInput] = [
      {
        regId,
        passRequestId,
        ttlSeconds: this.deps.registrationTtlSeconds,
        passResultWaitSeconds: this.deps.passResultWaitSeconds,
      },
    ];
    return {
      workflowId: registrationWorkflowId(regId),
      taskQueue: this.deps.taskQueue,
      args,
      workflowIdReusePolicy: 'REJECT_DUPLICATE' as const,
      typedSearchAttributes: [{ key: RegistrationStepSA, value: 'pass' }],
    };
  }

  private storeUpload(regId: string, file: UploadedFile): Promise<string> {
    return storeIdCardImage(this.deps.orm, this.deps.encryption, regId, file);
  }
}

/** Registering again as a registered person: the problem names the sign-in route. */
export const duplicateIdentity = (): HttpError =>
  new HttpError(
    409,
    'duplicate-identity',
    'Account already exists',
    `An account already exists for this person: sign in on this device instead (POST ${SIGN_IN_ROUTE})`,
    undefined,
    {},
    false,
    { signIn: SIGN_IN_ROUTE },
  );
