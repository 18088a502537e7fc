import { createHash } from 'node:crypto';
import type { Orm } from '../db/orm';
import { KycBasicInfoEntity } from '../db/entities';
import type { DataEncryption } from '../platform/data-encryption';
import type { BasicInfoInput } from '../workflows/messages';
import type { CredentialBook } from './credentials';

export interface KycActivityDeps { orm: Orm; encryption: DataEncryption; credentials: CredentialBook }

/** Only the worker holds the issuer's key (VC_ISSUER_KEY): credentials are signed here. */
export const createKycActivities = ({ orm, encryption, credentials }: KycActivityDeps) => ({
  /**
   * Stores the user's basic information with a BasicInfoCredential for it, in one transaction: a credential per
   * distinct submission (the same details again keep the credential they have), so a retry never issues twice. New
   * details supersede the old: the user's earlier BasicInfoCredentials are revoked in the same transaction.
   */
  async recordBasicInfo({ userId, kycSessionId, fullName, engSurname, engName, nationality }: BasicInfoInput): Promise<{ vcId: string }> {
    const basicInfo = {
      userId, kycSessionId: kycSessionId ?? null, fullNameSealed: encryption.sealText(fullName, userId), engSurnameSealed: encryption.sealText(engSurname, `eng-name:${userId}`), engNameSealed: encryption.sealText(engName, `eng-name:${userId}`), nationality, submittedAt: new Date(),
    };
    const subject = { name: fullName, familyName: engSurname, givenName: engName, nationality };
    const sourceKey = `basic-info:${userId}:${createHash('sha256').update(JSON.stringify(subject)).digest('hex')}`;
    const { credential, issued } = await credentials.issueOnce(
      { userId, type: 'BasicInfoCredential', sourceKey, subject, holder: await credentials.holderOf(orm.em.fork(), userId) },
      async (tx, credential) => {
        await credentials.revoke(tx, { userId, type: 'BasicInfoCredential', vcId: { $ne: credential.vcId } }, 'superseded');
        await tx.upsert(KycBasicInfoEntity, basicInfo);
      },
    );
    if (!issued) await orm.em.fork().upsert(KycBasicInfoEntity, basicInfo);
    return { vcId: credential.vcId };
  },
});

export type KycActivities = ReturnType<typeof createKycActivities>;
