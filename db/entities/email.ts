import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/**
 * A verification of an email address: a 6-digit code goes to the address by mail and comes back from the user. The
 * address is sealed (personal data); only a keyed hash of the code is kept.
 */
export const EmailVerificationEntity = defineEntity({
  name: 'EmailVerification',
  tableName: 'email_verifications',
  properties: (p) => ({
    verificationId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    emailSealed: p.text(),
    codeHash: p.string().length(64),
    attempts: p.integer().default(0),
    status: p.enum(['pending', 'verified', 'failed'] as const),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type EmailVerification = InferEntity<typeof EmailVerificationEntity>;

/** The associated data an email address is sealed with: the address of one user opens only as theirs. */
export const emailAad = (userId: string): string => `email|${userId}`;
