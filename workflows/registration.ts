import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { RegistrationActivities } from '../activities/registration';
import {
  ALL_REGISTRATION_STEPS,
  RegistrationFailure,
  RegistrationStepSA,
  UserIdSA,
  passResultSignal,
  registrationStateQuery,
  startRegistrationUpdate,
  submitBackupUpdate,
  submitEkycUpdate,
  type PassResult,
  type RegistrationInput,
  type RegistrationOutcome,
  type RegistrationStep,
  type StartRegistrationRequest,
  type StartRegistrationResponse,
} from './messages';

const ACTIVITY_TIMEOUT = '30 seconds';
export const MAX_EKYC_ATTEMPTS = 5;

const activities = proxyCapabilityActivities<RegistrationActivities>({
  startToCloseTimeout: ACTIVITY_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: Object.values(RegistrationFailure),
  },
});

const fail = (type: string, message: string): ApplicationFailure =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

/**
 * One account registration: identity verification result (callback) -> start (app) -> eKYC -> wallet backup ->
 * user created. Abandoned registrations expire after `ttlSeconds`.
 */
export async function registrationWorkflow(input: RegistrationInput): Promise<RegistrationOutcome> {
  let step = 'pass' as RegistrationStep;
  let status = 'in_progress' as 'in_progress' | RegistrationOutcome['status'];
  let passResult: PassResult | undefined;
  let started: { request: StartRegistrationRequest; response: StartRegistrationResponse } | undefined;
  let busy = false;
  let ekycAttempts = 0;
  let userId: string | undefined;

  const moveTo = (next: RegistrationStep): void => {
    step = next;
    upsertSearchAttributes([{ key: RegistrationStepSA, value: next }]);
  };
  const exclusively = async <T>(work: () => Promise<T>): Promise<T> => {
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };
  const requireStep = (expected: RegistrationStep): void => {
    if (status !== 'in_progress') throw fail(RegistrationFailure.StepOutOfOrder, `registration is ${status}`);
    if (busy) throw fail(RegistrationFailure.StepOutOfOrder, 'another step of this registration is in progress');
    if (step !== expected)
      throw fail(RegistrationFailure.StepOutOfOrder, `registration is at step ${step}, not ${expected}`);
  };

  setHandler(passResultSignal, (result) => {
    // The provider may repeat its callback; the first result for our request wins.
    if (!passResult && result.passRequestId === input.passRequestId) passResult = result;
  });
  setHandler(registrationStateQuery, () => ({ regId: input.regId, step, status }));

  setHandler(
    startRegistrationUpdate,
    async (request) =>
      started?.response ??
      exclusively(async () => {
        if (!(await condition(() => passResult !== undefined, `${input.passResultWaitSeconds} seconds`))) {
          throw fail(
            RegistrationFailure.PassResultPending,
            'the identity verification result has not arrived yet; retry shortly',
          );
        }
        if (!passResult!.success)
          throw fail(RegistrationFailure.PassVerificationFailed, 'identity verification failed');
        const passInfo = await activities.recordPassResult({ regId: input.regId, result: passResult! });
        await activities.bindRegistrationToDevice({ regId: input.regId, ...request });
        moveTo('ekyc');
        const response = {
          regId: input.regId,
          step,
          passInfo,
          allSteps: ALL_REGISTRATION_STEPS,
          passTokenExpiresAt: request.passTokenExpiresAt,
        };
        started = { request, response };
        return response;
      }),
    {
      validator: (request) => {
        if (started) {
          // The same app repeating its start call gets the same answer; anyone else is refused.
          if (
            started.request.deviceId !== request.deviceId ||
            started.request.passTokenHash !== request.passTokenHash
          ) {
            throw fail(
              RegistrationFailure.AlreadyStarted,
              'this registration was started from another device or pass token',
            );
          }
          return;
        }
        if (passResult && !passResult.success)
          throw fail(RegistrationFailure.PassVerificationFailed, 'identity verification failed');
        requireStep('pass');
      },
    },
  );

  setHandler(
    submitEkycUpdate,
    (request) =>
      exclusively(async () => {
        ekycAttempts += 1;
        // The card number's fingerprint is kept with the reading (for a sign-in by ID card later), never answered.
        const { idCardHash, ...ocrResult } = await activities.runIdCardOcr({ regId: input.regId, ...request });
        if (ocrResult.verified) {
          moveTo('backup');
          await activities.recordRegistrationStep({
            regId: input.regId,
            step,
            ocrResult: { ...ocrResult, ...(idCardHash ? { idCardHash } : {}) },
          });
        } else if (ekycAttempts >= MAX_EKYC_ATTEMPTS) {
          status = 'failed';
          await activities.closeRegistration({ regId: input.regId, status });
        }
        return { step, ocrResult };
      }),
    { validator: (_request) => requireStep('ekyc') },
  );

  setHandler(
    submitBackupUpdate,
    (request) =>
      exclusively(async () => {
        const backupId = await activities.storeWalletBackup({ regId: input.regId, ...request });
        userId = await activities.createUserFromRegistration({ regId: input.regId, backupId });
        moveTo('completed');
        upsertSearchAttributes([{ key: UserIdSA, value: userId }]);
        return { step, backupId };
      }),
    { validator: (_request) => requireStep('backup') },
  );

  const finished = await condition(() => step === 'completed' || status === 'failed', `${input.ttlSeconds} seconds`);
  await condition(allHandlersFinished);
  if (step === 'completed') {
    status = 'completed';
    return { status, userId };
  }
  if (!finished) {
    status = passResult && !passResult.success ? 'failed' : 'expired';
    await activities.closeRegistration({ regId: input.regId, status });
  }
  return { status: status as RegistrationOutcome['status'] };
}
