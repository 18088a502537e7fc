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

/**
 * The code that undoes an email change, mailed to the address it replaced: a keyed hash of the change's id (256 bits),
 * so the worker that mails it and the API that checks it need nothing stored, and a copy of the database reveals none.
 */
export const emailUndoCode = (encryption: { fingerprint(value: string, purpose: string): string }, changeId: string) =>
  encryption.fingerprint(changeId, 'email-change-undo');

/**
 * A change of the verified email address from one to another. The old address is told at once and can undo it until
 * `undoUntil` with the code it was mailed (a keyed hash of the change id: nothing to store, nothing to leak).
 */
export const EmailChangeEntity = defineEntity({
  name: 'EmailChange',
  tableName: 'email_changes',
  properties: (p) => ({
    changeId: p.string().primary().length(64),
    userId: p.string().length(64).index(),
    /** Both addresses, sealed as the user's email (emailAad). */
    previousEmailSealed: p.text(),
    newEmailSealed: p.text(),
    undoUntil: p.datetime(),
    undoneAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type EmailChange = InferEntity<typeof EmailChangeEntity>;
