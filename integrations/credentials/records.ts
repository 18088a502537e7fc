import type { DataEncryption } from '../../platform/data-encryption';
import type { VerifiableCredential as VerifiableCredentialRow } from '../../db/entities';
import type { VerifiableCredential } from './issuer';

/** The associated data a user's credential documents are sealed with. */
export const credentialAad = (userId: string): string => `vc:${userId}`;

export function openCredential(
  encryption: DataEncryption,
  row: Pick<VerifiableCredentialRow, 'documentSealed' | 'userId'>,
): VerifiableCredential {
  return JSON.parse(encryption.openText(row.documentSealed, credentialAad(row.userId))) as VerifiableCredential;
}
