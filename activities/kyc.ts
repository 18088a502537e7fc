import { createHash } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import {
  KycBasicInfoEntity,
  RegistrationEntity,
  UploadEntity,
  UserEntity,
  VerifiableCredentialEntity,
  openPassResult,
  idCardFingerprint,
} from '../db/entities';
import { sameName } from '../platform/names';
import {
  RegistrationFailure,
  type BasicInfoInput,
  type KycRenewalInput,
  type KycRenewalOutcome,
} from '../workflows/messages';
import { KycFailure } from '../platform/failures';
import { checkUploadedCard, readUploadedCard, readsAsDeclared, type IdCardProofDeps } from './id-card-proof';
import { credentialTime } from '../integrations/credentials/issuer';
import { openCredential } from '../integrations/credentials/records';
import type { CredentialBook } from './credentials';
import { clock } from '../platform/clock';

export interface KycActivityDeps extends IdCardProofDeps {
  credentials: CredentialBook;
}

/** Only the worker holds the issuer's key (VC_ISSUER_KEY): credentials are signed here. */
export const createKycActivities = (deps: KycActivityDeps) => {
  const { orm, encryption, credentials } = deps;
  return {
    /**
     * Stores the user's basic information with a BasicInfoCredential for it, in one transaction: a credential per
     * distinct submission (the same details again keep the credential they have), so a retry never issues twice. New
     * details supersede the old: the user's earlier BasicInfoCredentials are revoked in the same transaction.
     * The legal name must be the one the identity provider verified at registration, and the nationality too when the
     * provider gave one (the service signs nothing that contradicts it); the credential's `evidence` says which claims
     * were verified and which only self-asserted (the English names always are).
     */
    async recordBasicInfo({
      userId,
      kycSessionId,
      fullName,
      engSurname,
      engName,
      nationality,
    }: BasicInfoInput): Promise<{ vcId: string }> {
      const em = orm.em.fork();
      const user = await em.findOneOrFail(UserEntity, { id: userId });
      if (!sameName(fullName, encryption.openText(user.nameSealed, userId))) {
        throw ApplicationFailure.create({
          type: KycFailure.NameMismatch,
          nonRetryable: true,
          message: 'full_name must be the name verified with the identity provider at registration',
        });
      }
      const registration = await em.findOne(RegistrationEntity, { regId: user.regId });
      const identity = registration?.passResultSealed
        ? openPassResult(encryption, user.regId, registration.passResultSealed)
        : {};
      // Only an ISO 3166-1 code the provider gave is comparable (some report a domestic/foreign flag instead).
      const verifiedNationality = /^[A-Z]{2}$/.test(identity.nationality ?? '') ? identity.nationality : undefined;
      if (verifiedNationality && verifiedNationality !== nationality) {
        throw ApplicationFailure.create({
          type: KycFailure.NationalityMismatch,
          nonRetryable: true,
          message: `nationality must be the one verified with the identity provider at registration (${verifiedNationality})`,
        });
      }
      const basicInfo = {
        userId,
        kycSessionId: kycSessionId ?? null,
        fullNameSealed: encryption.sealText(fullName, userId),
        engSurnameSealed: encryption.sealText(engSurname, `eng-name:${userId}`),
        engNameSealed: encryption.sealText(engName, `eng-name:${userId}`),
        nationality,
        submittedAt: clock.date(),
      };
      const subject = { name: fullName, familyName: engSurname, givenName: engName, nationality };
      const evidence = [
        {
          type: ['IdentityProviderEvidence'],
          checkedBy: 'mobile-carrier-pass',
          claims: ['name', ...(verifiedNationality ? ['nationality'] : [])],
        },
        {
          type: ['SelfAssertedEvidence'],
          claims: ['familyName', 'givenName', ...(verifiedNationality ? [] : ['nationality'])],
        },
      ];
      const sourceKey = `basic-info:${userId}:${createHash('sha256').update(JSON.stringify(subject)).digest('hex')}`;
      const { credential, issued } = await credentials.issueOnce(
        {
          userId,
          type: 'BasicInfoCredential',
          sourceKey,
          subject,
          evidence,
          holder: await credentials.holderOf(orm.em.fork(), userId),
        },
        async (tx, credential) => {
          await credentials.revoke(
            tx,
            { userId, type: 'BasicInfoCredential', vcId: { $ne: credential.vcId } },
            'superseded',
          );
          await tx.upsert(KycBasicInfoEntity, basicInfo);
        },
      );
      if (!issued) await orm.em.fork().upsert(KycBasicInfoEntity, basicInfo);
      return { vcId: credential.vcId };
    },

    /**
     * KYC again for a registered user: the ID card (upload owned by kyc-renewal:<userId>) is read by the OCR provider
     * and must show the name and birth date verified at registration (the user's sealed name, and the birth date their
     * KYC credentials attest), the number of the card on file when there is one, and be valid at the issuing authority. A match issues a new KycCredential (naming the holder once deployed) and revokes every
     * other live one as superseded, in one transaction; the source key is the upload, so a retry issues once.
     */
    async renewKyc({ userId, uploadRef, idCardType }: KycRenewalInput): Promise<KycRenewalOutcome> {
      const em = orm.em.fork();
      const upload = await em.findOne(UploadEntity, { id: uploadRef, regId: `kyc-renewal:${userId}` });
      if (!upload)
        throw ApplicationFailure.create({
          type: RegistrationFailure.UploadNotFound,
          message: `no upload ${uploadRef} for this user's KYC renewal`,
          nonRetryable: true,
        });
      const user = await em.findOneOrFail(UserEntity, { id: userId });
      const [latest] = await em.find(
        VerifiableCredentialEntity,
        { userId, type: 'KycCredential' },
        { orderBy: { issuedAt: 'desc' }, limit: 1 },
      );
      if (!latest)
        throw ApplicationFailure.create({
          type: RegistrationFailure.StepOutOfOrder,
          message: 'the user has no KYC credential to renew',
          nonRetryable: true,
        });
      const name = encryption.openText(user.nameSealed, userId);
      const birthDate = String(openCredential(encryption, latest).credentialSubject.birthDate ?? '');
      const { workflowExecution } = Context.current().info;
      const requestId = workflowExecution?.workflowId ?? uploadRef;
      const reading = await readUploadedCard(deps, upload, `${requestId}/ocr`);
      // The card must read as the person (name, birth date), be the card on file when there is one (a renewed card keeps
      // its number), and be valid and current at the issuing authority: a renewal may put the card on file that sign-ins
      // are compared with, so a made-up or reported card must never pass.
      const readsAsPerson =
        readsAsDeclared(reading, idCardType) &&
        sameName(reading.name, name) &&
        reading.birthDate === birthDate &&
        !!reading.idNumber &&
        (!user.idCardHash || idCardFingerprint(encryption, reading.idNumber) === user.idCardHash);
      const verified =
        readsAsPerson && (await checkUploadedCard(deps, upload, reading, `${requestId}/check`)) === 'valid';
      const ocrResult = { name: reading.name, birthDate: reading.birthDate, verified };
      if (!verified) return { verified: false, ocrResult, vcId: null };
      const { credential } = await credentials.issueOnce(
        {
          userId,
          type: 'KycCredential',
          sourceKey: `kyc-renewal:${uploadRef}`,
          holder: await credentials.holderOf(em, userId),
          subject: {
            name,
            birthDate,
            kycLevel: 'identity-verified',
            identityVerification: ['mobile-carrier-pass', 'id-card-ocr'],
            verifiedAt: credentialTime(clock.date()),
          },
        },
        async (tx, issued) => {
          await credentials.revoke(tx, { userId, type: 'KycCredential', vcId: { $ne: issued.vcId } }, 'superseded');
          // An account registered before cards were kept gets its card on file now (a sign-in by ID card compares with it).
          await tx.nativeUpdate(
            UserEntity,
            { id: userId, idCardHash: null },
            { idCardHash: idCardFingerprint(encryption, reading.idNumber!) },
          );
        },
      );
      return { verified: true, ocrResult, vcId: credential.vcId };
    },
  };
};

export type KycActivities = ReturnType<typeof createKycActivities>;
