import { defineEntity, type InferEntity } from '@mikro-orm/core';

/** A 1-KRW verification of a bank account: the code travels in the deposit's text and comes back from the user. */
export const BankVerificationEntity = defineEntity({
  name: 'BankVerification',
  tableName: 'bank_verifications',
  properties: (p) => ({
    verificationId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    bankCode: p.string().length(3),
    accountNoSealed: p.text(),
    accountNoHash: p.string().length(64),
    codeHash: p.string().length(64),
    attempts: p.integer().default(0),
    status: p.enum(['pending', 'verified', 'failed', 'expired'] as const),
    sessionId: p.string().length(128).nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
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
    connectedAt: p.datetime().onCreate(() => new Date()),
  }),
});
export type BankAccount = InferEntity<typeof BankAccountEntity>;

/** The associated data a bank account number is sealed with (verifications and connected accounts alike). */
export const bankAccountNoAad = (userId: string): string => `bank-account:${userId}`;
