import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Orm } from '../../db/orm';
import { appendEvent } from '../../db/events';
import { AccountBackupEntity, type AccountBackup } from '../../db/entities';
import { problems } from '../http/problems';
import type { SecurityNotices } from '../common/security-notices';
import { clock } from '../../platform/clock';

export interface BackupInput {
  encryptedMnemonic: string;
  encryptedDerivationPaths: string;
  encryptionMethod: string;
}

export const backupView = (backup: AccountBackup) => ({
  version: backup.version,
  encryptedMnemonic: backup.encryptedMnemonic,
  encryptedDerivationPaths: backup.encryptedDerivationPaths,
  encryptionMethod: backup.encryptionMethod,
  createdAt: backup.createdAt.toISOString(),
});

/**
 * The client-encrypted wallet backup, read back by a signed-in device (the service never holds its key, so it never
 * decrypts it). Every read is an event and a mail to the person; every replacement is a new version, the earlier
 * ones kept.
 */
export class WalletBackups {
  constructor(private readonly deps: { orm: Orm; notices: SecurityNotices }) {}

  /** The latest version (or `version`); the read commits backup.read, and the person is mailed. */
  async read(userId: string, deviceId: string, version?: number): Promise<AccountBackup> {
    const em = this.deps.orm.em.fork();
    const [backup] = await em.find(AccountBackupEntity, version ? { userId, version } : { userId }, {
      orderBy: { version: 'desc' },
      limit: 1,
    });
    if (!backup) throw problems.notFound(version ? `Backup version ${version}` : 'A wallet backup');
    const readId = `bkr_${randomUUID()}`;
    await this.deps.notices.around({ userId, eventType: 'backup.read', resourceId: readId }, (eventId) =>
      this.deps.orm.em.fork().transactional(async (tx) => {
        await appendEvent(tx, {
          eventId,
          type: 'backup.read',
          resourceId: readId,
          userId,
          data: { deviceId, version: backup.version },
        });
      }),
    );
    return backup;
  }

  /**
   * Stores a new version (the next number; a concurrent store gets the one after), with backup.stored, mailed to the
   * person (its route's step-up approved it: a backup decides what a new phone restores).
   */
  async store(userId: string, deviceId: string, input: BackupInput): Promise<AccountBackup> {
    return this.deps.notices.around({ userId, eventType: 'backup.stored', resourceId: userId }, async (eventId) => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await this.deps.orm.em.fork().transactional(async (tx) => {
            const [latest] = await tx.find(
              AccountBackupEntity,
              { userId },
              { orderBy: { version: 'desc' }, limit: 1, fields: ['version'] },
            );
            const version = (latest?.version ?? 0) + 1;
            const backup = tx.create(AccountBackupEntity, {
              id: `bkp_${randomUUID()}`,
              userId,
              version,
              deviceId,
              ...input,
              createdAt: clock.date(),
            });
            await tx.flush();
            await appendEvent(tx, { eventId, type: 'backup.stored', resourceId: userId, userId, data: { version } });
            return backup;
          });
        } catch (error) {
          if (!(error instanceof UniqueConstraintViolationException) || attempt >= 3) throw error;
        }
      }
    });
  }
}
