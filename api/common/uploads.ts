import { createHash, randomUUID } from 'node:crypto';
import type { Orm } from '../../db/orm';
import { UploadEntity } from '../../db/entities';
import type { DataEncryption } from '../../platform/data-encryption';
import type { UploadedFile } from '../http/route-table';

/**
 * Stores an ID-card image sealed (its id is the associated data) and answers its uploadRef. `owner` is what may use
 * it: a registration's regId, or `kyc-renewal:<userId>`.
 */
export async function storeIdCardImage(
  orm: Orm,
  encryption: DataEncryption,
  owner: string,
  file: UploadedFile,
): Promise<string> {
  const em = orm.em.fork();
  const id = `upl_${randomUUID()}`;
  em.create(UploadEntity, {
    id,
    regId: owner,
    contentType: file.mimeType,
    sizeBytes: file.size,
    sha256: createHash('sha256').update(file.buffer).digest('hex'),
    dataSealed: encryption.seal(file.buffer, id),
  });
  await em.flush();
  return id;
}

export const kycRenewalUploadOwner = (userId: string): string => `kyc-renewal:${userId}`;
