import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { clock } from '../../platform/clock';

/** The client-encrypted mnemonic backup, stored exactly as given (the service never holds its key). */
export const WalletBackupEntity = defineEntity({
  name: 'WalletBackup',
  tableName: 'wallet_backups',
  properties: (p) => ({
    id: p.string().primary().length(64),
    regId: p.string().unique().length(64),
    encryptedMnemonic: p.text(),
    encryptedDerivationPaths: p.text(),
    encryptionMethod: p.string().length(64),
    createdAt: p.datetime().onCreate(() => clock.date()),
  }),
});
export type WalletBackup = InferEntity<typeof WalletBackupEntity>;
