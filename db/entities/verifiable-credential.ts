import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A W3C verifiable credential the service issued to a user; the signed document is sealed (it carries PII). */
export const VerifiableCredentialEntity = defineEntity({
  name: 'VerifiableCredential',
  tableName: 'verifiable_credentials',
  properties: (p) => ({
    vcId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    type: p.string().length(64),
    /**
     * What the credential attests, unique among live credentials, so an activity retry never issues twice. A revoked
     * credential's key gets its vcId appended, so the same facts can be attested again by a new credential.
     */
    sourceKey: p.string().length(240).unique(),
    documentSealed: p.text(),
    /** The subject's DID (credentialSubject.id) when the credential names its holder: their did:ethr once deployed. */
    holder: p.string().length(160).nullable(),
    /** Its BitstringStatusListEntry: the list and the bit that revokes it (null for credentials issued before status lists). */
    statusListId: p.integer().nullable(),
    statusListIndex: p.integer().nullable(),
    revokedAt: p.datetime().nullable(),
    /** superseded | account-closed | operator: <reason>. */
    revocationReason: p.string().length(300).nullable(),
    validFrom: p.datetime(),
    validUntil: p.datetime(),
    issuedAt: p.datetime().onCreate(() => clock.date()),
  }),
  uniques: [{ properties: ['statusListId', 'statusListIndex'] }],
});
export type VerifiableCredential = InferEntity<typeof VerifiableCredentialEntity>;

/**
 * A W3C Bitstring Status List (purpose revocation) of `length` bits. Credentials get positions through a bijection of
 * the allocation counter (index = (allocated * multiplier + offset) mod length, multiplier odd, length a power of
 * two), so every position is used once and the index does not tell the issuance order. `document` is the signed
 * BitstringStatusListCredential the API serves, re-signed by the worker on every revocation.
 */
export const CredentialStatusListEntity = defineEntity({
  name: 'CredentialStatusList',
  tableName: 'credential_status_lists',
  properties: (p) => ({
    id: p.integer().primary().autoincrement(false),
    purpose: p.string().length(32),
    length: p.integer(),
    allocated: p.integer().default(0),
    multiplier: p.integer(),
    offset: p.integer(),
    /** Bumped by every re-signing: the row lock that orders revocations of one list. */
    version: p.integer().default(0),
    document: p.text(),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type CredentialStatusList = InferEntity<typeof CredentialStatusListEntity>;
