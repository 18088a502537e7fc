import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { appendEvent } from '../db/events';
import type { Orm } from '../db/orm';
import { sameName } from '../platform/names';
import {
  AccountBackupEntity,
  RegistrationEntity,
  UploadEntity,
  UserEntity,
  WalletBackupEntity,
  idCardFingerprint,
  openOcrResult,
  openPassResult as openVerifiedIdentity,
  sealOcrResult,
} from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import { readUploadedCard, readsAsDeclared, type IdCardProofDeps } from './id-card-proof';
import { credentialTime } from '../integrations/credentials/issuer';
import type { CredentialBook } from './credentials';
import {
  RegistrationFailure,
  type PassResult,
  type RegistrationOutcome,
  type RegistrationStep,
  type SubmitBackupRequest,
  type SubmitEkycResponse,
} from '../workflows/messages';

export interface RegistrationActivityDeps extends Pick<IdCardProofDeps, 'idCardReader'> {
  orm: Orm;
  encryption: DataEncryption;
  credentials: CredentialBook;
}

type SealedPassResult = Omit<PassResult, 'passRequestId' | 'success'>;

const businessFailure = (type: string, message: string): ApplicationFailure =>
  ApplicationFailure.create({ type, message, nonRetryable: true });

export const maskPhone = (phone: string): string => {
  const digits = phone.replace(/\D/g, '');
  if (digits.length < 8) return '***';
  return `${digits.slice(0, 3)}-****-${digits.slice(-4)}`;
};

