import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** A 1-KRW verification of a bank account: the code travels in the deposit's text and comes back from the user. */
export const BankVerificationEntity = defineEntity({
  name: 'BankVerification',
  tableName: 'bank_verifications',
  properties: (p) => ({
    verificationId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankCode: p.string().length(3),
    accountNoSealed: p.text(),
    /** bankAccountNoFingerprint (a keyed hash); rows from before it held bare SHA-256 until the worker re-keyed them. */
    accountNoHash: p.string().length(64),
    codeHash: p.string().length(64),
    attempts: p.integer().default(0),
    status: p.enum(['pending', 'verified', 'failed', 'expired'] as const),
    sessionId: p.string().length(128).nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type BankVerification = InferEntity<typeof BankVerificationEntity>;

/** A bank account the user proved they hold: a charge source. */
export const BankAccountEntity = defineEntity({
  name: 'BankAccount',
  tableName: 'bank_accounts',
  uniques: [{ properties: ['userId', 'bankCode', 'accountNoHash'] }],
  properties: (p) => ({
    bankAccountId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankCode: p.string().length(3),
    bankName: p.string().length(64),
    accountNoSealed: p.text(),
    accountNoHash: p.string().length(64),
    maskedAccountNo: p.string().length(32),
    currency: p.string().length(3),
    /**
     * The account's id at the bank rail for withdrawals (open banking: fintech_use_num), once the person consented:
     * one connected account only, of one user only.
     */
    railAccountRef: p.string().length(64).nullable().unique(),
    /** The consent (bank_consents) that gave `railAccountRef`. */
    consentId: p.string().length(64).nullable(),
    connectedAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type BankAccount = InferEntity<typeof BankAccountEntity>;

/** The associated data a bank account number is sealed with (verifications and connected accounts alike). */
export const bankAccountNoAad = (userId: string): string => `bank-account:${userId}`;

/**
 * The keyed hash (HMAC under DATA_ENCRYPTION_KEY) an account number is looked up by: a copy of the table does not
 * give the numbers away (a bare hash of a 10-14 digit number is reversed by trying them all).
 */
export const bankAccountNoFingerprint = (
  encryption: { fingerprint(value: string, purpose: string): string },
  bankCode: string,
  accountNo: string,
): string => encryption.fingerprint(`${bankCode}\n${accountNo}`, 'bank-account-no');

/** The form the first service versions stored (bare SHA-256, hex); recognised until re-keyed. */
export const LEGACY_ACCOUNT_NO_HASH = /^[0-9a-f]{64}$/;

/**
 * The bank_tran_id each bank call of ours carried (integrations/bank/kftc-tran-ids.ts): one per reference (a charge,
 * a refund, a 1 KRW deposit, an inquiry), unique (the open banking centre refuses a repeat within a day), with the day
 * it was sent on and whether a send claimed it (the result inquiry needs the id, the day and the amount).
 */
export const BankTranIdEntity = defineEntity({
  name: 'BankTranId',
  tableName: 'bank_tran_ids',
  properties: (p) => ({
    reference: p.string().primary().length(128),
    bankTranId: p.string().length(20).unique(),
    tranDate: p.string().length(8),
    direction: p.enum(['deposit', 'withdrawal', 'inquiry'] as const),
    amount: p.bigint('bigint'),
    /** When a send with the current id was claimed (one attempt only); null: never sent. */
    sentAt: p.datetime().nullable(),
    /** The ids it was sent under before (`{bankTranId, tranDate}`), each one the bank was found never to have received. */
    earlierIds: p.json().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type BankTranId = InferEntity<typeof BankTranIdEntity>;
