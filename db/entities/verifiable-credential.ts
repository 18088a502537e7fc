import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A W3C verifiable credential the service issued to a user; the signed document is sealed (it carries PII). */
export const VerifiableCredentialEntity = defineEntity({
  name: 'VerifiableCredential',
  tableName: 'verifiable_credentials',
  properties: (p) => ({
    vcId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    type: p.string().length(64),
    /** What the credential attests, unique per user and type version, so an activity retry never issues twice. */
    sourceKey: p.string().length(160).unique(),
    documentSealed: p.text(),
    validFrom: p.datetime(),
    validUntil: p.datetime(),
    issuedAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type VerifiableCredential = InferEntity<typeof VerifiableCredentialEntity>;