/** Every activity is idempotent: it looks up what an earlier attempt wrote before writing. */
export const createRegistrationActivities = ({
  orm,
  encryption,
  idCardReader,
  credentials,
}: RegistrationActivityDeps) => {
  const sealPassResult = (regId: string, result: PassResult): string => {
    const { passRequestId: _id, success: _ok, ...pii } = result;
    return encryption.sealText(JSON.stringify(pii), regId);
  };
  const openPassResult = (regId: string, sealed: string | null | undefined): SealedPassResult => {
    if (!sealed)
      throw businessFailure(RegistrationFailure.StepOutOfOrder, 'no identity result recorded for this registration');
    return openVerifiedIdentity(encryption, regId, sealed);
  };
  const loadRegistration = async (regId: string) => {
    const em = orm.em.fork();
    return { em, registration: await em.findOneOrFail(RegistrationEntity, { regId }) };
  };

  return {
    async recordPassResult({
      regId,
      result,
    }: {
      regId: string;
      result: PassResult;
    }): Promise<{ name: string; phone: string }> {
      if (!result.ci || !result.name || !result.phone) {
        throw businessFailure(RegistrationFailure.PassVerificationFailed, 'identity result lacks ci, name or phone');
      }
      const em = orm.em.fork();
      const ciHash = encryption.fingerprint(result.ci, 'ci');
      if (await em.count(UserEntity, { ciHash })) {
        throw businessFailure(
          RegistrationFailure.DuplicateIdentity,
          'an account already exists for this person: sign in on this device instead (POST /v1/auth/sign-in)',
        );
      }
      const existing = await em.findOne(RegistrationEntity, { regId });
      if (!existing) {
        await em.transactional(async (tx) => {
          tx.create(RegistrationEntity, {
            regId,
            passRequestId: result.passRequestId,
            step: 'pass',
            ciHash,
            passResultSealed: sealPassResult(regId, result),
          });
          await appendEvent(tx, {
            type: 'registration.step_changed',
            resourceId: regId,
            userId: null,
            data: { regId, step: 'pass' },
          });
        });
      }
      return { name: result.name, phone: result.phone };
    },

    async bindRegistrationToDevice(input: {
      regId: string;
      deviceId: string;
      passTokenHash: string;
      passTokenExpiresAt: string;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const registration = await tx.findOneOrFail(RegistrationEntity, { regId: input.regId });
        const moved = registration.step !== 'ekyc';
        registration.deviceId = input.deviceId;
        registration.passTokenHash = input.passTokenHash;
        registration.passTokenExpiresAt = new Date(input.passTokenExpiresAt);
        registration.step = 'ekyc';
        if (moved)
          await appendEvent(tx, {
            type: 'registration.step_changed',
            resourceId: input.regId,
            userId: null,
            data: { regId: input.regId, step: 'ekyc' },
          });
      });
    },

    /** The reading, and the fingerprint of the card's number when it verified and shows one (kept for a later sign-in). */
    async runIdCardOcr(input: {
      regId: string;
      uploadRef: string;
      idCardType: string;
    }): Promise<SubmitEkycResponse['ocrResult'] & { idCardHash?: string }> {
      const { em, registration } = await loadRegistration(input.regId);
      const upload = await em.findOne(UploadEntity, { id: input.uploadRef, regId: input.regId });
      if (!upload)
        throw businessFailure(RegistrationFailure.UploadNotFound, `no upload ${input.uploadRef} for this registration`);
      const { workflowExecution, activityId } = Context.current().info;
      const reading = await readUploadedCard(
        { orm, encryption, idCardReader },
        upload,
        `${workflowExecution?.workflowId ?? input.regId}/${activityId}`,
      );
      const identity = openPassResult(input.regId, registration.passResultSealed);
      const verified =
        readsAsDeclared(reading, input.idCardType) &&
        sameName(reading.name, identity.name ?? '') &&
        reading.birthDate === identity.birthDate;
      return {
        name: reading.name,
        birthDate: reading.birthDate,
        verified,
        ...(verified && reading.idNumber ? { idCardHash: idCardFingerprint(encryption, reading.idNumber) } : {}),
      };
    },

    async recordRegistrationStep(input: {
      regId: string;
      step: RegistrationStep;
      ocrResult?: SubmitEkycResponse['ocrResult'] & { idCardHash?: string };
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const registration = await tx.findOneOrFail(RegistrationEntity, { regId: input.regId });
        if (registration.step !== input.step) {
          await appendEvent(tx, {
            type: 'registration.step_changed',
            resourceId: input.regId,
            userId: null,
            data: { regId: input.regId, step: input.step },
          });
        }
        registration.step = input.step;
        if (input.ocrResult) registration.ocrResult = sealOcrResult(encryption, input.regId, input.ocrResult);
      });
    },

    async storeWalletBackup(input: { regId: string } & SubmitBackupRequest): Promise<string> {
      const em = orm.em.fork();
      const existing = await em.findOne(WalletBackupEntity, { regId: input.regId });
      if (existing) return existing.id;
      const backup = em.create(WalletBackupEntity, { id: `bkp_${randomUUID()}`, ...input });
      await em.flush();
      return backup.id;
    },

    async createUserFromRegistration({ regId, backupId }: { regId: string; backupId: string }): Promise<string> {
      const { em, registration } = await loadRegistration(regId);
      const existing = await em.findOne(UserEntity, { regId });
      if (existing) return existing.id;
      const identity = openPassResult(regId, registration.passResultSealed);
      const ocr = registration.ocrResult ? openOcrResult(encryption, regId, registration.ocrResult) : undefined;
      const backup = await em.findOneOrFail(WalletBackupEntity, { id: backupId });
      const userId = `usr_${randomUUID()}`;
      // Identity is verified (PASS + ID card): the user gets a KYC credential, created with the user or not at all.
      // It names no holder yet: the user's did:ethr exists once their account is deployed (then a new one names it).
      const kyc = {
        userId,
        type: 'KycCredential',
        sourceKey: `kyc:${regId}`,
        subject: {
          name: identity.name ?? '',
          birthDate: identity.birthDate ?? ocr?.birthDate ?? '',
          kycLevel: 'identity-verified',
          identityVerification: ['mobile-carrier-pass', 'id-card-ocr'],
          verifiedAt: credentialTime(registration.updatedAt),
        },
      };
      const statusList = await credentials.openList();
      try {
        await em.transactional(async (tx) => {
          tx.create(UserEntity, {
            id: userId,
            regId,
            ciHash: registration.ciHash!,
            deviceId: registration.deviceId!,
            nameSealed: encryption.sealText(identity.name ?? '', userId),
            phoneSealed: encryption.sealText(identity.phone ?? '', userId),
            maskedPhone: maskPhone(identity.phone ?? ''),
            walletType: 'smart_account',
            idCardHash: ocr?.idCardHash ?? null,
          });
          // The registration's backup is version 1 of the account's backup (GET /v1/account/backup reads it back).
          tx.create(AccountBackupEntity, {
            id: backup.id,
            userId,
            version: 1,
            encryptedMnemonic: backup.encryptedMnemonic,
            encryptedDerivationPaths: backup.encryptedDerivationPaths,
            encryptionMethod: backup.encryptionMethod,
            deviceId: null,
            createdAt: backup.createdAt,
          });
          const row = await tx.findOneOrFail(RegistrationEntity, { regId });
          Object.assign(row, { userId, backupId, step: 'completed', status: 'completed' });
          await appendEvent(tx, { type: 'registration.completed', resourceId: regId, userId, data: { regId, userId } });
          await credentials.issue(tx, statusList, kyc);
        });
      } catch (error) {
        if (error instanceof UniqueConstraintViolationException) {
          const raced = await orm.em.fork().findOne(UserEntity, { regId });
          if (raced) return raced.id;
          throw businessFailure(
            RegistrationFailure.DuplicateIdentity,
            'an account already exists for this person: sign in on this device instead (POST /v1/auth/sign-in)',
          );
        }
        throw error;
      }
      return userId;
    },

    async closeRegistration({
      regId,
      status,
    }: {
      regId: string;
      status: Exclude<RegistrationOutcome['status'], 'completed'>;
    }): Promise<void> {
      await orm.em.fork().transactional(async (tx) => {
        const registration = await tx.findOne(RegistrationEntity, { regId });
        if (!registration || registration.status === status) return; // never started by the app (nothing stored), or closed already
        registration.status = status;
        await appendEvent(tx, {
          type: `registration.${status}`,
          resourceId: regId,
          userId: null,
          data: { regId, step: registration.step },
        });
      });
    },
  };
};

export type RegistrationActivities = ReturnType<typeof createRegistrationActivities>;
