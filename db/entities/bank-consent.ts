import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A person's consent at the bank rail to withdrawals from their accounts (open banking: the centre's OAuth
 * authorization). `pending` from the start route until the rail sends the person back (`state`, kept as a keyed
 * hash, names it); then `active` with the person's token and refresh token, sealed (only the rail's answers carry
 * them), until the rail refuses them (`expired`) or a newer consent replaces it (`replaced`).
 */
export const BankConsentEntity = defineEntity({
  name: 'BankConsent',
  tableName: 'bank_consents',
  properties: (p) => ({
    consentId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    status: p.enum(['pending', 'active', 'failed', 'expired', 'replaced'] as const),
    stateHash: p.string().length(64).unique(),
    /** Where the app wants the person back (one of BANK_CONSENT_RETURN_URIS); null: the return answers JSON. */
    returnUri: p.string().length(512).nullable(),
    /** The person's id at the rail (user_seq_no). */
    userRef: p.string().length(64).nullable(),
    accessTokenSealed: p.text().nullable(),
    refreshTokenSealed: p.text().nullable(),
    scope: p.string().length(128).nullable(),
    accessExpiresAt: p.datetime().nullable(),
    /** Even at rest, odd while one process renews the token (claimed at updatedAt): one renewal at a time. */
    tokenVersion: p.integer().default(0),
    /** How long the person has to come back with the rail's answer. */
    returnBy: p.datetime(),
    failure: p.string().length(255).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type BankConsent = InferEntity<typeof BankConsentEntity>;

/** An account a consent covers, as the rail lists it (masked): linked to a connected account it matches. */
export const BankConsentAccountEntity = defineEntity({
  name: 'BankConsentAccount',
  tableName: 'bank_consent_accounts',
  uniques: [{ properties: ['consentId', 'railAccountRef'] }],
  properties: (p) => ({
    id: p.string().primary().length(64),
    consentId: p.string().length(64).index(),
    userId: p.string().length(64).index(),
    railAccountRef: p.string().length(64),
    bankCode: p.string().length(3),
    bankName: p.string().length(64),
    accountNoMasked: p.string().length(32),
    withdrawalsAgreed: p.boolean(),
  }),
});
export type BankConsentAccount = InferEntity<typeof BankConsentAccountEntity>;

/** The associated data a consent's tokens are sealed with: one person's tokens open only as theirs. */
export const bankConsentAad = (userId: string): string => `bank-consent:${userId}`;
