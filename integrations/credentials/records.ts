import { randomUUID } from 'node:crypto';
import type { RequiredEntityData } from '@mikro-orm/core';
import type { DataEncryption } from '../../platform/data-encryption';
import type { VerifiableCredential as VerifiableCredentialRow } from '../../db/entities';
import { credentialTime, type CredentialIssuer, type VerifiableCredential } from './issuer';

export interface CredentialRequest {
  userId: string;
  /** The credential type after VerifiableCredential, e.g. KycCredential. */
  type: string;
  /** What is attested; one credential per source key, so retries never issue twice. */
  sourceKey: string;
  subject: Record<string, unknown>;
  validitySeconds: number;
}

/** Signs a credential and answers the row that stores it (sealed: it carries personal data). */
export async function signedCredentialRow(issuer: CredentialIssuer, encryption: DataEncryption, request: CredentialRequest): Promise<RequiredEntityData<VerifiableCredentialRow>> {
  const uuid = randomUUID();
  const validFrom = new Date(Math.floor(Date.now() / 1000) * 1000);
  const validUntil = new Date(validFrom.getTime() + request.validitySeconds * 1000);
  const credential = await issuer.issue({
    id: `urn:uuid:${uuid}`, type: ['VerifiableCredential', request.type],
    validFrom: credentialTime(validFrom), validUntil: credentialTime(validUntil), credentialSubject: request.subject,
  }, validFrom);
  return {
    vcId: `vc_${uuid}`, userId: request.userId, type: request.type, sourceKey: request.sourceKey,
    documentSealed: encryption.sealText(JSON.stringify(credential), `vc:${request.userId}`), validFrom, validUntil, issuedAt: validFrom,
  };
}

export function openCredential(encryption: DataEncryption, row: Pick<VerifiableCredentialRow, 'documentSealed' | 'userId'>): VerifiableCredential {
  return JSON.parse(encryption.openText(row.documentSealed, `vc:${row.userId}`)) as VerifiableCredential;
}
