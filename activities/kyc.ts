import { createHash } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../db/orm';
import { KycBasicInfoEntity, VerifiableCredentialEntity } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import type { CredentialIssuer } from '../integrations/credentials/issuer';
import { signedCredentialRow } from '../integrations/credentials/records';
import type { BasicInfoInput } from '../workflows/messages';
import { appendEvent } from '../db/events';

export interface KycActivityDeps { orm: Orm; encryption: DataEncryption; issuer: CredentialIssuer; credentialValiditySeconds: number }

/** Only the worker holds the issuer's key (VC_ISSUER_KEY): credentials are signed here. */
export const createKycActivities = ({ orm, encryption, issuer, credentialValiditySeconds }: KycActivityDeps) => ({
  /**
   * Stores the user's basic information with a BasicInfoCredential for it, in one transaction: a credential per
   * distinct submission (the same details again keep the credential they have), so a retry never issues twice.
   */
  async recordBasicInfo({ userId, kycSessionId, fullName, engSurname, engName, nationality }: BasicInfoInput): Promise<{ vcId: string }> {
    const basicInfo = {
      userId, kycSessionId: kycSessionId ?? null, fullNameSealed: encryption.sealText(fullName, userId), engSurnameSealed: encryption.sealText(engSurname, `eng-name:${userId}`), engNameSealed: encryption.sealText(engName, `eng-name:${userId}`), nationality, submittedAt: new Date(),
    };
    const subject = { name: fullName, familyName: engSurname, givenName: engName, nationality };
    const sourceKey = `basic-info:${userId}:${createHash('sha256').update(JSON.stringify(subject)).digest('hex')}`;
    const known = await orm.em.fork().findOne(VerifiableCredentialEntity, { sourceKey });
    if (known) {
      await orm.em.fork().upsert(KycBasicInfoEntity, basicInfo);
      return { vcId: known.vcId };
    }
    const credential = await signedCredentialRow(issuer, encryption, { userId, type: 'BasicInfoCredential', sourceKey, subject, validitySeconds: credentialValiditySeconds });
    try {
      await orm.em.fork().transactional(async (tx) => {
        await tx.upsert(KycBasicInfoEntity, basicInfo);
        await tx.insert(VerifiableCredentialEntity, credential);
        await appendEvent(tx, { type: 'credential.issued', resourceId: credential.vcId as string, userId, data: { vcId: credential.vcId as string, credentialType: 'BasicInfoCredential' } });
      });
      return { vcId: credential.vcId as string };
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      return { vcId: (await orm.em.fork().findOneOrFail(VerifiableCredentialEntity, { sourceKey })).vcId }; // a concurrent twin won
    }
  },
});

export type KycActivities = ReturnType<typeof createKycActivities>;
