import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { proxyCapabilityActivities } from './capabilities';
import type { SignInActivities } from '../activities/sign-in';
import {
  RegistrationFailure,
  SignInFailure,
  UserIdSA,
  idCardProofUpdate,
  passResultSignal,
  passkeyProofUpdate,
  signInStateQuery,
  startSignInUpdate,
  type PassResult,
  type SignInInput,
  type SignInOutcome,
  type SignInProof,
  type StartSignInRequest,
  type StartSignInResponse,
} from './messages';

const records = proxyCapabilityActivities<Pick<SignInActivities, 'recordSignIn' | 'completeSignIn' | 'closeSignIn'>>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 20,
    nonRetryableErrorTypes: Object.values(SignInFailure),
  },
});
/** The app waits for the card check: a provider that stays down fails the attempt within half a minute (503), not counted. */
const cards = proxyCapabilityActivities<Pick<SignInActivities, 'checkSignInIdCard'>>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '8 seconds',
    maximumAttempts: 4,
    nonRetryableErrorTypes: Object.values(SignInFailure),
  },
});

const fail = (type: string, message: string, details?: Record<string, unknown>): ApplicationFailure =>
  ApplicationFailure.create({ type, message, nonRetryable: true, details: details ? [details] : undefined });

/**
 * A sign-in on a new device: the identity provider's result (callback) -> start (app, new device) -> a second proof:
 * a passkey of the account (verified by the API) or the ID card (read by the OCR, compared with the card verified at
 * registration, checked with the issuing authority, in the worker). Then the app exchanges it once for tokens
 * (POST /v1/auth/token, grantType "sign_in"). A sign-in not proved within `ttlSeconds` expires; too many wrong cards fail it.
 *
 * Started as a step-up identity check (`stepUp` in the start request, from a signed-in device), the same result
 * approves one sensitive request instead: it must be the account holder's (their CI), have arrived minutes ago, and
 * where the request can lose the account be proved with the ID card as above; it completes at once otherwise.
 */
export async function signInWorkflow(input: SignInInput): Promise<SignInOutcome> {
  let status = 'in_progress' as 'in_progress' | SignInOutcome['status'];
  let passResult: PassResult | undefined;
  /** Workflow time the identity result arrived: a step-up takes only a fresh one. */
  let passResultAt = 0;
  let started: { request: StartSignInRequest; response: StartSignInResponse } | undefined;
  let method: SignInProof | null = null;
  let busy = false;
  let idCardAttempts = 0;

  const exclusively = async <T>(work: () => Promise<T>): Promise<T> => {
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };
  const requireProofStep = (proof: SignInProof): void => {
    if (status !== 'in_progress' || !started)
      throw fail(
        SignInFailure.NotInProgress,
        started ? `this sign-in is ${status}` : 'this sign-in has not started: POST /v1/auth/sign-in first',
      );
    if (busy) throw fail(SignInFailure.NotInProgress, 'another proof of this sign-in is being checked');
    if (!started.response.proofs.includes(proof)) {
      throw fail(
        proof === 'id_card' ? SignInFailure.IdCardNotOnFile : SignInFailure.NotInProgress,
        proof === 'id_card'
          ? 'this account has no ID card on file to compare with: sign in with a passkey, or renew your KYC on a signed-in device'
          : 'this account has no passkey: sign in with your ID card',
      );
    }
  };
  const complete = async (proof: SignInProof, passkeyId?: string) => {
    await records.completeSignIn({ signInId: input.signInId, method: proof, ...(passkeyId ? { passkeyId } : {}) });
    method = proof;
    status = 'completed';
    return { signInId: input.signInId, status: 'completed' as const, method: proof };
  };

  setHandler(passResultSignal, (result) => {
    if (passResult || result.passRequestId !== input.passRequestId) return;
    passResult = result;
    passResultAt = Date.now();
  });
  setHandler(signInStateQuery, () => ({
    signInId: input.signInId,
    status,
    method,
    idCardAttemptsLeft: input.maxIdCardAttempts - idCardAttempts,
  }));

  setHandler(
    startSignInUpdate,
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
        if (request.stepUp && Date.now() - passResultAt > request.stepUp.maxResultAgeSeconds * 1000)
          throw fail(
            SignInFailure.VerificationStale,
            `this identity verification is more than ${request.stepUp.maxResultAgeSeconds} s old: verify your identity again`,
          );
        const { userId, proofs } = await records.recordSignIn({
          signInId: input.signInId,
          result: passResult!,
          request,
        });
        upsertSearchAttributes([{ key: UserIdSA, value: userId }]);
        const response = {
          signInId: input.signInId,
          status: 'in_progress' as const,
          proofs,
          passTokenExpiresAt: request.passTokenExpiresAt,
        };
        started = { request, response };
        // A step-up that needs no second proof is approved by the fresh verification of the account holder alone.
        if (request.stepUp && proofs.length === 0) return { ...response, status: (await complete('identity')).status };
        return response;
      }),
    {
      validator: (request) => {
        if (started) {
          if (
            started.request.deviceId !== request.deviceId ||
            started.request.passTokenHash !== request.passTokenHash
          ) {
            throw fail(
              RegistrationFailure.AlreadyStarted,
              'this sign-in was started from another device or pass token',
            );
          }
          return;
        }
        if (status !== 'in_progress') throw fail(SignInFailure.NotInProgress, `this sign-in is ${status}`);
        if (passResult && !passResult.success)
          throw fail(RegistrationFailure.PassVerificationFailed, 'identity verification failed');
        if (busy) throw fail(SignInFailure.NotInProgress, 'this sign-in is being started');
      },
    },
  );

  setHandler(
    passkeyProofUpdate,
    (request) =>
      // The API verified the assertion of this passkey of the account; which one tells whether it was still held.
      exclusively(async () => complete('passkey', request.passkeyId)),
    { validator: (_request) => requireProofStep('passkey') },
  );

  setHandler(
    idCardProofUpdate,
    (request) =>
      exclusively(async () => {
        idCardAttempts += 1;
        const check = await cards.checkSignInIdCard({ signInId: input.signInId, ...request });
        if (check.ok) return complete('id_card');
        const attemptsLeft = input.maxIdCardAttempts - idCardAttempts;
        if (attemptsLeft <= 0) {
          status = 'failed';
          await records.closeSignIn({ signInId: input.signInId, status });
          throw fail(
            SignInFailure.TooManyAttempts,
            `${check.message}; that was the last attempt: this sign-in failed, verify your identity again to start a new one`,
          );
        }
        throw fail(check.failure, check.message, { attemptsLeft });
      }),
    { validator: (_request) => requireProofStep('id_card') },
  );

  const finished = await condition(() => status !== 'in_progress', `${input.ttlSeconds} seconds`);
  await condition(allHandlersFinished);
  if (!finished && status === 'in_progress') {
    status = passResult && !passResult.success ? 'failed' : 'expired';
    await records.closeSignIn({ signInId: input.signInId, status });
  }
  return { status: status as SignInOutcome['status'], ...(method ? { method } : {}) };
}
