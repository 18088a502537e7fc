import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  DeviceEntity,
  PasskeyEntity,
  RegistrationEntity,
  SignInEntity,
  UploadEntity,
  UserEntity,
  idCardFingerprint,
  openPassResult,
} from '../db/entities';
import { checkUploadedCard, readUploadedCard, readsAsDeclared, type IdCardProofDeps } from './id-card-proof';
import { sameName } from '../platform/names';
import { clock } from '../platform/clock';
import {
  SignInFailure,
  signInUploadOwner,
  type PassResult,
  type SignInProof,
  type StartSignInRequest,
} from '../workflows/messages';

export type SignInActivityDeps = IdCardProofDeps;

type SignInFailureType = (typeof SignInFailure)[keyof typeof SignInFailure];
export type IdCardCheck = { ok: true } | { ok: false; failure: SignInFailureType; message: string };

const refusal = (type: string, message: string): ApplicationFailure =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

/** Sign-in on a new device; each activity looks up what an earlier attempt wrote before writing. */
export const createSignInActivities = (deps: SignInActivityDeps) => {
  const { orm, encryption } = deps;
  return {
    /**
     * The verified person's account (active), recorded with the device that asks; answers the proofs it can give. A
     * step-up identity check must have verified the holder of the account that asks, and answers the ID card when its
     * request needs it (or nothing: the verification alone approves).
     */
    async recordSignIn({
      signInId,
      result,
      request,
    }: {
      signInId: string;
      result: PassResult;
      request: StartSignInRequest;
    }): Promise<{ userId: string; proofs: SignInProof[] }> {
      const em = orm.em.fork();
      const user = result.ci ? await em.findOne(UserEntity, { ciHash: encryption.fingerprint(result.ci, 'ci') }) : null;
      if (!user)
        throw refusal(
          SignInFailure.NotRegistered,
          'no account exists for this person: register instead (POST /v1/account/register)',
        );
      if (user.status !== 'active') throw refusal(SignInFailure.NotRegistered, `this account is ${user.status}`);
      const { stepUp } = request;
      if (stepUp && user.id !== stepUp.userId)
        throw refusal(SignInFailure.NotSamePerson, 'the person verified is not the holder of this account');
      if (stepUp?.idCard && !user.idCardHash)
        throw refusal(
          SignInFailure.IdCardNotOnFile,
          'this account has no ID card on file to compare with: renew your KYC (POST /v1/account/kyc/renew) first',
        );
      // A sign-in names its own new device: never one the account has signed in (it would sign that one out and take
      // its place, its label and all: an attacker who learnt the owner's device id could lock the owner out).
      if (!stepUp && (await em.count(DeviceEntity, { userId: user.id, deviceId: request.deviceId, revokedAt: null })))
        throw refusal(
          SignInFailure.DeviceSignedIn,
          'this device is signed in to the account already: use it as it is, or sign it out first',
        );
      const existing = await em.findOne(SignInEntity, { signInId });
      if (!existing) {
        em.create(SignInEntity, {
          signInId,
          passRequestId: result.passRequestId,
          userId: user.id,
          deviceId: request.deviceId,
          deviceLabel: request.deviceLabel,
          passTokenHash: request.passTokenHash,
          passTokenExpiresAt: new Date(request.passTokenExpiresAt),
          status: 'in_progress',
          method: null,
          passkeyId: null,
          tokensIssuedAt: null,
          purpose: stepUp?.request ?? null,
          completedAt: null,
          usedAt: null,
          usedIdempotencyKey: null,
        });
        await em.flush();
      }
      if (stepUp) return { userId: user.id, proofs: stepUp.idCard ? ['id_card'] : [] };
      const proofs: SignInProof[] = [];
      if (await em.count(PasskeyEntity, { userId: user.id })) proofs.push('passkey');
      if (user.idCardHash) proofs.push('id_card');
      return { userId: user.id, proofs };
    },

    /**
     * The ID card as a second proof: the OCR reads it; it must read as the person verified at registration (name, birth
     * date), show the number of the card verified then (another person's card with the same name and birth date does
     * not), and the issuing authority must answer that it is valid and current (not reported lost or stolen).
     */
    async checkSignInIdCard({
      signInId,
      uploadRef,
      idCardType,
    }: {
      signInId: string;
      uploadRef: string;
      idCardType: string;
    }): Promise<IdCardCheck> {
      const em = orm.em.fork();
      const signIn = await em.findOneOrFail(SignInEntity, { signInId });
      const upload = await em.findOne(UploadEntity, { id: uploadRef, regId: signInUploadOwner(signInId) });
      if (!upload) throw refusal('UploadNotFound', `no upload ${uploadRef} for this sign-in`);
      const user = await em.findOneOrFail(UserEntity, { id: signIn.userId });
      if (!user.idCardHash)
        return {
          ok: false,
          failure: SignInFailure.IdCardNotOnFile,
          message: 'this account has no ID card on file to compare with',
        };
      const registration = await em.findOneOrFail(RegistrationEntity, { regId: user.regId });
      const verified = openPassResult(encryption, user.regId, registration.passResultSealed!);
      const { workflowExecution, activityId } = Context.current().info;
      const requestId = `${workflowExecution?.workflowId ?? signInId}/${activityId}`;
      const reading = await readUploadedCard(deps, upload, `${requestId}/ocr`);
      if (!readsAsDeclared(reading, idCardType) || !reading.idNumber) {
        return {
          ok: false,
          failure: SignInFailure.IdCardUnreadable,
          message: `the card's kind (${idCardType}), name, birth date and number could not all be read: take a sharper picture`,
        };
      }
      if (!sameName(reading.name, verified.name ?? '') || reading.birthDate !== verified.birthDate) {
        return {
          ok: false,
          failure: SignInFailure.IdCardUnreadable,
          message: 'the card does not read as the person verified at registration',
        };
      }
      if (idCardFingerprint(encryption, reading.idNumber) !== user.idCardHash) {
        return {
          ok: false,
          failure: SignInFailure.IdCardMismatch,
          message: 'this is not the ID card verified at registration (use the same card, or a renewed one of it)',
        };
      }
      const result = await checkUploadedCard(deps, upload, reading, `${requestId}/check`);
      if (result !== 'valid')
        return {
          ok: false,
          failure: SignInFailure.IdCardInvalid,
          message: `the issuing authority answers that this card is not valid (${result.replace(/_/g, ' ')})`,
        };
      return { ok: true };
    },

    async completeSignIn({
      signInId,
      method,
      passkeyId,
    }: {
      signInId: string;
      method: SignInProof;
      passkeyId?: string;
    }): Promise<void> {
      await orm.em
        .fork()
        .nativeUpdate(
          SignInEntity,
          { signInId, status: 'in_progress' },
          { status: 'completed', method, passkeyId: passkeyId ?? null, completedAt: clock.date() },
        );
    },

    async closeSignIn({ signInId, status }: { signInId: string; status: 'failed' | 'expired' }): Promise<void> {
      await orm.em.fork().nativeUpdate(SignInEntity, { signInId, status: 'in_progress' }, { status });
    },
  };
};

export type SignInActivities = ReturnType<typeof createSignInActivities>;
