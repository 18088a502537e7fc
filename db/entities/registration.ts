import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** One registration attempt, keyed by the regId derived from the identity provider's passRequestId. */
export const RegistrationEntity = defineEntity({
  name: 'Registration',
  tableName: 'registrations',
  properties: (p) => ({
    regId: p.string().primary().length(64),
    passRequestId: p.string().unique().length(128),
    status: p.enum(['in_progress', 'completed', 'failed', 'expired'] as const).default('in_progress'),
    step: p.string().length(32),
    /** Sealed JSON of the identity result (name, phone, birth date, CI/DI...): PII, encrypted at rest. */
    passResultSealed: p.text().nullable(),
    /** Hash of CI, so one person cannot hold two accounts; never the CI itself. */
    ciHash: p.string().length(64).nullable(),
    deviceId: p.string().length(64).nullable(),
    passTokenHash: p.string().length(64).nullable(),
    passTokenExpiresAt: p.datetime().nullable(),
    /** What the ID card read: sealed (a JSON string); a plain object only in rows the worker has not sealed yet. */
    ocrResult: p.json<StoredOcrResult>().nullable(),
    backupId: p.string().length(64).nullable(),
    userId: p.string().length(64).nullable(),
    createdAt: p.datetime().onCreate(() => clock.date()),
    updatedAt: p
      .datetime()
      .onCreate(() => clock.date())
      .onUpdate(() => clock.date()),
  }),
});
export type Registration = InferEntity<typeof RegistrationEntity>;

/** `idCardHash`: the fingerprint of the card's number (idCardFingerprint), kept from a verified reading. */
export interface OcrResult {
  name: string;
  birthDate: string;
  verified: boolean;
  idCardHash?: string;
}
export type StoredOcrResult = string | OcrResult;

interface Sealer {
  sealText(plain: string, associatedData?: string): string;
  openText(sealed: string, associatedData?: string): string;
}
export const sealOcrResult = (encryption: Sealer, regId: string, result: OcrResult): string =>
  encryption.sealText(JSON.stringify(result), `ocr:${regId}`);
export const openOcrResult = (encryption: Sealer, regId: string, stored: StoredOcrResult): OcrResult =>
  typeof stored === 'string' ? (JSON.parse(encryption.openText(stored, `ocr:${regId}`)) as OcrResult) : stored;

/** The fingerprint of an ID card's number (digits only): a resident card keeps its number when it is renewed. */
export const idCardFingerprint = (
  encryption: { fingerprint(value: string, purpose: string): string },
  idNumber: string,
): string => encryption.fingerprint(idNumber.replace(/\D/g, ''), 'id-card-number');

/** The identity provider's result as a registration keeps it (sealed, bound to its regId): who was verified. */
export interface VerifiedIdentity {
  ci?: string;
  di?: string;
  name?: string;
  birthDate?: string;
  gender?: string;
  nationality?: string;
  phone?: string;
}
export const openPassResult = (encryption: Sealer, regId: string, sealed: string): VerifiedIdentity =>
  JSON.parse(encryption.openText(sealed, regId)) as VerifiedIdentity;
