import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

export const KycBasicInfoEntity = defineEntity({
  name: 'KycBasicInfo',
  tableName: 'kyc_basic_info',
  properties: (p) => ({
    userId: p.string().primary().length(64),
    kycSessionId: p.string().length(128).nullable(),
    fullNameSealed: p.text(),
    /** The English names, sealed (AAD `eng-name:<userId>`); plain only in rows the worker has not sealed yet. */
    engSurnameSealed: p.text().fieldName('eng_surname'),
    engNameSealed: p.text().fieldName('eng_name'),
    nationality: p.string().length(2),
    submittedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type KycBasicInfo = InferEntity<typeof KycBasicInfoEntity>;
